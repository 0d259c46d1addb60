// The composer: a textarea (Enter sends, Shift+Enter is a new line), a
// completion menu for slash commands (the panel's own, then the server's:
// built-in, custom and the MCP servers' prompts) and @ mentions (workspace
// files, then the MCP servers' resources as @server:uri), one-click
// attachment of the editor's selection or file, and Send / Stop.
import type { Attach, McpResource, SlashCommand } from '../messages';
import { button, h } from './dom';

export interface PanelCommand {
  name: string;
  help: string;
}

/**
 * The commands the panel runs itself; every other slash command goes to
 * the server as a prompt (reasonix.ask), which runs it.
 */
export const PANEL_COMMANDS: readonly PanelCommand[] = [
  { name: '/sessions', help: 'Show saved sessions' },
  { name: '/stop', help: 'Stop the running turn' },
];

export interface ComposerActions {
  send(prompt: string, attach: Attach): void;
  command(name: string): void;
  requestFiles(prefix: string): void;
  /** Asks for the MCP servers' resources; the answer comes to setResources. */
  requestMcp(): void;
  /** Asks for the server's slash commands; the answer comes to setCommands. */
  requestCommands(): void;
  stop(): void;
  /** The draft or the attachment changed (to persist them). */
  changed(draft: string, attach: Attach): void;
}

interface Option {
  label: string;
  detail?: string;
  pick: () => void;
}

type Completion = { kind: 'slash'; query: string } | { kind: 'file'; query: string; start: number } | null;

const MENU_ID = 'composer-menu';
const FILES_SHOWN = 50;
const RESOURCES_SHOWN = 50;

export class Composer {
  readonly el: HTMLElement;
  readonly input = h('textarea', {
    class: 'input',
    attrs: {
      rows: '2',
      placeholder: 'Ask Reasonix… (/ for commands, @ for files and resources)',
      'aria-label': 'Message to Reasonix',
      'aria-autocomplete': 'list',
      'aria-controls': MENU_ID,
      'aria-expanded': 'false',
    },
  });
  private readonly menu = h('div', { class: 'menu', attrs: { id: MENU_ID, role: 'listbox', 'aria-label': 'Suggestions' } });
  private readonly chips = h('div', { class: 'chips' });
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly attachButtons: Record<'selection' | 'file', HTMLButtonElement>;
  private options: Option[] = [];
  private active = 0;
  private completion: Completion = null;
  private fileQuery: string | null = null;
  /** The latest answer to requestFiles while the @ menu is open; null before it. */
  private files: string[] | null = null;
  private fileTimer = 0;
  private blurTimer = 0;
  private attach: Attach = null;
  private running = false;
  /** The server's slash commands and the MCP servers' resources, as last reported. */
  private commands: SlashCommand[] = [];
  private resources: McpResource[] = [];

  constructor(private readonly actions: ComposerActions) {
    this.menu.hidden = true;
    this.sendButton = button('Send', () => this.submit(), { class: 'primary', attrs: { 'aria-label': 'Send message' } });
    this.stopButton = button('Stop', () => actions.stop(), { class: 'danger', attrs: { 'aria-label': 'Stop the running turn' } });
    this.attachButtons = {
      selection: button('Selection', () => this.toggleAttach('selection'), {
        class: 'secondary',
        attrs: { 'aria-label': 'Attach the current selection', 'aria-pressed': 'false', title: 'Attach the editor selection to the next message' },
      }),
      file: button('File', () => this.toggleAttach('file'), {
        class: 'secondary',
        attrs: { 'aria-label': 'Attach the current file', 'aria-pressed': 'false', title: 'Attach the active file to the next message' },
      }),
    };
    this.input.addEventListener('keydown', (ev) => this.onKey(ev));
    this.input.addEventListener('input', () => {
      this.updateCompletion();
      this.actions.changed(this.input.value, this.attach);
    });
    this.input.addEventListener('click', () => this.updateCompletion());
    // The menu goes when the focus leaves for good (not on a click in the menu, which keeps it).
    this.input.addEventListener('blur', () => {
      clearTimeout(this.blurTimer);
      this.blurTimer = window.setTimeout(() => {
        if (document.activeElement !== this.input) this.close();
      }, 150);
    });
    this.input.addEventListener('focus', () => clearTimeout(this.blurTimer));
    this.el = h(
      'div',
      { class: 'composer' },
      this.menu,
      this.chips,
      this.input,
      h(
        'div',
        { class: 'composer-bar' },
        h('span', { class: 'attach-label', attrs: { 'aria-hidden': 'true' } }, 'Attach:'),
        this.attachButtons.selection,
        this.attachButtons.file,
        h('span', { class: 'spacer' }),
        this.stopButton,
        this.sendButton,
      ),
    );
    this.setRunning(false);
  }

  restore(draft: string, attach: Attach): void {
    this.input.value = draft;
    this.setAttach(attach);
  }

