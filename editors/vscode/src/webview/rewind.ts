// "Restore to before this turn": the preview of a rewind (the files and
// what happens to each, from reasonix.rewind with preview) with Confirm
// and Cancel, and the words of its outcome.
import type { RewindAction, RewindPlan } from '../messages';
import { button, h } from './dom';
import { plural } from './format';

/** The rewind being looked at: asked for, previewed, running, or failed. */
export interface RewindState {
  turn: number;
  /** The first line of the turn's prompt, as the panel shows it. */
  prompt: string;
  /** The preview, once it has come. */
  plan?: RewindPlan;
  /** Confirmed: the rewind runs. */
  busy?: boolean;
  error?: string;
}

/** What each action does to a file, in the words the preview shows beside it. */
const ACTIONS: Record<RewindAction, { label: string; says: string }> = {
  restore: { label: 'restore', says: 'gets its earlier text back' },
  remove: { label: 'remove', says: 'created by these turns: removed' },
  recreate: { label: 'recreate', says: 'deleted by these turns: put back' },
  merge: { label: 'merge', says: 'changed since: their changes are taken out, the later ones kept' },
  conflict: { label: 'conflict', says: 'changed since: left as it is' },
  unknown: { label: 'unknown', says: 'its earlier text was not kept: left as it is' },
  unchanged: { label: 'unchanged', says: 'already as it was' },
};

/** "1 file restored, 1 file removed, 1 conflict", or "no file to change". */
export function rewindCounts(plan: RewindPlan): string {
  const by = new Map<RewindAction, number>();
  for (const f of plan.files) by.set(f.action, (by.get(f.action) ?? 0) + 1);
  const parts: string[] = [];
  const words: [RewindAction, string][] = [
    ['restore', 'restored'],
    ['remove', 'removed'],
    ['recreate', 'recreated'],
    ['merge', 'merged'],
  ];
  for (const [a, done] of words) {
    const n = by.get(a);
    if (n) parts.push(`${plural(n, 'file')} ${done}`);
  }
  if (by.get('conflict')) parts.push(plural(by.get('conflict')!, 'conflict'));
  if (by.get('unknown')) parts.push(`${plural(by.get('unknown')!, 'file')} left as ${by.get('unknown') === 1 ? 'it is' : 'they are'}`);
  return parts.length ? parts.join(', ') : 'no file to change';
}

/** The outcome of a rewind, for the transcript: counts, then each conflict and where its earlier text is. */
export function rewindSummary(plan: RewindPlan): string {
  const lines = [`Restored to before turn ${plan.turn}: ${rewindCounts(plan)}.`];
  for (const f of plan.files) {
    if (f.action === 'conflict') {
      lines.push(`${f.path}: ${f.note || 'changed since'}, left as it is${f.saved ? `; its earlier text is in ${f.saved}` : ''}.`);
    } else if (f.action === 'unknown') {
      lines.push(`${f.path}: ${f.note || 'its earlier text was not kept'}, left as it is.`);
    }
  }
  return lines.join('\n');
}

export interface RewindActions {
  confirm(turn: number): void;
  cancel(): void;
}

/** The preview card, above the composer while a rewind is looked at. */
export class RewindView {
  readonly el = h('section', { class: 'rewind', attrs: { 'aria-labelledby': 'rewind-title', role: 'dialog' } });

  constructor(private readonly actions: RewindActions) {
    this.el.hidden = true;
  }

  /** What the card shows now, so that an unrelated refresh leaves it (and the focus) alone. */
  private shown = 'null';

  update(r: RewindState | undefined): void {
    const key = JSON.stringify(r ?? null);
    if (key === this.shown) return;
    this.shown = key;
    this.el.hidden = !r;
    if (!r) {
      this.el.replaceChildren();
      return;
    }
    const title = h('h2', { attrs: { id: 'rewind-title' } }, `Restore to before turn ${r.turn}`);
    const prompt = h('p', { class: 'rewind-prompt' }, r.prompt);
    const body: HTMLElement[] = [];
    if (r.error) {
      body.push(h('p', { class: 'rewind-error', attrs: { role: 'alert' } }, r.error));
    } else if (!r.plan) {
      body.push(h('p', { class: 'rewind-wait' }, 'Looking at what the turns changed…'));
    } else {
      body.push(this.files(r.plan));
      const later = r.plan.turns.filter((t) => t !== r.turn).length;
      const turns = later ? `this turn and ${plural(later, 'later one')} leave` : 'this turn leaves';
      body.push(h('p', { class: 'rewind-conversation' }, `The conversation goes back to before it too: ${turns} the model's context (the session's archive keeps them).`));
    }
    const confirm = button(r.busy ? 'Restoring…' : 'Confirm', () => this.actions.confirm(r.turn), { class: 'rewind-confirm' });
    confirm.disabled = !r.plan || !!r.busy || !!r.error;
    const cancel = button(r.error ? 'Close' : 'Cancel', () => this.actions.cancel(), { class: 'secondary rewind-cancel' });
    cancel.disabled = !!r.busy;
    this.el.replaceChildren(title, prompt, ...body, h('div', { class: 'rewind-buttons' }, confirm, cancel));
    if (r.plan && !r.busy) confirm.focus();
  }

  private files(plan: RewindPlan): HTMLElement {
    if (plan.files.length === 0) return h('p', { class: 'rewind-none' }, 'These turns changed no file.');
    return h(
      'ul',
      { class: 'rewind-files' },
      ...plan.files.map((f) => {
        const a = ACTIONS[f.action] ?? { label: f.action, says: '' };
        const says = f.note && (f.action === 'conflict' || f.action === 'unknown') ? `${f.note}: left as it is` : a.says;
        return h(
          'li',
          { class: 'rewind-file', attrs: { 'data-path': f.path, 'data-action': f.action } },
          h('span', { class: `rewind-action action-${f.action}` }, a.label),
          h('span', { class: 'rewind-path', attrs: { title: f.path } }, f.path),
          h('span', { class: 'rewind-says' }, says),
        );
      }),
    );
  }
}
