// The chat panel: builds the page, applies the extension's messages to the
// state, and turns clicks and keys into messages for the extension.
import type { ApprovalAction, Attach, ExtensionToPanel } from '../messages';
import { Composer } from './composer';
import { ChangesView } from './changes';
import { h } from './dom';
import { addApproval, addQuestion, applyEvent, historyEntries, settleApproval, settleQuestion } from './events';
import { Header } from './header';
import { SessionsView } from './sessions';
import { RewindView, rewindSummary } from './rewind';
import { restoreState, stateToSave, Store, type ApprovalEntry, type NoticeEntry, type QuestionEntry, type UserEntry } from './state';
import { TranscriptView } from './transcript';
import { getState, post, setState } from './vscode';

const store = new Store(restoreState(getState()));
const s = () => store.state;

const header = new Header({ sessions: showSessions, newSession });
const empty = h(
  'div',
  { class: 'empty' },
  h('p', null, 'Ask Reasonix about your code.'),
  h('p', { class: 'hint' }, 'Type / for commands (/help lists them) and @ to mention a file or an MCP resource; Enter sends, Shift+Enter starts a new line.'),
);
const transcript = new TranscriptView(() => s().entries, answer, respond, empty, previewRewind);
const rewind = new RewindView({
  confirm: (turn) => {
    const r = s().rewind;
    if (!r || r.turn !== turn || !r.plan || r.busy) return;
    r.busy = true;
    post({ type: 'rewind', turn });
    refresh();
    save();
  },
  cancel: () => {
    s().rewind = undefined;
    refresh();
    save();
  },
});
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
  requestCommands: () => post({ type: 'requestCommands' }),
  stop: () => post({ type: 'stop' }),
  changed: (draft, attach) => {
    s().draft = draft;
    s().attach = attach;
    save();
  },
});
const chat = h('main', { class: 'chat' }, empty, transcript.el);

store.onChange((c) => transcript.apply(c));
// src/panel.ts serves a page with an empty #app; a bare body works too.
(document.getElementById('app') ?? document.body).append(h('div', { class: 'panel' }, header.el, chat, sessions.el, rewind.el, changes.el, composer.el));
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
    case 'question':
      addQuestion(store, msg.id, msg.request);
      return;
    case 'questionDone':
      settleQuestion(store, msg.id, msg.answer);
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
      s().context = undefined; // known again after the next turn
      s().session = { usage: msg.usage, cost: msg.cost, priced: msg.cost > 0 };
      s().changed = [];
      s().view = 'chat';
      s().rewind = undefined;
      store.reset(numberTurns(historyEntries(msg.messages, s().nextId), msg.turns));
      s().nextId += s().entries.length;
      return;
    case 'files':
      // Either plain paths or {path} items.
      composer.showFiles((msg.items as unknown[]).map((i) => (typeof i === 'string' ? i : (i as { path: string }).path)));
      return;
    case 'mcp':
      composer.setResources(msg.resources);
      return;
    case 'commands':
      composer.setCommands(msg.commands);
      return;
    case 'sessionStarted':
      // /new or /clear: the server switched the chat to a new session.
      resetView();
      s().sessionId = msg.sessionId;
      s().model = msg.model || s().model;
      store.add<NoticeEntry>({ kind: 'notice', level: 'info', text: msg.text });
      return;
    case 'notice':
      store.add<NoticeEntry>({ kind: 'notice', level: 'info', text: msg.text });
      return;
    case 'changedFiles':
      s().changed = msg.files;
      return;
    case 'rewindPreview': {
      const r = s().rewind;
      if (r && r.turn === msg.plan.turn && !r.busy) r.plan = msg.plan;
      return;
    }
    case 'rewound':
      s().rewind = undefined;
      s().turn = undefined;
      s().changed = [];
      store.cutTurns(msg.plan.turns);
      store.add<NoticeEntry>({ kind: 'notice', level: 'info', text: rewindSummary(msg.plan) });
      return;
    case 'rewindFailed': {
      const r = s().rewind;
      if (r && r.turn === msg.turn) {
        r.busy = false;
        r.error = msg.message;
      } else {
        store.add<NoticeEntry>({ kind: 'notice', level: 'error', text: msg.message });
      }
      return;
    }
    case 'error':
      store.add<NoticeEntry>({ kind: 'notice', level: 'error', text: msg.message });
      return;
  }
}

/**
 * A resumed session's prompts numbered as the server numbers its turns:
 * turn numbers are never reused, so after a rewind they are not the
 * prompts' positions. The last prompts are the turns listed, in order
 * (a compaction may have folded earlier ones into a summary).
 */
function numberTurns(entries: ReturnType<typeof historyEntries>, turns: number[] | undefined) {
  if (!turns) return entries;
  const prompts = entries.filter((e): e is UserEntry => e.kind === 'user');
  prompts.forEach((e, i) => {
    const t = turns[turns.length - prompts.length + i];
    e.turn = t;
  });
  return entries;
}

/** "Restore to before this turn": shows the card and asks for the preview. */
function previewRewind(e: UserEntry): void {
  if (e.turn === undefined || s().running || s().rewind?.busy) return;
  s().rewind = { turn: e.turn, prompt: e.text.split('\n')[0] };
  post({ type: 'rewindPreview', turn: e.turn });
  refresh();
  save();
}

function refresh(): void {
  const st = s();
  header.update(st);
  composer.setRunning(st.running);
  // Screen readers announce the streamed answer once, when the turn ends.
  transcript.el.setAttribute('aria-busy', String(st.running));
  changes.update(st.changed);
  rewind.update(st.rewind);
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

function respond(e: QuestionEntry, text: string): void {
  if (e.answer !== undefined || !text.trim()) return;
  e.answer = text.trim();
  post({ type: 'answer', id: e.questionId, answer: e.answer });
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
  resetView();
  refresh();
  save();
  composer.focus();
}

/** Empties the view for a new session. */
function resetView(): void {
  s().turn = undefined;
  s().session = undefined;
  s().context = undefined;
  s().changed = [];
  s().view = 'chat';
  store.reset();
}

/** Runs a command of the panel's own (PANEL_COMMANDS); the server runs the others. */
function runCommand(name: string): void {
  switch (name) {
    case '/sessions':
      showSessions();
      return;
    case '/stop':
      post({ type: 'stop' });
      return;
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
