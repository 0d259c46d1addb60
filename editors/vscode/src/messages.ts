// The messages between the chat panel (the webview, src/webview/) and the
// extension host (src/panel.ts). Both sides import this file; it has no
// runtime code of its own, so the webview bundle stays free of `vscode`.
import type {
  ApprovalAction,
  ApproveParams,
  ChatMessage,
  McpPrompt,
  McpResource,
  McpServer,
  QuestionParams,
  ReasonixEvent,
  ReasonixEventKind,
  RewindAction,
  RewindPlan,
  SessionSummary,
  SlashCommand,
  StopReason,
  Todo,
  ToolCall,
  ToolEvent,
  TurnResult,
  Usage,
  UsageEvent,
} from './protocol';

export type {
  ApprovalAction,
  ApproveParams,
  ChatMessage,
  McpPrompt,
  McpResource,
  McpServer,
  QuestionParams,
  ReasonixEvent,
  ReasonixEventKind,
  RewindAction,
  RewindPlan,
  SessionSummary,
  SlashCommand,
  StopReason,
  Todo,
  ToolCall,
  ToolEvent,
  TurnResult,
  Usage,
  UsageEvent,
};

/** What the prompt attaches from the active editor. */
export type Attach = 'selection' | 'file' | null;

/** How a file changed in the current turn. */
export type FileStatus = 'modified' | 'created' | 'deleted';

export interface ChangedFile {
  /** Workspace-relative path when the file is in the workspace, else absolute. */
  path: string;
  status: FileStatus;
}

export interface FileItem {
  /** Workspace-relative path, with forward slashes. */
  path: string;
}

/**
 * Panel → extension. `ready` is sent once the panel's script has loaded;
 * the extension answers with `state` (and `changedFiles` when a turn
 * changed files), so a panel that was hidden and recreated catches up.
 */
export type PanelToExtension =
  | { type: 'ready' }
  | { type: 'ask'; prompt: string; attach?: Attach }
  | { type: 'stop' }
  | { type: 'newSession' }
  | { type: 'listSessions' }
  | { type: 'resumeSession'; sessionId: string }
  | { type: 'approve'; id: string; action: ApprovalAction | null }
  /** The answer to the agent's question `id`: an option, typed text, or null (dismissed). */
  | { type: 'answer'; id: string; answer: string | null }
  | { type: 'openDiff'; path: string }
  | { type: 'acceptFile'; path: string }
  | { type: 'rejectFile'; path: string }
  | { type: 'requestFiles'; prefix: string }
  /** The MCP servers' resources, for `@` completion. */
  | { type: 'requestMcp' }
  /** The server's slash commands, for `/` completion. */
  | { type: 'requestCommands' }
  /** "Restore to before this turn": what rewinding to before `turn` would do (answered with `rewindPreview`). */
  | { type: 'rewindPreview'; turn: number }
  /** The preview confirmed: rewind to before `turn` (answered with `rewound`, or `rewindFailed`). */
  | { type: 'rewind'; turn: number };

/**
 * Extension → panel. Every reasonix/event is forwarded as `event`, the
 * `approval` event too (it only tells that a question is open); the
 * question to answer, with the id the panel answers `approve` with, comes
 * as `approval`.
 */
export type ExtensionToPanel =
  | { type: 'event'; event: ReasonixEvent }
  | { type: 'sessions'; list: SessionSummary[] }
  /**
   * A resumed session. `turns`: the numbers of its turns that can be
   * rewound to, oldest first (reasonix.checkpoints), when the server
   * lists them; the last prompts of `messages` are those turns.
   */
  | { type: 'resumed'; sessionId: string; messages: ChatMessage[]; model: string; usage: Usage; cost: number; turns?: number[] }
  | { type: 'approval'; id: string; request: ApproveParams }
  /** The question `id` was answered, or withdrawn (turn stopped, server gone): drop its card. */
  | { type: 'approvalDone'; id: string; action: ApprovalAction | null }
  /** The agent asks the user (reasonix/ask); the panel answers with `answer` and the id. */
  | { type: 'question'; id: string; request: QuestionParams }
  /** The question `id` was answered, or withdrawn: settle its card. */
  | { type: 'questionDone'; id: string; answer: string | null }
  /** The answer to the latest `requestFiles`. */
  | { type: 'files'; items: FileItem[] }
  /**
   * The answer to `requestMcp`. When the servers could not be asked (no
   * server running, a server without reasonix/mcpServers), `error` says
   * why and the lists are empty.
   */
  | { type: 'mcp'; servers: McpServer[]; prompts: McpPrompt[]; resources: McpResource[]; text: string; error?: string }
  /**
   * The answer to `requestCommands`: the server's slash commands (built-in,
   * custom, MCP prompts). When they could not be listed, `error` says why
   * and the list is empty.
   */
  | { type: 'commands'; commands: SlashCommand[]; error?: string }
  /** /new or /clear started a session: the view empties for it, and `text` says what happened. */
  | { type: 'sessionStarted'; sessionId: string; model: string; text: string }
  /** Something to tell in the transcript (a built-in command's outcome). */
  | { type: 'notice'; text: string }
  | { type: 'state'; model: string; running: boolean; sessionId: string | null }
  /** The files the current turn changed and the user has not accepted or rejected yet. */
  | { type: 'changedFiles'; files: ChangedFile[] }
  /** What rewinding to before plan.turn would do; paths relative to the workspace. */
  | { type: 'rewindPreview'; plan: RewindPlan }
  /** The session was rewound: the panel drops the turns plan.turns; paths relative to the workspace. */
  | { type: 'rewound'; plan: RewindPlan }
  /** The preview or the rewind to before `turn` failed, and why. */
  | { type: 'rewindFailed'; turn: number; message: string }
  /** A request of the panel failed (no server, a turn already running, ...). */
  | { type: 'error'; message: string };

export type PanelMessageType = PanelToExtension['type'];
export type ExtensionMessageType = ExtensionToPanel['type'];
