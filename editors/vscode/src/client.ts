// The language client for `reasonix lsp`: how the server is started, what
// the extension declares to it, and the typed calls of the custom
// protocol (src/protocol.ts). What to do with the server's requests is
// the caller's business (the Hooks); this file only wires them.
import * as readline from 'node:readline';
import { type Readable } from 'node:stream';
import * as vscode from 'vscode';
import {
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditRequest,
  type ApplyWorkspaceEditResult,
  type CancellationToken,
  type ClientCapabilities,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  type FeatureState,
  LanguageClient,
  type LanguageClientOptions,
  type MessageActionItem,
  MessageType,
  ResponseError,
  type ServerOptions,
  ShowMessageNotification,
  type ShowMessageParams,
  ShowMessageRequest,
  type ShowMessageRequestParams,
  type ShowDocumentResult,
  type StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';
import { type ServerBinary, serverPath, serverSettings } from './config';
import { plainText } from './plaintext';
import {
  APPROVAL_ACTIONS,
  type ApproveParams,
  type ApproveResult,
  CLIENT_FEATURES,
  type Command,
  Methods,
  type NotificationMethod,
  type QuestionParams,
  type QuestionResult,
  type ReasonixEvent,
  type RequestMethod,
  type SaveDocumentsParams,
  type SaveDocumentsResult,
  type ServerFeatures,
  missingMethods,
} from './protocol';
import { isTrustQuestion } from './trust';

/** What the extension does with the server's requests and notifications. */
export interface Hooks {
  onEvent(event: ReasonixEvent): void;
  approve(params: ApproveParams, token: CancellationToken): Promise<ApproveResult>;
  /** The agent's question to the user (the ask tool). */
  question(params: QuestionParams, token: CancellationToken): Promise<QuestionResult>;
  saveDocuments(params: SaveDocumentsParams): Promise<SaveDocumentsResult>;
  /** The question whether to trust a workspace folder's own configuration. */
  trust(params: ShowMessageRequestParams): Promise<MessageActionItem | null>;
  /** Called with every workspace/applyEdit; `apply` is the default handling. */
  applyEdit(
    params: ApplyWorkspaceEditParams,
    apply: (p: ApplyWorkspaceEditParams) => Promise<ApplyWorkspaceEditResult>,
  ): Promise<ApplyWorkspaceEditResult>;
}

/** The server runs but lacks methods this extension needs. */
export class ServerTooOldError extends Error {
  constructor(
    readonly binary: string,
    readonly missing: string[],
    readonly version: string | undefined,
  ) {
    super(
      `Reasonix: the server ${binary}${version ? ` (version ${version})` : ''} is too old for this extension: ` +
        `it lacks ${missing.join(', ')}. Update reasonix, or set reasonix.path to a newer binary.`,
    );
    this.name = 'ServerTooOldError';
  }
}

/**
 * ReasonixFeature declares the client side of the Reasonix extensions in
 * capabilities.experimental.reasonix (docs/PROTOCOL.md).
 */
class ReasonixFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    experimental.reasonix = { ...CLIENT_FEATURES };
    capabilities.experimental = experimental;
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

/** A running connection to `reasonix lsp`. */
export class ReasonixClient implements vscode.Disposable {
  private constructor(
    readonly client: LanguageClient,
    readonly server: ServerBinary,
    readonly features: ServerFeatures,
  ) {}

  /** The path of the running binary. */
  get binary(): string {
    return this.server.path;
  }

  /** The version the server reports in its initialize result. */
  get version(): string | undefined {
    return this.client.initializeResult?.serverInfo?.version ?? this.features.version;
  }

  /**
   * Starts the server and checks it is new enough. Throws
   * BinaryNotFoundError or ServerTooOldError with a message for the user,
   * or whatever the start failed with. extensionPath is where the
   * extension is installed, to find the server it carries.
   */
  static async start(output: vscode.LogOutputChannel, hooks: Hooks, extensionPath: string): Promise<ReasonixClient> {
    const server = serverPath(extensionPath);
    const serverOptions: ServerOptions = {
      command: server.path,
      args: ['lsp'],
      transport: TransportKind.stdio,
      options: { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, env: serverEnv(output.logLevel) },
    };
    const clientOptions: LanguageClientOptions = {
      // The agent reads any file, so the server mirrors every file buffer.
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: serverSettings(),
      outputChannel: output,
      // The server's stderr is its log (slog's text lines): each line goes
      // to the channel at the level it was written at, not all as errors.
      stdioOptions: {
        stdout: (input, channel) => forEachLine(input, (line) => channel.info(line)),
        stderr: (input, channel) => forEachLine(input, (line) => logServerLine(channel, line)),
      },
      middleware: {
        workspace: {
          handleApplyEdit: (params, next) => hooks.applyEdit(params, (p) => applyWith(next, p)),
        },
        window: {
          showDocument: (params, token, next) => (params.external ? openExternal(params.uri) : next(params, token)),
        },
      },
    };
    const client = new LanguageClient('reasonix', 'Reasonix', serverOptions, clientOptions);
    client.registerFeature(new ReasonixFeature());
    registerHandlers(client, hooks);
    try {
      await client.start();
    } catch (err) {
      await client.dispose().catch(() => undefined);
      throw err;
    }
    const announced = client.initializeResult?.capabilities.experimental as { reasonix?: ServerFeatures } | undefined;
    const features = announced?.reasonix ?? {};
    const missing = missingMethods(announced?.reasonix);
    if (missing.length > 0) {
      await client.dispose().catch(() => undefined);
      throw new ServerTooOldError(server.path, missing, client.initializeResult?.serverInfo?.version ?? features.version);
    }
    return new ReasonixClient(client, server, features);
  }

  /** Sends a custom request of the table in src/protocol.ts. */
  request<P, R>(m: RequestMethod<P, R>, params: P, token?: CancellationToken): Promise<R> {
    // An explicit undefined token would be sent as a second parameter.
    return token ? this.client.sendRequest<R>(m.method, params, token) : this.client.sendRequest<R>(m.method, params);
  }

  /** Runs one of the server's commands with workspace/executeCommand. */
  async execute<A, R>(c: Command<A, R>, args: A, token?: CancellationToken): Promise<R> {
    const params = { command: c.command, arguments: [args] };
    const r: unknown = token
      ? await this.client.sendRequest(ExecuteCommandRequest.type, params, token)
      : await this.client.sendRequest(ExecuteCommandRequest.type, params);
    return r as R;
  }

  /** Pushes the settings as workspace/didChangeConfiguration. */
  pushSettings(): Promise<void> {
    return this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: serverSettings() });
  }

  /** Whether the server implements a method (from its initialize result). */
  supports(m: RequestMethod<unknown, unknown> | NotificationMethod<unknown>): boolean {
    return this.features.methods?.includes(m.method) ?? false;
  }

  async stop(): Promise<void> {
    if (this.client.isRunning()) await this.client.stop(5000);
  }

  dispose(): void {
    void this.client.dispose().catch(() => undefined);
  }
}

