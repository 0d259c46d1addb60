// The header: the model in use, what the turn and the session cost (or
// their tokens when the model has no price) with their cache-hit share,
// and the buttons for the session list and a new session.
import { button, h } from './dom';
import { cacheHit, formatCost, formatTokens } from './format';
import type { Accounting, PanelState } from './state';

export class Header {
  readonly el: HTMLElement;
  private readonly model = h('span', { class: 'model', attrs: { title: 'Model' } });
  private readonly turn = h('span', { class: 'badge badge-turn', attrs: { role: 'status' } });
  private readonly session = h('span', { class: 'badge badge-session', attrs: { role: 'status' } });

  constructor(actions: { sessions: () => void; newSession: () => void }) {
    this.el = h(
      'header',
      { class: 'header' },
      h(
        'div',
        { class: 'header-row' },
        this.model,
        h('span', { class: 'spacer' }),
        button('History', actions.sessions, { class: 'icon-button', attrs: { 'aria-label': 'Show sessions', title: 'Sessions' } }),
        button('New', actions.newSession, { class: 'icon-button', attrs: { 'aria-label': 'New session', title: 'New session' } }),
      ),
      h('div', { class: 'header-row badges' }, this.turn, this.session),
    );
  }

  update(s: PanelState): void {
    this.model.textContent = s.model || s.usageModel || 'Reasonix';
    badge(this.turn, 'Turn', s.turn);
    badge(this.session, 'Session', s.session);
  }
}

function badge(el: HTMLElement, label: string, a: Accounting | undefined): void {
  el.hidden = !a;
  if (!a) return;
  const u = a.usage;
  const tokens = u.prompt_tokens + u.completion_tokens;
  const hit = cacheHit(u);
  const amount = a.priced ? formatCost(a.cost) : `${formatTokens(tokens)} tokens`;
  el.textContent = `${label} ${amount}${hit ? ` · ${hit} cache hit` : ''}`;
  el.title =
    `${label}: ${u.prompt_tokens} prompt tokens (${u.cache_hit_tokens} from cache), ` +
    `${u.completion_tokens} completion tokens` +
    (a.priced ? `, ${formatCost(a.cost)}` : '; the model has no known price');
}
