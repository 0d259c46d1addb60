// The header: the model in use, what the turn and the session cost (or
// their tokens when the model has no price) with their cache-hit share,
// how full the context window is, and the buttons for the session list
// and a new session.
import { button, h } from './dom';
import { cacheHit, formatCost, formatTokens } from './format';
import type { Accounting, ContextFill, PanelState } from './state';

export class Header {
  readonly el: HTMLElement;
  private readonly model = h('span', { class: 'model', attrs: { title: 'Model' } });
  private readonly turn = h('span', { class: 'badge badge-turn', attrs: { role: 'status' } });
  private readonly session = h('span', { class: 'badge badge-session', attrs: { role: 'status' } });
  private readonly meter = h('meter', { class: 'context-meter', attrs: { min: '0', max: '100', low: '60', high: '80', optimum: '0' } });
  private readonly contextText = h('span', { class: 'context-text' });
  private readonly context = h('span', { class: 'badge badge-context' }, this.meter, this.contextText);

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
      h('div', { class: 'header-row badges' }, this.turn, this.session, this.context),
    );
  }

  update(s: PanelState): void {
    this.model.textContent = s.model || s.usageModel || 'Reasonix';
    badge(this.turn, 'Turn', s.turn);
    badge(this.session, 'Session', s.session);
    this.showContext(s.context);
  }

  private showContext(c: ContextFill | undefined): void {
    this.context.hidden = !c || c.window <= 0;
    if (!c || c.window <= 0) return;
    const pct = contextPercent(c);
    this.meter.value = pct;
    this.contextText.textContent = `${pct}% of context`;
    this.context.title = `${c.tokens.toLocaleString('en-US')} of ${c.window.toLocaleString('en-US')} tokens of the model's context window; /context shows where they go`;
  }
}

/** How full the window is in whole percent, at most 100 (agent.ContextFill.Percent). */
export function contextPercent(c: ContextFill): number {
  return Math.min(Math.floor((100 * c.tokens) / c.window), 100);
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