async function applyWith(
  next: ApplyWorkspaceEditRequest.HandlerSignature,
  params: ApplyWorkspaceEditParams,
): Promise<ApplyWorkspaceEditResult> {
  const r = await next(params, CancelledNever);
  if (r instanceof ResponseError) throw r;
  return r;
}

/**
 * Opens a page outside VS Code (window/showDocument with external: true)
 * at the address exactly as the server wrote it: an MCP server's sign-in
 * page. The client's own handling makes a vscode.Uri of it, and opening
 * that decodes the query's escapes (%2B, %26, %3D, …), which changes
 * what the authorization server reads (a client_id holding a + loses
 * it); VS Code opens an address given as a string as it is. Answers as
 * the client's handling does.
 */
async function openExternal(address: string): Promise<ShowDocumentResult> {
  try {
    // openExternal is declared for a Uri; the string is what keeps the address whole.
    return { success: await vscode.env.openExternal(address as unknown as vscode.Uri) };
  } catch {
    return { success: false };
  }
}

const CancelledNever: CancellationToken = {
  isCancellationRequested: false,
  onCancellationRequested: () => ({ dispose() {} }),
};

function registerHandlers(client: LanguageClient, hooks: Hooks): void {
  // The last approval event, to give a window/showMessageRequest permission
  // dialog (a server without reasonix/approve) the same card as approve.
  let lastApproval: Extract<ReasonixEvent, { kind: 'approval' }> | undefined;
  client.onNotification(Methods.event.method, (e: ReasonixEvent) => {
    if (e.kind === 'approval') lastApproval = e;
    hooks.onEvent(e);
  });
  client.onRequest(Methods.approve.method, (params: ApproveParams, token: CancellationToken) => hooks.approve(params, token));
  client.onRequest(Methods.question.method, (params: QuestionParams, token: CancellationToken) => hooks.question(params, token));
  client.onRequest(Methods.saveDocuments.method, (params: SaveDocumentsParams) => hooks.saveDocuments(params));
  // Replaces the client's default notification: the server words its
  // messages (a background turn's answer) for Markdown, which a
  // notification shows as written.
  client.onNotification(ShowMessageNotification.type, (params: ShowMessageParams) => {
    void showFor(params.type)(plainText(params.message));
  });
  // Replaces the client's default dialog: permission questions go where
  // reasonix/approve ones go, the trust question to its own dialog;
  // anything else is shown as VS Code would.
  client.onRequest(ShowMessageRequest.type, async (params: ShowMessageRequestParams, token: CancellationToken) => {
    const actions = params.actions ?? [];
    if (isTrustQuestion(actions)) return hooks.trust(params);
    if (isPermissionDialog(actions)) {
      const ev = lastApproval?.message === params.message ? lastApproval : undefined;
      const request: ApproveParams = {
        sessionId: ev?.sessionId ?? '',
        tool: ev?.tool ?? '',
        arguments: ev?.arguments,
        scope: ev?.scope ?? '',
        message: params.message,
        actions: actions.map((a) => a.title),
      };
      const { action } = await hooks.approve(request, token);
      return action ? (actions.find((a) => a.title === action) ?? null) : null;
    }
    return (await showFor(params.type)(plainText(params.message), ...actions)) ?? null;
  });
}

