// The custom part of the Reasonix language server protocol, as
// docs/PROTOCOL.md defines it: every `reasonix/...` method and every
// command this extension uses, in one typed table, with the shapes of
// their params and results. It mirrors the server's tables (customMethods
// in lsp/custom.go, commands in lsp/command.go); nothing else in the
// extension spells a method or command name. lsp/protocol_tables_test.go
// reads `Methods` and `Commands` below with a regular expression: keep
// each entry on one line, its name a single-quoted literal.

// Plain LSP shapes, kept here so that the webview (which cannot import
// vscode-languageclient) can share these types.
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** An LSP Diagnostic, as much of it as the extension sends. */
export interface Diagnostic {
  range: Range;
  /** 1 error, 2 warning, 3 information, 4 hint. */
  severity?: 1 | 2 | 3 | 4;
  code?: number | string;
  source?: string;
  message: string;
}

/** Token accounting as the server reports it (provider.Usage). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cache_hit_tokens: number;
  cache_miss_tokens: number;
  reasoning_tokens?: number;
}

// ---- commands (workspace/executeCommand) ----

/** The argument of reasonix.ask and reasonix.start. */
export interface AskArgs {
  prompt: string;
  uri?: string;
  range?: Range;
  sessionId?: string;
  /** Makes the turn a fix for this diagnostic (the quick fix). */
  diagnostic?: Diagnostic;
  /** Plan mode: read-only tools until the user approves the agent's plan. */
  plan?: boolean;
}

export type StopReason = 'done' | 'max_steps' | 'token_budget' | 'cancelled' | 'error';

/** The result of reasonix.ask, and the `done` of a turn_done event. */
export interface TurnResult {
  sessionId: string;
  turn: number;
  text: string;
  stop: StopReason;
  steps: number;
  toolCalls: number;
  usage: Usage;
  cost: number;
  sessionUsage?: Usage;
  sessionCost?: number;
  cacheHitRatio?: number;
  priced: boolean;
  error?: string;
  /** The model the turn ran on ("provider/model"). */
  model?: string;
  /** The reasoning effort the turn's requests asked for, when any. */
  effort?: string;
  /** Set when the prompt was a built-in command, which ran no turn. */
  action?: CommandAction;
  /** The files the turn changed (without their texts). */
  changes?: FileChange[];
  /** Errors the turn's edits brought in that its repair round did not fix. */
  newErrors?: CheckDiagnostic[];
}

/** A change the turn made to a file (agent.FileChange). */
export interface FileChange {
  /** Workspace-relative when inside the workspace, else absolute. */
  path: string;
  status: 'created' | 'modified' | 'deleted';
  /** tool: through an edit the editor applied; shell: a shell command's. */
  source: 'tool' | 'shell';
  /** The text before the turn's first change; absent for a created file. */
  before?: string;
  /** The file existed, but its text before is too large, binary or not kept. */
  beforeOmitted?: boolean;
}

/** A language server's diagnostic, as the check of a turn's edits reports it (tools.Diagnostic). */
export interface CheckDiagnostic {
  file: string;
  line: number;
  column: number;
  severity: string;
  message: string;
  server?: string;
}

export type CommandActionKind = 'help' | 'cost' | 'mcp' | 'model' | 'effort' | 'compact' | 'new' | 'clear' | 'rewind';

/**
 * What a built-in command did. For `new` and `clear` (unless cancelled)
 * the result's sessionId is the session to show from now on; for `model`
 * with `model` set, the session runs on that model from now on.
 */
export interface CommandAction {
  kind: CommandActionKind;
  model?: string;
  /** For `effort`: the reasoning effort the session's requests ask for from now on. */
  effort?: string;
  cancelled?: boolean;
}

export interface StartResult {
  sessionId: string;
}

/**
 * The argument of reasonix.fix: the file (uri, or textDocument.uri), and
 * where in it (a range, a position, or neither for the whole file).
 */
export interface FixArgs {
  uri?: string;
  textDocument?: { uri: string };
  range?: Range;
  position?: Position;
  prompt?: string;
  sessionId?: string;
}

