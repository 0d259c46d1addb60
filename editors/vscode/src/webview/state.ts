// The panel's state: the transcript as data, and everything around it.
// It is plain JSON so that vscode.setState can keep it while the view is
// hidden; the DOM is always rebuilt from it.
import type { ApproveParams, Attach, ChangedFile, QuestionParams, SessionSummary, Todo, Usage } from '../messages';
import type { RewindState } from './rewind';

export type ToolStatus = 'running' | 'ok' | 'error' | 'denied' | 'stopped';

interface EntryBase {
  id: number;
}

export interface UserEntry extends EntryBase {
  kind: 'user';
  text: string;
  turn?: number;
  /** Sent by this panel, and no turn_start has confirmed it yet. */
  pending?: boolean;
}

export interface StreamEntry extends EntryBase {
  kind: 'text' | 'reasoning';
  turn: number;
  step: number;
  text: string;
}

export interface ToolEntry extends EntryBase {
  kind: 'tool';
  turn: number;
  callId: string;
  /** The task call this call belongs to, when a sub-task made it. */
  parent?: string;
  name: string;
  title: string;
  status: ToolStatus;
  /** How far along a running call is, in the tool's words; gone once it finishes. */
  progress?: string;
  summary?: string;
  result?: string;
  durationMs?: number;
}

export interface ApprovalEntry extends EntryBase {
  kind: 'approval';
  approvalId: string;
  request: ApproveParams;
  /** The answer, given here or in a dialog; null when there was none (Deny). */
  choice?: string | null;
}

/** The agent's question to the user (the ask tool). */
export interface QuestionEntry extends EntryBase {
  kind: 'question';
  questionId: string;
  request: QuestionParams;
  /** The answer, given here or in a picker; null when there was none. */
  answer?: string | null;
}

export interface NoticeEntry extends EntryBase {
  kind: 'notice';
  level: 'info' | 'error' | 'retry' | 'stop';
  text: string;
  /** Preformatted text, such as a table: the editor's font, lines kept whole. */
  mono?: boolean;
}

/** The line that closes a turn: model requests, tool calls, cost. */
export interface DoneEntry extends EntryBase {
  kind: 'done';
  text: string;
}

/** The todo list the model keeps (todo_write): one entry a turn, updated in place. */
export interface TodoEntry extends EntryBase {
  kind: 'todo';
  turn: number;
  todos: Todo[];
}

export type Entry = UserEntry | StreamEntry | ToolEntry | ApprovalEntry | QuestionEntry | NoticeEntry | DoneEntry | TodoEntry;

/** An entry before the store numbers it. */
export type NewEntry<E extends Entry = Entry> = E extends Entry ? Omit<E, 'id'> : never;

/** Tokens and cost of a turn or of the whole session. */
export interface Accounting {
  usage: Usage;
  cost: number;
  priced: boolean;
}

/** How full the session's context window is. */
export interface ContextFill {
  window: number;
  tokens: number;
}

export interface PanelState {
  version: 1;
  nextId: number;
  entries: Entry[];
  /** The model as the extension names it (provider/model). */
  model: string;
  /** The model the last request went to, from usage events. */
  usageModel: string;
  sessionId: string | null;
  running: boolean;
  turn?: Accounting;
  session?: Accounting;
  /** How full the window is, from the last usage event or turn result that said. */
  context?: ContextFill;
  changed: ChangedFile[];
  /** The saved sessions; null until the extension has sent them. */
  sessions: SessionSummary[] | null;
  view: 'chat' | 'sessions';
  draft: string;
  attach: Attach;
  /** The rewind whose preview is shown ("Restore to before this turn"). */
  rewind?: RewindState;
}

export function initialState(): PanelState {
  return {
    version: 1,
    nextId: 1,
    entries: [],
    model: '',
    usageModel: '',
    sessionId: null,
    running: false,
    changed: [],
    sessions: null,
    view: 'chat',
    draft: '',
    attach: null,
  };
}

/** The state vscode.getState returned, if it is one this panel wrote. */
export function restoreState(saved: unknown): PanelState {
  const s = saved as Partial<PanelState> | undefined;
  if (!s || s.version !== 1 || !Array.isArray(s.entries)) return initialState();
  return { ...initialState(), ...s };
}

// What is kept across hiding the view: enough to read back, not every byte.
const KEEP_ENTRIES = 400;
const KEEP_RESULT = 4000;

export function stateToSave(s: PanelState): PanelState {
  const entries = s.entries.slice(-KEEP_ENTRIES).map((e) =>
    e.kind === 'tool' && e.result && e.result.length > KEEP_RESULT ? { ...e, result: e.result.slice(0, KEEP_RESULT) } : e,
  );
  return { ...s, entries };
}

export type Change =
  | { op: 'add'; entry: Entry }
  | { op: 'update'; entry: Entry }
  | { op: 'remove'; entry: Entry }
  | { op: 'reset' };

/** Holds the state and tells the transcript view what changed in it. */
export class Store {
  private listener: (c: Change) => void = () => {};

  constructor(public state: PanelState) {}

  onChange(fn: (c: Change) => void): void {
    this.listener = fn;
  }

  add<E extends Entry>(entry: NewEntry<E>): E {
    const e = { ...entry, id: this.state.nextId++ } as unknown as E;
    this.state.entries.push(e);
    this.listener({ op: 'add', entry: e });
    return e;
  }

  update(entry: Entry): void {
    this.listener({ op: 'update', entry });
  }

  remove(entry: Entry): void {
    this.state.entries = this.state.entries.filter((e) => e !== entry);
    this.listener({ op: 'remove', entry });
  }

  /**
   * Drops what the panel shows of turns a rewind took out: their prompts,
   * answers and tool rows, and what came between one of their prompts and
   * the next prompt of a turn that stays (notices, cards, the cost line).
   * Whatever came after, such as the /rewind that did it, stays.
   */
  cutTurns(turns: number[]): void {
    const cut = new Set<Entry>();
    let inCut = false;
    for (const e of this.state.entries) {
      if (e.kind === 'user') inCut = e.turn !== undefined && turns.includes(e.turn);
      const turn = 'turn' in e && e.kind !== 'user' ? e.turn : undefined;
      if (turn !== undefined ? turns.includes(turn) : inCut) cut.add(e);
    }
    if (cut.size === 0) return;
    this.state.entries = this.state.entries.filter((e) => !cut.has(e));
    for (const e of cut) this.listener({ op: 'remove', entry: e });
  }

  reset(entries: Entry[] = []): void {
    this.state.entries = entries;
    this.listener({ op: 'reset' });
  }

  /** The latest entry that matches, searching back from the end. */
  findLast<E extends Entry>(pred: (e: Entry) => e is E): E | undefined {
    for (let i = this.state.entries.length - 1; i >= 0; i--) {
      const e = this.state.entries[i];
      if (pred(e)) return e;
    }
    return undefined;
  }
}
