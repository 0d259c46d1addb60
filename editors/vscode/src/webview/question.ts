// The agent's question as a card: the question, its suggested answers as
// buttons, and a field for an answer in the user's own words.
import { button, h } from './dom';
import { inline } from './markdown';
import type { QuestionEntry } from './state';

export function renderQuestion(e: QuestionEntry, respond: (e: QuestionEntry, answer: string) => void): HTMLElement {
  const req = e.request;
  const answered = e.answer !== undefined;
  const question = h('p', { class: 'approval-message' });
  question.appendChild(inline(req.question));
  const actions = h('div', { class: 'approval-actions' });
  req.options.forEach((option, i) => {
    const b = button(option, () => respond(e, option), {
      class: i === 0 ? 'primary' : 'secondary',
      attrs: answered ? { 'aria-pressed': String(e.answer === option) } : {},
    });
    b.disabled = answered;
    actions.appendChild(b);
  });
  let own: HTMLElement | null = null;
  if (req.allowText && !answered) {
    const input = h('input', { class: 'question-input', attrs: { type: 'text', placeholder: 'Or answer in your own words', 'aria-label': 'Your answer' } });
    const send = () => respond(e, input.value);
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        ev.preventDefault();
        send();
      }
    });
    own = h('div', { class: 'question-own' }, input, button('Answer', send, { class: 'secondary' }));
  }
  const outcome = !answered
    ? null
    : e.answer === null
      ? h('p', { class: 'approval-choice', attrs: { role: 'status' } }, 'No answer: the agent goes on with an assumption.')
      : h('p', { class: 'approval-choice', attrs: { role: 'status' } }, `You answered: ${e.answer}`);
  return h(
    'section',
    {
      class: `approval question${answered ? ' answered' : ''}`,
      attrs: { role: 'group', 'aria-label': 'Question from Reasonix', 'data-question-id': e.questionId },
    },
    h('div', { class: 'approval-head' }, h('span', { class: 'approval-icon', attrs: { 'aria-hidden': 'true' } }, '?'), h('span', null, 'Reasonix asks')),
    question,
    actions,
    own,
    outcome,
  );
}
