// The saved sessions, newest first; choosing one resumes it.
import type { SessionSummary } from '../messages';
import { button, h } from './dom';
import { formatAgo, formatCost, plural } from './format';

export class SessionsView {
  readonly el: HTMLElement;
  private readonly list = h('ul', { class: 'session-list' });
  private readonly status = h('p', { class: 'sessions-status', attrs: { role: 'status' } });

  constructor(private readonly actions: { resume: (id: string) => void; back: () => void }) {
    this.el = h(
      'section',
      { class: 'sessions', attrs: { 'aria-labelledby': 'sessions-title' } },
      h(
        'div',
        { class: 'sessions-head' },
        h('h2', { attrs: { id: 'sessions-title' } }, 'Sessions'),
        h('span', { class: 'spacer' }),
        button('Back', actions.back, { class: 'secondary', attrs: { 'aria-label': 'Back to the conversation' } }),
      ),
      this.status,
      this.list,
    );
  }

  update(sessions: SessionSummary[] | null, current: string | null): void {
    this.status.textContent = sessions === null ? 'Loading…' : sessions.length ? '' : 'No saved sessions yet.';
    this.status.hidden = this.status.textContent === '';
    this.list.replaceChildren(
      ...(sessions ?? []).map((s) => {
        const meta = [s.model, plural(s.turns, 'turn'), s.cost ? formatCost(s.cost) : '', formatAgo(s.updated)].filter(Boolean);
        const b = button('', () => this.actions.resume(s.id), {
          class: `session${s.id === current ? ' current' : ''}`,
          attrs: { 'aria-label': `Resume session: ${s.title || s.id}`, 'data-session-id': s.id },
        });
        b.append(
          h('span', { class: 'session-title' }, s.title || '(untitled)'),
          h('span', { class: 'session-meta' }, meta.join(' · '), s.running ? h('span', { class: 'session-running' }, ' · running') : null),
        );
        return h('li', null, b);
      }),
    );
  }
}