/** The result of reasonix.fix: the turn's session and the problem it fixes. */
export interface FixResult {
  sessionId: string;
  /** "calc.go:5:9: undefined: c" */
  problem: string;
}

export interface CancelArgs {
  sessionId: string;
}

export interface CancelResult {
  cancelled: boolean;
}

// ---- custom methods ----

export interface ListSessionsParams {
  folder?: string;
}

export interface SessionSummary {
  id: string;
  created: string;
  updated: string;
  root: string;
  model: string;
  title: string;
  turns: number;
  messages: number;
  cost: number;
  running: boolean;
}

export interface ListSessionsResult {
  sessions: SessionSummary[];
}

export interface NewSessionParams {
  folder?: string;
}

export interface NewSessionResult {
  sessionId: string;
  model: string;
}

export interface ResumeSessionParams {
  sessionId: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text exactly as the model produced it. */
  arguments: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string;
  reasoning?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  /** A compaction's summary of the work it folded (an assistant message). */
  digest?: boolean;
}

export interface ResumeSessionResult {
  sessionId: string;
  model: string;
  messages: ChatMessage[];
  usage: Usage;
  cost: number;
}

export interface McpServersParams {
  folder?: string;
}

export type McpServerState = 'connected' | 'failed' | 'restarting' | 'disabled' | 'closed';

/** One MCP server (plugin) of a workspace folder, as the server reports it (mcp.Status). */
export interface McpServer {
  name: string;
  /** "stdio", "http" or "sse". */
  transport: string;
  state: McpServerState;
  /** The last error, for a failed or restarting server. */
  error?: string;
  tools: number;
  prompts: number;
  resources: number;
}

export interface McpPromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/** A prompt an MCP server offers, run as the slash command `/<command> args`. */
export interface McpPrompt {
  server: string;
  name: string;
  /** "mcp__<server>__<prompt>". */
  command: string;
  description?: string;
  arguments?: McpPromptArgument[];
}