/** The window.show*Message of a message type. */
function showFor(type: MessageType): typeof vscode.window.showInformationMessage {
  if (type === MessageType.Error) return vscode.window.showErrorMessage;
  if (type === MessageType.Warning) return vscode.window.showWarningMessage;
  return vscode.window.showInformationMessage;
}

function forEachLine(input: Readable, fn: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', fn);
}

/**
 * A line of the server's log: `time=… level=WARN msg="…" key=value …`
 * (Go's slog text format). The time goes (the channel stamps its own),
 * quoted values lose their quotes, and the level picks the channel's; a line in no such format (a crash's
 * trace) is an error.
 */
export function logServerLine(channel: vscode.LogOutputChannel, line: string): void {
  const m = /^time=\S+ level=([A-Z]+)([+-]\d+)? (?:msg=("(?:[^"\\]|\\.)*"|\S*) ?)?(.*)$/.exec(line);
  if (!m) {
    if (line.trim()) channel.error(line);
    return;
  }
  const [, level, offset, msg, rest] = m;
  // The attributes keep their keys; quoted values are shown unquoted.
  const attrs = rest.replace(/(^|\s)([^\s=]+)=("(?:[^"\\]|\\.)*")/g, (_, sp: string, key: string, v: string) => `${sp}${key}=${unquote(v)}`);
  const text = [unquote(msg ?? ''), attrs].filter(Boolean).join(' ');
  switch (level) {
    case 'ERROR':
      return channel.error(text);
    case 'WARN':
      return channel.warn(text);
    case 'INFO':
      return channel.info(text);
    case 'DEBUG':
      return Number(offset ?? 0) < 0 ? channel.trace(text) : channel.debug(text);
    default:
      return channel.error(text);
  }
}

/** A slog value as written: quoted (Go's strconv.Quote, JSON-compatible here) or bare. */
function unquote(v: string): string {
  if (!v.startsWith('"')) return v;
  try {
    return JSON.parse(v) as string;
  } catch {
    return v;
  }
}

/**
 * The server's environment: the extension host's, with REASONIX_LOG=debug
 * when the output channel's level is Debug or Trace (the server logs
 * warnings and errors by default), unless the user set it themselves. It
 * takes effect when the server starts (Reasonix: Restart Server).
 */
function serverEnv(level: vscode.LogLevel): NodeJS.ProcessEnv {
  const env = { ...process.env };
  if (!env.REASONIX_LOG && (level === vscode.LogLevel.Trace || level === vscode.LogLevel.Debug)) env.REASONIX_LOG = 'debug';
  return env;
}

function isPermissionDialog(actions: MessageActionItem[]): boolean {
  return actions.length === APPROVAL_ACTIONS.length && actions.every((a, i) => a.title === APPROVAL_ACTIONS[i]);
}
