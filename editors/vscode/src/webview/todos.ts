// The todo list the model keeps with todo_write: a checklist, the item in
// hand in its active form ("Running the tests"). Boxes are for reading:
// the model ticks them, not the user.
import type { Todo } from '../messages';
import { h } from './dom';
import type { TodoEntry } from './state';

const LABEL: Record<Todo['status'], string> = { pending: 'pending', in_progress: 'in progress', completed: 'completed' };

export function renderTodos(e: TodoEntry): HTMLElement {
  const done = e.todos.filter((t) => t.status === 'completed').length;
  const items = e.todos.map((t) => {
    const box = h('input', { class: 'todo-box', attrs: { type: 'checkbox', disabled: '', 'aria-label': LABEL[t.status] } });
    box.checked = t.status === 'completed';
    box.indeterminate = t.status === 'in_progress';
    const text = t.status === 'in_progress' ? t.activeForm || t.content : t.content;
    return h('li', { class: `todo todo-${t.status}`, attrs: { 'data-status': t.status } }, box, h('span', { class: 'todo-text' }, text));
  });
  const heading = e.todos.length === 0 ? 'Todo list cleared' : `Todo ${done}/${e.todos.length}`;
  return h('div', { class: 'todos', attrs: { role: 'group', 'aria-label': 'Todo list' } }, h('div', { class: 'todos-head' }, heading), h('ul', { class: 'todo-list' }, ...items));
}
