// The transcript view: one element per entry, kept in step with the
// store's changes. Streamed text is re-rendered at most once a frame, and
// only its last Markdown block changes, so nothing above it flickers.
import type { ApprovalAction } from '../messages';
import { renderApproval } from './approval';
import { renderQuestion } from './question';
import { button, h } from './dom';
import { MarkdownView } from './markdown';
import type { ApprovalEntry, Change, Entry, QuestionEntry, StreamEntry, UserEntry } from './state';
import { renderTodos } from './todos';
import { renderTool } from './tools';

interface Shown {
  el: HTMLElement;
  /** For answers: the Markdown view that grows with the stream. */
  md?: MarkdownView;
}

export class TranscriptView {
  readonly el = h('div', { class: 'transcript', attrs: { role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' } });
  private readonly shown = new Map<number, Shown>();
  private readonly dirty = new Set<Entry>();
  private frame = 0;
  private stick = true;

  constructor(
    private entries: () => Entry[],
    private readonly answer: (e: ApprovalEntry, action: ApprovalAction) => void,
    private readonly respond: (e: QuestionEntry, answer: string) => void,
    private readonly empty: HTMLElement,
    /** "Restore to before this turn" on a prompt the server numbered. */
    private readonly restore: (e: UserEntry) => void = () => {},
  ) {
    this.el.addEventListener('scroll', () => {
      this.stick = this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 40;
    });
    this.el.addEventListener('click', (ev) => this.onClick(ev));
  }

  apply(c: Change): void {
    switch (c.op) {
      case 'reset':
        this.rebuild();
        return;
      case 'add':
      case 'update':
        this.dirty.add(c.entry);
        this.schedule();
        return;
      case 'remove': {
        this.dirty.delete(c.entry);
        this.shown.get(c.entry.id)?.el.remove();
        this.shown.delete(c.entry.id);
        return;
      }
    }
  }

  /** Renders everything now (used at start and after a reset). */
  rebuild(): void {
    this.dirty.clear();
    this.shown.clear();
    this.el.replaceChildren();
    for (const e of this.entries()) this.show(e);
    this.updateEmpty();
    this.stick = true;
    this.scroll();
  }

  /** Renders what changed since the last frame; tests and hidden views may call it directly. */
  flush(): void {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    const order = new Map(this.entries().map((e, i) => [e, i]));
    const pending = [...this.dirty].filter((e) => order.has(e)).sort((a, b) => order.get(a)! - order.get(b)!);
    this.dirty.clear();
    for (const e of pending) this.show(e);
    this.updateEmpty();
    this.scroll();
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  private show(e: Entry): void {
    const old = this.shown.get(e.id);
    if (old?.md && (e.kind === 'text' || e.kind === 'reasoning')) {
      this.updateStream(old, e);
      return;
    }
    const next = this.render(e);
    // A row the user unfolded stays unfolded when its call finishes.
    if (old?.el instanceof HTMLDetailsElement && next.el instanceof HTMLDetailsElement) next.el.open = old.el.open;
    if (old) old.el.replaceWith(next.el);
    else this.el.appendChild(next.el);
    this.shown.set(e.id, next);
  }

  private render(e: Entry): Shown {
    switch (e.kind) {
      case 'user': {
        const prompt = h('div', { class: `user${e.pending ? ' pending' : ''}`, attrs: { 'aria-label': 'You' } }, e.text);
        if (e.turn === undefined || e.pending) return { el: prompt };
        const restore = button('↶ Restore to before this turn', () => this.restore(e), {
          class: 'turn-restore',
          attrs: { 'data-turn': String(e.turn), title: `Put the files and the conversation back to before turn ${e.turn}; a preview comes first` },
        });
        return { el: h('div', { class: 'turn-head' }, prompt, restore) };
      }
      case 'text': {
        const el = h('div', { class: 'markdown answer' });
        const md = new MarkdownView(el);
        md.set(e.text);
        return { el, md };
      }
      case 'reasoning': {
        const body = h('div', { class: 'markdown reasoning-body' });
        const md = new MarkdownView(body);
        md.set(e.text);
        const el = h('details', { class: 'reasoning' }, h('summary', null, 'Reasoning'), body);
        return { el, md };
      }
      case 'tool':
        return { el: renderTool(e) };
      case 'approval':
        return { el: renderApproval(e, this.answer) };
      case 'question':
        return { el: renderQuestion(e, this.respond) };
      case 'notice':
        return {
          el: h('div', { class: `notice notice-${e.level}${e.mono ? ' notice-mono' : ''}`, attrs: e.level === 'error' ? { role: 'alert' } : {} }, e.text),
        };
      case 'done':
        return { el: h('div', { class: 'turn-done' }, e.text) };
      case 'todo':
        return { el: renderTodos(e) };
    }
  }

  private updateStream(shown: Shown, e: StreamEntry): void {
    shown.md!.set(e.text);
  }

  private updateEmpty(): void {
    this.empty.hidden = this.entries().length > 0;
  }

  private scroll(): void {
    if (this.stick) this.el.scrollTop = this.el.scrollHeight;
  }

  private onClick(ev: MouseEvent): void {
    const target = ev.target as HTMLElement;
    const copy = target.closest('button.copy');
    if (copy) {
      const code = copy.closest('.code-block')?.querySelector('code')?.textContent ?? '';
      void copyText(code).then((ok) => {
        copy.textContent = ok ? 'Copied' : 'Copy failed';
        setTimeout(() => (copy.textContent = 'Copy'), 1500);
      });
    }
  }
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Older webviews without clipboard access: copy a selection instead.
    const ta = h('textarea', { class: 'offscreen' });
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}
