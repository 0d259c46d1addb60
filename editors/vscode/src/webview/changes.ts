// The files the turn changed, each with: view the diff, keep, revert.
import type { ChangedFile } from '../messages';
import { button, h } from './dom';

const STATUS: Record<string, { letter: string; label: string }> = {
  modified: { letter: 'M', label: 'modified' },
  created: { letter: 'A', label: 'created' },
  deleted: { letter: 'D', label: 'deleted' },
};

export interface ChangeActions {
  openDiff(path: string): void;
  accept(path: string): void;
  reject(path: string): void;
}

export class ChangesView {
  readonly el: HTMLElement;
  private readonly title = h('h2', { attrs: { id: 'changes-title' } });
  private readonly list = h('ul', { class: 'changes-list' });

  constructor(private readonly actions: ChangeActions) {
    this.el = h('section', { class: 'changes', attrs: { 'aria-labelledby': 'changes-title' } }, this.title, this.list);
    this.el.hidden = true;
  }

  update(files: ChangedFile[]): void {
    this.el.hidden = files.length === 0;
    this.title.textContent = `Changed files (${files.length})`;
    this.list.replaceChildren(
      ...files.map((f) => {
        const st = STATUS[f.status] ?? { letter: '?', label: f.status };
        const name = f.path.split('/').pop() ?? f.path;
        const dir = f.path.slice(0, f.path.length - name.length);
        return h(
          'li',
          { class: 'change', attrs: { 'data-path': f.path, 'data-status': f.status } },
          h('span', { class: `change-status status-${f.status}`, attrs: { title: st.label, 'aria-label': st.label } }, st.letter),
          h('span', { class: 'change-path', attrs: { title: f.path } }, h('span', { class: 'change-name' }, name), dir ? h('span', { class: 'change-dir' }, dir) : null),
          h(
            'span',
            { class: 'change-actions' },
            button('Diff', () => this.actions.openDiff(f.path), { class: 'secondary', attrs: { 'aria-label': `View the diff of ${f.path}` } }),
            button('Keep', () => this.actions.accept(f.path), { class: 'secondary', attrs: { 'aria-label': `Keep the changes to ${f.path}` } }),
            button('Revert', () => this.actions.reject(f.path), { class: 'secondary', attrs: { 'aria-label': `Revert the changes to ${f.path}` } }),
          ),
        );
      }),
    );
  }
}
