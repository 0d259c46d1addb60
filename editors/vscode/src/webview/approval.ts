// A question as a card: for a permission, what the agent wants to do, what
// a session grant would cover, and the server's four answers as buttons;
// for another question (a plan, /clear), its own answers.
import type { ApprovalAction } from '../messages';
import { button, h } from './dom';
import { inline } from './markdown';
import type { ApprovalEntry } from './state';

/** The answers, exactly as the server spells them (lsp/permission.go). */
export const ACTIONS: readonly ApprovalAction[] = ['Allow once', 'Allow for session', 'Always allow', 'Deny'];

export function renderApproval(e: ApprovalEntry, answer: (e: ApprovalEntry, action: ApprovalAction) => void): HTMLElement {
  const req = e.request;
  const answered = e.choice !== undefined;
  // A plan's question comes as exit_plan_mode's, whatever proposed it.
  const title = req.tool === 'exit_plan_mode' ? 'Plan' : req.title || req.tool;
  const message = h('p', { class: 'approval-message' });
  message.appendChild(inline(req.message));
  const actions = h('div', { class: 'approval-actions' });
  const offered = req.actions?.length ? req.actions : ACTIONS;
  // A question with answers of its own (a plan, /clear) is no permission:
  // no answer refuses nothing.
  const permission = offered.length === ACTIONS.length && offered.every((a, i) => a === ACTIONS[i]);
  for (const [i, action] of offered.entries()) {
    const b = button(action, () => answer(e, action), {
      class: i === 0 ? 'primary' : 'secondary',
      attrs: answered ? { 'aria-pressed': String(e.choice === action) } : {},
    });
    b.disabled = answered;
    actions.appendChild(b);
  }
  const outcome = !answered
    ? null
    : e.choice === null
      ? h('p', { class: 'approval-choice', attrs: { role: 'status' } }, permission ? 'No answer, which counts as Deny.' : 'No answer.')
      : h('p', { class: 'approval-choice', attrs: { role: 'status' } }, `You chose: ${e.choice}`);
  return h(
    'section',
    {
      class: `approval${answered ? ' answered' : ''}`,
      attrs: { role: 'group', 'aria-label': `Permission request: ${title}`, 'data-approval-id': e.approvalId },
    },
    h('div', { class: 'approval-head' }, h('span', { class: 'approval-icon', attrs: { 'aria-hidden': 'true' } }, '?'), h('code', null, title)),
    message,
    req.scope ? h('p', { class: 'approval-scope' }, 'Scope: ', h('code', null, req.scope)) : null,
    actions,
    outcome,
  );
}