/** A resource an MCP server offers, attached to a prompt as `@<server>:<uri>`. */
export interface McpResource {
  server: string;
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

export interface McpServersResult {
  servers: McpServer[];
  prompts: McpPrompt[];
  /** Missing from servers older than resource mentions: none, then. */
  resources?: McpResource[];
  /** The same as a table for people, as the /mcp prompt answers it. */
  text: string;
}

export interface ListCommandsParams {
  /** A file or folder of the workspace; default: the first folder. */
  uri?: string;
}

export type SlashCommandSource = 'builtin' | 'project' | 'user' | 'claude' | 'skill' | 'mcp';

/** A slash command the server runs, as completion shows it. */
export interface SlashCommand {
  /** What the user types, slash included: "/review", "/git:commit". */
  name: string;
  description: string;
  argumentHint: string;
  source: SlashCommandSource;
}

export interface ListCommandsResult {
  commands: SlashCommand[];
}

export interface SaveDocumentsParams {
  uris: string[];
}

export interface SaveDocumentsResult {
  saved: string[];
  failed?: { uri: string; reason: string }[];
}

/** The four answers to a permission question, exactly as the server spells them. */
export const APPROVAL_ACTIONS = ['Allow once', 'Allow for session', 'Always allow', 'Deny'] as const;
/**
 * An answer to a reasonix/approve question: one of its `actions`, the
 * four above for a permission, others for a plan (Approve plan, Keep
 * planning) or /clear (Clear conversation, Keep it).
 */
export type ApprovalAction = string;

export interface ApproveParams {
  sessionId: string;
  tool: string;
  title?: string;
  arguments?: unknown;
  scope: string;
  message: string;
  actions: string[];
}

export interface ApproveResult {
  action: ApprovalAction | null;
}

/** The ask tool's question (reasonix/ask): the model's suggested answers, and whether the user may type one. */
export interface QuestionParams {
  sessionId: string;
  question: string;
  options: string[];
  allowText: boolean;
}

/** The answer: an option, what the user typed, or null when they dismissed the question. */
export interface QuestionResult {
  answer: string | null;
}

export interface MemoryParams {
  folder?: string;
  /** Also the notes forget archived. */
  archived?: boolean;
}

export type MemoryScope = 'project' | 'user';

/** reasonix/review: the pending proposals of one document, or of all. */
export interface ReviewParams {
  uri?: string;
}

/** One hunk of a proposal: oldText (whole lines) becomes newText. */
export interface ReviewHunk {
  id: number;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  oldText: string;
  newText: string;
  /** The text it replaces was edited since: it can only be rejected. */
  stale: boolean;
}

export interface ReviewFile {
  uri: string;
  kind: 'edit' | 'create' | 'delete';
  hunks: ReviewHunk[];
}

export interface ReviewResult {
  files: ReviewFile[];
}

/** reasonix.review.accept / reject / diff: a file, and a hunk of it (none: all). */
export interface ReviewArgs {
  uri: string;
  hunk?: number;
}

export interface ReviewChangeResult {
  hunks: number;
  pending: number;
}

export interface ReviewDiffResult {
  uri: string;
  shown: boolean;
}

/** reasonix.trust: review (ask again) or revoke the trust in a folder's own configuration. */
export interface TrustArgs {
  uri?: string;
  action?: 'review' | 'revoke';
}

/** One entry of a folder's configuration that needs trust. */
export interface TrustItem {
  what: string;
  at: string;
}

export interface TrustResult {
  workspace: string;
  items: TrustItem[];
  digest?: string;
  trusted: boolean;
  granted?: boolean;
}

/** reasonix.rewind: put a session's files and conversation back to before a turn; with preview, only say what that would do. */
export interface RewindArgs {
  sessionId: string;
  turn: number;
  preview?: boolean;
}

/**
 * What a rewind does to one file: `restore` (its text put back),
 * `remove` (the turns created it), `recreate` (they deleted it), `merge`
 * (changed since by someone else; the turns' changes are taken out and
 * theirs kept), `conflict` (changed since, overlapping: left as it is,
 * its earlier text in `saved`), `unknown` (its earlier text was not kept:
 * left as it is), `unchanged` (already as it was).
 */
export type RewindAction = 'restore' | 'remove' | 'recreate' | 'merge' | 'conflict' | 'unknown' | 'unchanged';

export interface RewindFile {
  /** Absolute. */
  path: string;
  action: RewindAction;
  /** The text the rewind puts back (restore, recreate, merge). */
  before?: string;
  /** The text the file has now. */
  now?: string;
  /** conflict: a file holding the text before the turns, outside the workspace. */
  saved?: string;
  /** Why, for conflict and unknown. */
  note?: string;
}

/** What rewinding to before `turn` does (preview), or did (`done`). */
export interface RewindPlan {
  sessionId: string;
  turn: number;
  /** The turns rewound: `turn` and every later one. */
  turns: number[];
  files: RewindFile[];
  /** Messages cut from the conversation. */
  messages: number;
  done: boolean;
}

/** reasonix.checkpoints: the turns of a session that can be rewound to. */
export interface CheckpointsArgs {
  sessionId: string;
}

/** One file a turn changed. */
export interface CheckpointFile {
  path: string;
  existed: boolean;
  known: boolean;
  exists: boolean;
  source: 'tool' | 'shell';
}

/** What one turn changed, recorded when it ended. */
export interface Checkpoint {
  turn: number;
  /** The first line of the turn's prompt. */
  prompt: string;
  time: string;
  files: CheckpointFile[];
}

export interface CheckpointsResult {
  sessionId: string;
  /** Oldest first; rewound turns are left out. */
  turns: Checkpoint[];
}

/** The actions of the trust question (window/showMessageRequest). */
export const TRUST_ACTIONS = ['Trust and enable', 'Keep disabled'] as const;

/** One note of the agent's memory (memory.Entry). */
export interface MemoryNote {
  scope: MemoryScope;
  name: string;
  description: string;
  path: string;
  archived?: boolean;
  updated: string;
  content: string;
}

export interface MemoryResult {
  /** Where each scope's notes live. */
  dirs: Partial<Record<MemoryScope, string>>;
  notes: MemoryNote[];
}

// ---- reasonix/event ----

export interface ToolEvent {
  callId: string;
  name: string;
  title: string;
  arguments?: unknown;
  readOnly?: boolean;
  summary?: string;
  result?: string;
  isError?: boolean;
  denied?: boolean;
  changed?: string[];
  durationMs?: number;
}

export interface UsageEvent {
  model: string;
  request: Usage;
  turn: Usage;
  session: Usage;
  requestCost: number;
  turnCost: number;
  sessionCost: number;
  priced: boolean;
}

/** A compaction: the session's older work folded into a summary (agent.CompactResult). */
export interface CompactionEvent {
  reason: 'threshold' | 'overflow' | 'manual';
  before: number;
  after: number;
  archived: number;
  kept: number;
  requests: number;
  pieces: number;
  usage: Usage;
  cost: number;
}

interface EventBase {
  sessionId: string;
  turn: number;
  step?: number;
  /** Set on a sub-task's events: the id of the task call that runs it. */
  parent?: string;
}

/** One event of the agent loop (agent.Event, plus the approval event). */
export type ReasonixEvent =
  | (EventBase & { kind: 'turn_start'; text: string })
  | (EventBase & { kind: 'text'; text: string })
  | (EventBase & { kind: 'reasoning'; text: string })
  | (EventBase & { kind: 'retry'; text: string })
  | (EventBase & { kind: 'notice'; text: string })
  /** text is the one-line notice: "compacted: 41k → 6.2k tokens, 38 messages archived". */
  | (EventBase & { kind: 'compaction'; text: string; compaction: CompactionEvent })
  /** A tool-call repair pass fired: text is "storm: …", "scavenge: …", "truncation: …" or "flatten: …". */
  | (EventBase & { kind: 'repair'; text: string; repair: 'storm' | 'scavenge' | 'truncation' | 'flatten' })
  /** One of the user's hooks ran: text names the hook and its event and says how it ended. */
  | (EventBase & { kind: 'hook'; text: string })
  | (EventBase & { kind: 'tool_start'; tool: ToolEvent })
  /** How far along a running call is, in the tool's words ("1/3", "Compiling (2/10)"). */
  | (EventBase & { kind: 'tool_progress'; tool: ToolEvent; text: string })
  | (EventBase & { kind: 'tool_result'; tool: ToolEvent })
  | (EventBase & { kind: 'usage'; usage: UsageEvent })
  | (EventBase & { kind: 'error'; error: string })
  | (EventBase & { kind: 'turn_done'; done: TurnResult })
  /** A change the turn made to a file, by a tool or a shell command. */
  | (EventBase & { kind: 'file_changed'; file: FileChange })
  /** The check of the turn's edits: text says what it found, check lists the new errors. */
  | (EventBase & { kind: 'check'; text: string; check?: CheckDiagnostic[] })
  /** The session was rewound (the panel's Restore, or /rewind N): rewind is what it did. */
  | (EventBase & { kind: 'rewind'; rewind: RewindPlan })
  | {
      kind: 'approval';
      sessionId: string;
      turn?: number;
      tool: string;
      arguments?: unknown;
      scope: string;
      message: string;
      actions: string[];
    };

export type ReasonixEventKind = ReasonixEvent['kind'];

// ---- the table ----

/** A request between client and server; P and R type its params and result. */
export interface RequestMethod<P, R> {
  readonly method: string;
  readonly direction: 'clientToServer' | 'serverToClient';
  /** True when the extension cannot work with a server that lacks it. */
  readonly required: boolean;
  /** Phantom fields carrying the types; never set. */
  readonly _params?: P;
  readonly _result?: R;
}

export interface NotificationMethod<P> {
  readonly method: string;
  readonly direction: 'clientToServer' | 'serverToClient';
  readonly required: boolean;
  readonly _params?: P;
}

export interface Command<A, R> {
  readonly command: string;
  readonly _args?: A;
  readonly _result?: R;
}

/**
 * Every custom method of docs/PROTOCOL.md. `required` methods must be in
 * the server's experimental.reasonix.methods, or the server is too old.
 * reasonix/approve is optional: without it the server asks with
 * window/showMessageRequest, which the extension routes to the same place.
 * reasonix/mcpServers is optional too: without it there is no list of MCP
 * servers, and the chat works as before; so is reasonix/listCommands,
 * without which the panel completes only its own commands.
 * servers, and the chat works as before. So are reasonix/ask (without it
 * the server asks the agent's questions with window/showMessageRequest)
 * and reasonix/memory (without it there is no list of the agent's notes).
 */
export const Methods = {
  listSessions: { method: 'reasonix/listSessions', direction: 'clientToServer', required: true } as RequestMethod<ListSessionsParams, ListSessionsResult>,
  newSession: { method: 'reasonix/newSession', direction: 'clientToServer', required: true } as RequestMethod<NewSessionParams, NewSessionResult>,
  resumeSession: { method: 'reasonix/resumeSession', direction: 'clientToServer', required: true } as RequestMethod<ResumeSessionParams, ResumeSessionResult>,
  mcpServers: { method: 'reasonix/mcpServers', direction: 'clientToServer', required: false } as RequestMethod<McpServersParams, McpServersResult>,
  listCommands: { method: 'reasonix/listCommands', direction: 'clientToServer', required: false } as RequestMethod<ListCommandsParams, ListCommandsResult>,
  saveDocuments: { method: 'reasonix/saveDocuments', direction: 'serverToClient', required: true } as RequestMethod<SaveDocumentsParams, SaveDocumentsResult>,
  approve: { method: 'reasonix/approve', direction: 'serverToClient', required: false } as RequestMethod<ApproveParams, ApproveResult>,
  question: { method: 'reasonix/ask', direction: 'serverToClient', required: false } as RequestMethod<QuestionParams, QuestionResult>,
  memory: { method: 'reasonix/memory', direction: 'clientToServer', required: false } as RequestMethod<MemoryParams, MemoryResult>,
  review: { method: 'reasonix/review', direction: 'clientToServer', required: false } as RequestMethod<ReviewParams, ReviewResult>,
  event: { method: 'reasonix/event', direction: 'serverToClient', required: true } as NotificationMethod<ReasonixEvent>,
} as const;

/** The server's commands (workspace/executeCommand). */
export const Commands = {
  ask: { command: 'reasonix.ask' } as Command<AskArgs, TurnResult>,
  start: { command: 'reasonix.start' } as Command<AskArgs, StartResult>,
  fix: { command: 'reasonix.fix' } as Command<FixArgs, FixResult>,
  cancel: { command: 'reasonix.cancel' } as Command<CancelArgs, CancelResult>,
  reviewAccept: { command: 'reasonix.review.accept' } as Command<ReviewArgs, ReviewChangeResult>,
  reviewReject: { command: 'reasonix.review.reject' } as Command<ReviewArgs, ReviewChangeResult>,
  reviewDiff: { command: 'reasonix.review.diff' } as Command<ReviewArgs, ReviewDiffResult>,
  trust: { command: 'reasonix.trust' } as Command<TrustArgs, TrustResult>,
  rewind: { command: 'reasonix.rewind' } as Command<RewindArgs, RewindPlan>,
  checkpoints: { command: 'reasonix.checkpoints' } as Command<CheckpointsArgs, CheckpointsResult>,
} as const;

/**
 * What the client declares in capabilities.experimental.reasonix.
 * reviewPanel: the extension reviews the agent's edits in its own panel,
 * so the server applies them unless the settings say review = "propose".
 */
export const CLIENT_FEATURES = { saveDocuments: true, events: true, approvals: true, questions: true, reviewPanel: true } as const;

/** What the server announces in capabilities.experimental.reasonix. */
export interface ServerFeatures {
  version?: string;
  events?: boolean;
  methods?: string[];
}

/** The required methods a server's announcement lacks (empty when it is new enough). */
export function missingMethods(features: ServerFeatures | undefined): string[] {
  const have = new Set(features?.methods ?? []);
  return Object.values(Methods)
    .filter((m) => m.required && !have.has(m.method))
    .map((m) => m.method);
}
