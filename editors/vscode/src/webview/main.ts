// The chat panel: builds the page, applies the extension's messages to the
// state, and turns clicks and keys into messages for the extension.
import type { ApprovalAction, Attach, ExtensionToPanel } from '../messages';
import { Composer, SLASH_COMMANDS } from './composer';
import { ChangesView } from './changes';
import { h } from './dom';
import { addApproval, applyEvent, historyEntries, settleApproval } from './events';
import { Header } from './header';
import { SessionsView } from './sessions';
import { restoreState, stateToSave, Store, type ApprovalEntry, type NoticeEntry } from './state';
import { TranscriptView } from './transcript';
import { getState, post, setState } from './vscode';

const store = new Store(restoreState(getState()));
const s = () => store.state;

const header = new Header({ sessions: showSessions, newSession });
const empty = h(
  'div',
  { class: 'empty' },
  h('p', null, 'Ask Reasonix about your code.'),
  h('p', { class: 'hint' }, 'Type / for commands and @ to mention a file or an MCP resource; Enter sends, Shift+Enter starts a new line.'),
);
const transcript = new TranscriptView(() => s().entries, answer, empty);
const sessions = new SessionsView({
  resume: (sessionId) => {
    post({ type: 'resumeSession', sessionId });
    s().view = 'chat';
    refresh();
  },
  back: () => {
    s().view = 'chat';
    refresh();
  },
});
const changes = new ChangesView({
  openDiff: (path) => post({ type: 'openDiff', path }),
  accept: (path) => post({ type: 'acceptFile', path }),
  reject: (path) => post({ type: 'rejectFile', path }),
});
const composer = new Composer({
  send,
  command: runCommand,
  requestFiles: (prefix) => post({ type: 'requestFiles', prefix }),
  requestMcp: () => post({ type: 'requestMcp' }),
  stop: () => post({ type: 'stop' }),
  changed: (draft, attach) => {
    s().draft = draft;
    s().attach = attach;
    save();
  },
});
const chat = h('main', { class: 'chat' }, empty, transcript.el);
/** The notices of /mcp commands waiting for the extension's answer. */
const mcpWaiting: NoticeEntry[] = [];

store.onChange((c) => transcript.apply(c));
// src/panel.ts serves a page with an empty #app; a bare body works too.
(document.getElementById('app') ?? document.body).append(h('div', { class: 'panel' }, header.el, chat, sessions.el, changes.el, composer.el));
composer.restore(s().draft, s().attach);
transcript.rebuild();
refresh();

window.addEventListener('message', (ev: MessageEvent<ExtensionToPanel>) => {
  receive(ev.data);
  refresh();
  save();
});
post({ type: 'ready' });

function receive(msg: ExtensionToPanel): void {
  switch (msg?.type) {
    case 'event':
      applyEvent(store, msg.event);
      return;
    case 'approval':
      addApproval(store, msg.id, msg.request);
      return;
    case 'approvalDone':
      // Answered in a modal dialog, or withdrawn: the card says so.
      settleApproval(store, msg.id, msg.action);
      return;
    case 'state':
      s().model = msg.model || s().model;
      s().running = msg.running;
      s().sessionId = msg.sessionId;
      return;
    case 'sessions':
      s().sessions = msg.list;
      return;
    case 'resumed':
      s().sessionId = msg.sessionId;
      s().model = msg.model || s().model;
      s().running = false;
      s().turn = undefined;
      s().session = { usage: msg.usage, cost: msg.cost, priced: msg.cost > 0 };
      s().changed = [];
      s().view = 'chat';
      store.reset(historyEntries(msg.messages, s().nextId));
      s().nextId += s().entries.length;
      return;
    case 'files':
      // Either plain paths or {path} items.
      composer.showFiles((msg.items as unknown[]).map((i) => (typeof i === 'string' ? i : (i as { path: string }).path)));
      return;
    case 'mcp':
      composer.setMcp(msg.prompts, msg.resources);
      for (const e of mcpWaiting.splice(0)) {
        if (msg.error) {
          e.level = 'error';
          e.text = msg.error;
        } else {
          e.text = msg.text;
          e.mono = msg.servers.length > 0; // a table; else a sentence
        }
        store.update(e);
      }
      return;
    case 'changedFiles':
      s().changed = msg.files;
      return;
    case 'error':
      store.add<NoticeEntry>({ kind: 'notice', level: 'error', text: msg.message });
      return;
  }
}

function refresh(): void {
  const st = s();
  header.update(st);
  composer.setRunning(st.running);
  // Screen readers announce the streamed answer once, when the turn ends.
  transcript.el.setAttribute('aria-busy', String(st.running));
  changes.update(st.changed);
  const showSessionsView = st.view === 'sessions';
  chat.hidden = showSessionsView;
  sessions.el.hidden = !showSessionsView;
  if (showSessionsView) sessions.update(st.sessions, st.sessionId);
}

function send(prompt: string, attach: Attach): void {
  post({ type: 'ask', prompt, attach });
  store.add({ kind: 'user', text: prompt, pending: true });
  s().running = true; // until the extension says otherwise
  s().view = 'chat';
  refresh();
  save();
}

function answer(e: ApprovalEntry, action: ApprovalAction): void {
  if (e.choice !== undefined) return;
  e.choice = action;
  post({ type: 'approve', id: e.approvalId, action });
  store.update(e);
  transcript.flush();
  save();
}

function showSessions(): void {
  s().view = 'sessions';
  s().sessions = null;
  post({ type: 'listSessions' });
  refresh();
}

function newSession(): void {
  post({ type: 'newSession' });
  s().turn = undefined;
  s().session = undefined;
  s().changed = [];
  s().view = 'chat';
  store.reset();
  refresh();
  save();
  composer.focus();
}

function runCommand(name: string): void {
  switch (name) {
    case '/new':
      newSession();
      return;
    case '/sessions':
      showSessions();
      return;
    case '/stop':
      post({ type: 'stop' });
      return;
    case '/clear':
      store.reset();
      save();
      return;
    case '/mcp':
      // The servers' table replaces this notice when it comes.
      mcpWaiting.push(store.add<NoticeEntry>({ kind: 'notice', level: 'info', text: 'Asking the MCP servers…' }));
      post({ type: 'requestMcp' });
      save();
      return;
    case '/help': {
      const lines = SLASH_COMMANDS.map((c) => `${c.name}  ${c.help}`);
      lines.push(
        '/mcp__<server>__<prompt> args  Run a prompt of an MCP server',
        '@path  Attach a workspace file',
        '@server:uri  Attach a resource of an MCP server',
        'Enter  Send · Shift+Enter  New line · Esc  Close a menu',
      );
      store.add<NoticeEntry>({ kind: 'notice', level: 'info', text: lines.join('\n') });
      save();
      return;
    }
  }
}

// setState is cheap but not free; a streaming answer changes the state
// many times a second.
let saveTimer = 0;
function save(): void {
  if (!saveTimer) saveTimer = window.setTimeout(saveNow, 200);
}
function saveNow(): void {
  clearTimeout(saveTimer);
  saveTimer = 0;
  setState(stateToSave(s()));
}
window.addEventListener('pagehide', saveNow);
document.addEventListener('visibilitychange', () => {
  if (document.hidden) saveNow();
});