  setRunning(running: boolean): void {
    this.running = running;
    this.stopButton.hidden = !running;
    this.sendButton.disabled = running;
    this.sendButton.title = running ? 'A turn is running: stop it or wait for it to end' : 'Send (Enter)';
  }

  focus(): void {
    this.input.focus();
  }

  /** The extension's answer to requestFiles. */
  showFiles(items: string[]): void {
    if (this.completion?.kind !== 'file') return;
    this.files = items;
    this.showMentions(false);
  }

  /** The server's slash commands, offered after the panel's own. */
  setCommands(commands: SlashCommand[]): void {
    this.commands = commands;
    if (this.completion?.kind === 'slash') this.showSlash(this.completion.query, true);
  }

  /** The MCP servers' resources, offered after the files as @server:uri. */
  setResources(resources: McpResource[]): void {
    this.resources = resources;
    // The @ menu opens with the files; until they come there is nothing to update.
    if (this.completion?.kind === 'file' && this.files) this.showMentions(true);
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text) return;
    const cmd = PANEL_COMMANDS.find((c) => c.name === text);
    if (cmd) {
      this.clear();
      this.actions.command(cmd.name);
      return;
    }
    if (this.running) return;
    const attach = this.attach;
    this.clear();
    this.setAttach(null);
    this.actions.send(text, attach);
  }

  private clear(): void {
    this.input.value = '';
    this.close();
    this.actions.changed('', this.attach);
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.isComposing) return;
    if (!this.menu.hidden && this.options.length) {
      switch (ev.key) {
        case 'ArrowDown':
          ev.preventDefault();
          this.highlight((this.active + 1) % this.options.length);
          return;
        case 'ArrowUp':
          ev.preventDefault();
          this.highlight((this.active - 1 + this.options.length) % this.options.length);
          return;
        case 'Enter':
        case 'Tab':
          if (ev.shiftKey) break;
          ev.preventDefault();
          this.options[this.active].pick();
          return;
      }
    }
    if (ev.key === 'Escape' && !this.menu.hidden) {
      ev.preventDefault();
      this.close();
      return;
    }
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.altKey) {
      ev.preventDefault();
      this.submit();
    }
  }

  /** Works out from the text before the caret whether a menu applies. */
  private updateCompletion(): void {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const slash = /^\/\S*$/.exec(before);
    const at = /(?:^|\s)@([^\s@]*)$/.exec(before);
    if (slash && this.input.value.indexOf('\n') < 0) {
      // Asked each time the menu opens: command files and the servers' prompts come and go.
      if (this.completion?.kind !== 'slash') this.actions.requestCommands();
      this.completion = { kind: 'slash', query: before };
      this.showSlash(before, false);
    } else if (at) {
      const query = at[1];
      // Asked each time the menu opens, as for /: resources come and go too.
      if (this.completion?.kind !== 'file') this.actions.requestMcp();
      this.completion = { kind: 'file', query, start: before.length - query.length - 1 };
      if (query !== this.fileQuery) {
        this.fileQuery = query;
        clearTimeout(this.fileTimer);
        this.fileTimer = window.setTimeout(() => this.actions.requestFiles(query), 80);
      }
    } else {
      this.close();
    }
  }

  /** The slash menu for `query`; `keep` keeps the highlighted option where it can. */
  private showSlash(query: string, keep: boolean): void {
    const local = new Set(PANEL_COMMANDS.map((c) => c.name));
    const options: Option[] = [
      ...PANEL_COMMANDS.filter((c) => c.name.startsWith(query)).map((c) => ({ label: c.name, detail: c.help, pick: () => this.pickCommand(c.name) })),
      ...this.commands
        .filter((c) => c.name.startsWith(query) && !local.has(c.name))
        .map((c) => ({ label: c.name, detail: commandDetail(c), pick: () => this.pickServerCommand(c) })),
    ];
    const was = keep && !this.menu.hidden ? this.options[this.active]?.label : undefined;
    this.open(options, options.length ? '' : 'No such command');
    const i = options.findIndex((o) => o.label === was);
    if (i > 0) this.highlight(i);
  }

  /**
   * The @ menu: the files of the latest answer, then the resources that
   * match what follows the @; `keep` keeps the highlighted option where it can.
   */
  private showMentions(keep: boolean): void {
    const c = this.completion;
    if (c?.kind !== 'file') return;
    const query = c.query.toLowerCase();
    const options: Option[] = [
      ...(this.files ?? []).slice(0, FILES_SHOWN).map((path) => ({ label: path, pick: () => this.insertMention(c.start, path) })),
      ...this.resources
        .filter((r) => `${r.server}:${r.uri}`.toLowerCase().includes(query) || r.name.toLowerCase().includes(query))
        .slice(0, RESOURCES_SHOWN)
        .map((r) => ({ label: `@${r.server}:${r.uri}`, detail: resourceDetail(r), pick: () => this.insertMention(c.start, `${r.server}:${r.uri}`) })),
    ];
    const was = keep && !this.menu.hidden ? this.options[this.active]?.label : undefined;
    this.open(options, options.length ? '' : this.resources.length ? 'No matching files or resources' : 'No matching files');
    const i = options.findIndex((o) => o.label === was);
    if (i > 0) this.highlight(i);
  }

  private pickCommand(name: string): void {
    this.clear();
    this.actions.command(name);
  }

  /**
   * A built-in that takes no arguments is sent at once (when no turn is
   * running); any other command replaces the one being typed, for the
   * user to add its arguments.
   */
  private pickServerCommand(c: SlashCommand): void {
    if (c.source === 'builtin' && !c.argumentHint && !this.running) {
      this.input.value = c.name;
      this.submit();
      return;
    }
    const v = this.input.value;
    const caret = this.input.selectionStart ?? v.length;
    const inserted = `${c.name} `;
    this.input.value = inserted + v.slice(caret).replace(/^\S*\s?/, '');
    this.input.setSelectionRange(inserted.length, inserted.length);
    this.close();
    this.input.focus();
    this.actions.changed(this.input.value, this.attach);
  }

  /** Replaces the @word that starts at `start` with @ref (a path, or server:uri). */
  private insertMention(start: number, ref: string): void {
    const v = this.input.value;
    const caret = this.input.selectionStart ?? v.length;
    const word = /^@[^\s@]*/.exec(v.slice(start))?.[0] ?? '@';
    const end = Math.max(caret, start + word.length);
    const inserted = `@${ref} `;
    this.input.value = v.slice(0, start) + inserted + v.slice(end).replace(/^ /, '');
    const pos = start + inserted.length;
    this.input.setSelectionRange(pos, pos);
    this.close();
    this.input.focus();
    this.actions.changed(this.input.value, this.attach);
  }

  private open(options: Option[], emptyText: string): void {
    this.options = options;
    this.menu.replaceChildren(
      ...options.map((o, i) =>
        h(
          'div',
          {
            class: 'menu-item',
            // The whole option on hover, when a narrow view cuts it short.
            attrs: { role: 'option', id: `${MENU_ID}-${i}`, 'aria-selected': 'false', title: o.detail ? `${o.label}  ${o.detail}` : o.label },
            on: {
              // mousedown, not click: the textarea keeps the focus.
              mousedown: (ev) => {
                ev.preventDefault();
                o.pick();
              },
              mousemove: () => this.highlight(i),
            },
          },
          h('span', { class: 'menu-label' }, o.label),
          o.detail ? h('span', { class: 'menu-detail' }, o.detail) : null,
        ),
      ),
    );
    if (!options.length) this.menu.appendChild(h('div', { class: 'menu-empty' }, emptyText));
    this.menu.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    this.highlight(0);
  }

  private close(): void {
    this.menu.hidden = true;
    this.options = [];
    this.completion = null;
    this.fileQuery = null;
    this.files = null;
    clearTimeout(this.fileTimer);
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }

  private highlight(i: number): void {
    this.active = i;
    this.menu.querySelectorAll('.menu-item').forEach((el, k) => {
      el.setAttribute('aria-selected', String(k === i));
      el.classList.toggle('active', k === i);
      if (k === i) el.scrollIntoView({ block: 'nearest' });
    });
    if (this.options.length) this.input.setAttribute('aria-activedescendant', `${MENU_ID}-${i}`);
  }

  private toggleAttach(kind: 'selection' | 'file'): void {
    this.setAttach(this.attach === kind ? null : kind);
    this.actions.changed(this.input.value, this.attach);
    this.input.focus();
  }

  private setAttach(attach: Attach): void {
    this.attach = attach;
    for (const [kind, b] of Object.entries(this.attachButtons)) b.setAttribute('aria-pressed', String(attach === kind));
    this.chips.replaceChildren();
    if (attach) {
      const label = attach === 'selection' ? 'Selection' : 'Current file';
      this.chips.appendChild(
        h(
          'span',
          { class: 'chip', attrs: { 'data-attach': attach } },
          label,
          button('×', () => this.toggleAttach(attach), { class: 'chip-remove', attrs: { 'aria-label': `Remove ${label.toLowerCase()} attachment` } }),
        ),
      );
    }
  }
}

/** A server command's menu detail: its arguments, what it does, and where a custom one comes from. */
function commandDetail(c: SlashCommand): string {
  const from = c.source === 'builtin' || c.source === 'mcp' ? '' : `(${c.source})`;
  return [c.argumentHint, [c.description, from].filter(Boolean).join(' ')].filter(Boolean).join(' · ');
}

function resourceDetail(r: McpResource): string {
  return [r.name, r.description].filter(Boolean).join(' · ');
}
