// The Controller ties the pieces together: it owns the language client's
// lifecycle (start, restart, settings pushed on change), the chat's
// current session, and routes the panel's messages and the server's
// events to the panel, the edit review and the status bar.
import * as vscode from 'vscode';
import { Approvals } from './approvals';
import { ReasonixClient, ServerTooOldError } from './client';
import { BinaryNotFoundError, RESTART_SETTINGS, SECTION, openSettings } from './config';
import { findFiles, saveDocuments } from './documents';
import { type Attach, type ExtensionToPanel, type PanelToExtension } from './messages';
import { ChatPanel, VIEW_ID } from './panel';
import {
  type AskArgs,
  Commands,
  type McpServersResult,
  type MemoryResult,
  Methods,
  type ReasonixEvent,
  type RewindPlan,
  type TrustArgs,
  type TrustResult,
  type TurnResult,
} from './protocol';
import { Questions } from './questions';
import { EditReview } from './review';
import { StatusBar } from './status';
import { askTrust } from './trust';
import { versionWarning } from './version';

export const OPEN_SETTINGS = 'Open Settings';
export const SHOW_OUTPUT = 'Show Output';

export class Controller implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  readonly panel: ChatPanel;
  readonly approvals: Approvals;
  readonly questions: Questions;
  readonly review: EditReview;
  readonly status: StatusBar;
  private readonly disposables: vscode.Disposable[] = [];
  private current: ReasonixClient | undefined;
  private starting: Promise<ReasonixClient | undefined> | undefined;
  /** The chat's session; null until the first turn or a new/resumed session. */
  private sessionId: string | null = null;
  private model = '';
  /** Sessions with a turn running, from turn_start/turn_done events. */
  private readonly running = new Set<string>();
  /**
   * The panel's reasonix.ask in flight, and whether its turn has ended:
   * turn_done is an event, and the command answers just after it.
   */
  private asking: { answer: Promise<unknown>; ended: boolean } | undefined;
  /** Where the extension is installed: its server/ holds the bundled server. */
  private readonly extensionPath: string;
  /** The extension's version (package.json), which the server's should match. */
  private readonly extensionVersion: string | undefined;

  constructor(context: vscode.ExtensionContext, openChatCommand: string) {
    this.extensionPath = context.extensionPath;
    this.extensionVersion = (context.extension.packageJSON as { version?: string }).version;
    this.output = vscode.window.createOutputChannel('Reasonix', { log: true });
    this.panel = new ChatPanel(context.extensionUri);
    this.approvals = new Approvals(this.panel);
    this.questions = new Questions(this.panel);
    this.review = new EditReview();
    this.status = new StatusBar(openChatCommand);
    this.model = vscode.workspace.getConfiguration(SECTION).get<string>('model') ?? '';
    this.disposables.push(
      this.output,
      this.panel,
      this.approvals,
      this.questions,
      this.review,
      this.status,
      vscode.window.registerWebviewViewProvider(VIEW_ID, this.panel, { webviewOptions: { retainContextWhenHidden: true } }),
      this.panel.onMessage((m) => void this.handle(m)),
      this.review.onDidChangeFiles(() => void this.postChangedFiles()),
      vscode.workspace.onDidChangeConfiguration((e) => void this.configurationChanged(e)),
    );
  }

  /** The running client, if the server is up. */
  get client(): ReasonixClient | undefined {
    return this.current;
  }

  /**
   * Starts the server. A failure is shown to the user with what to do
   * (and logged); it resolves to undefined then, never rejects, so the
   * commands stay usable to fix the settings and restart.
   */
  start(): Promise<ReasonixClient | undefined> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<ReasonixClient | undefined> {
    try {
      this.current = await ReasonixClient.start(this.output, {
        onEvent: (e) => this.onEvent(e),
        approve: (p, token) => this.approvals.ask(p, token),
        question: (p, token) => this.questions.ask(p, token),
        saveDocuments: (p) => saveDocuments(p),
        trust: (p) => askTrust(p),
        told: (m) => this.told(m),
        applyEdit: (p, apply) => this.review.apply(p, apply),
      }, this.extensionPath);
      const c = this.current;
      this.output.info(`started ${c.binary} (server ${c.version ?? 'unknown version'})`);
      this.status.setProblem(undefined);
      const warning = versionWarning(c.server, c.version, this.extensionVersion);
      if (warning) {
        this.output.warn(warning);
        void this.showWarning(warning);
      }
      return c;
    } catch (err) {
      const known = err instanceof BinaryNotFoundError || err instanceof ServerTooOldError;
      const message = known
        ? err.message
        : `Reasonix: the server did not start: ${err instanceof Error ? err.message : String(err)}. ` +
          'Check reasonix.path, or see the Reasonix output.';
      this.output.error(message);
      this.status.setProblem(message);
      // A binary missing or too old is fixed in reasonix.path: the
      // settings open at it.
      void this.showError(message, known ? 'reasonix.path' : SECTION);
      return undefined;
    }
  }

  private async showError(message: string, settings: string): Promise<void> {
    try {
      const choice = await vscode.window.showErrorMessage(message, OPEN_SETTINGS, SHOW_OUTPUT);
      if (choice === OPEN_SETTINGS) await openSettings(settings);
      else if (choice === SHOW_OUTPUT) this.output.show();
    } catch (err) {
      this.output.warn(`showing an error: ${String(err)}`);
    }
  }

  private async showWarning(message: string): Promise<void> {
    try {
      const choice = await vscode.window.showWarningMessage(message, OPEN_SETTINGS);
      if (choice === OPEN_SETTINGS) await openSettings('reasonix.path');
    } catch (err) {
      this.output.warn(`showing a warning: ${String(err)}`);
    }
  }

  async stopServer(): Promise<void> {
    const c = this.current;
    this.current = undefined;
    this.running.clear();
    this.asking = undefined;
    this.approvals.withdrawAll(); // open questions are Deny now
    this.questions.withdrawAll();
    if (c) {
      await c.stop().catch((err: unknown) => this.output.warn(`stopping the server: ${String(err)}`));
      c.dispose();
    }
  }

  async restart(): Promise<ReasonixClient | undefined> {
    await this.starting;
    await this.stopServer();
    const c = await this.start();
    this.postState();
    return c;
  }

  private async configurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    if (!e.affectsConfiguration(SECTION)) return;
    if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) {
      await this.restart();
      return;
    }
    if (e.affectsConfiguration(`${SECTION}.model`)) {
      this.model = vscode.workspace.getConfiguration(SECTION).get<string>('model') ?? this.model;
      this.postState();
    }
    await this.current?.pushSettings();
  }

  private onEvent(e: ReasonixEvent): void {
    switch (e.kind) {
      case 'turn_start':
        this.running.add(e.sessionId);
        // The review covers one turn: the previous turn's files leave it.
        this.review.reset();
        break;
      case 'turn_done':
        this.running.delete(e.sessionId);
        if (this.asking && e.sessionId === this.sessionId) this.asking.ended = true;
        break;
      case 'file_changed':
        // Edits arrive as workspace/applyEdit, which the review sees;
        // a shell command's changes only as this event.
        if (e.file.source === 'shell') this.review.shellChanged(e.file);
        break;
    }
    this.status.onEvent(e);
    this.panel.post({ type: 'event', event: e });
    if (e.kind === 'turn_start' || e.kind === 'turn_done') this.postState();
  }

  /** Handles one message of the panel. */
  async handle(m: PanelToExtension): Promise<void> {
    try {
      switch (m.type) {
        case 'ready':
          this.postState();
          await this.postChangedFiles();
          return;
        case 'ask':
          await this.ask(m.prompt, m.attach ?? null);
          return;
        case 'stop':
          await this.stop();
          return;
        case 'newSession':
          await this.newSession();
          return;
        case 'listSessions':
          await this.listSessions();
          return;
        case 'resumeSession':
          await this.resume(m.sessionId);
          return;
        case 'approve':
          this.approvals.answer(m.id, m.action);
          return;
        case 'answer':
          this.questions.answer(m.id, m.answer);
          return;
        case 'openDiff':
          await this.review.openDiff(m.path);
          return;
        case 'acceptFile':
          this.review.accept(m.path);
          return;
        case 'rejectFile':
          if (!(await this.review.reject(m.path))) this.post({ type: 'error', message: `Could not revert ${m.path}.` });
          return;
        case 'requestFiles':
          this.post({ type: 'files', items: await findFiles(m.prefix) });
          return;
        case 'requestMcp':
          await this.postMcp();
          return;
        case 'requestCommands':
          await this.postCommands();
          return;
        case 'rewindPreview':
          await this.rewind(m.turn, true);
          return;
        case 'rewind':
          await this.rewind(m.turn, false);
          return;
        default: {
          const never: never = m;
          this.output.warn(`unknown panel message ${JSON.stringify(never)}`);
        }
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.output.error(`${m.type}: ${message}`);
      this.post({ type: 'error', message });
    }
  }

  /**
   * Runs one turn of the chat's session with the prompt, attaching the
   * active editor's selection or file. Resolves to the turn's result.
   */
  async ask(prompt: string, attach: Attach): Promise<TurnResult | undefined> {
    const client = await this.requireClient();
    // A prompt sent between the last turn's turn_done and its answer waits
    // for the answer rather than failing: the panel is idle already.
    if (this.asking?.ended) await this.asking.answer.catch(() => undefined);
    if (this.asking || (this.sessionId && this.running.has(this.sessionId))) {
      throw new Error('A turn is running in this session: stop it first, or wait for it.');
    }
    // asking is set before askOnce runs: it posts the running state.
    const asking: { answer: Promise<unknown>; ended: boolean } = { answer: Promise.resolve(), ended: false };
    this.asking = asking;
    const answer = this.askOnce(client, prompt, attach);
    asking.answer = answer;
    try {
      return await answer;
    } finally {
      if (this.asking === asking) this.asking = undefined;
      this.postState();
    }
  }

  /** Sends one reasonix.ask of the chat's session, starting one if needed. */
  private async askOnce(client: ReasonixClient, prompt: string, attach: Attach): Promise<TurnResult> {
    if (!this.sessionId) await this.newSession();
    const args: AskArgs = { prompt, sessionId: this.sessionId ?? undefined };
    const editor = vscode.window.activeTextEditor;
    if (attach && editor && editor.document.uri.scheme === 'file') {
      args.uri = editor.document.uri.toString();
      const sel = editor.selection;
      if (attach === 'selection' && !sel.isEmpty) {
        args.range = {
          start: { line: sel.start.line, character: sel.start.character },
          end: { line: sel.end.line, character: sel.end.character },
        };
      }
    }
    this.postState();
    const result = await client.execute(Commands.ask, args);
    this.sessionId = result.sessionId;
    this.performed(result);
    return result;
  }

  /**
   * Follows up a built-in command the server ran: /new and /clear switched
   * the chat to another session (the answer's), /model REF to another
   * model, /effort LEVEL to another reasoning effort; the panel is told
   * what happened.
   */
  private performed(result: TurnResult): void {
    const action = result.action;
    if (!action) return;
    if ((action.kind === 'new' || action.kind === 'clear') && !action.cancelled) {
      this.status.setSession(undefined, undefined);
      this.post({ type: 'sessionStarted', sessionId: result.sessionId, model: this.model, text: result.text });
      return;
    }
    if (action.kind === 'model' && action.model) this.model = action.model;
    const switched = (action.kind === 'model' && action.model) || (action.kind === 'effort' && action.effort);
    if (action.kind === 'clear' || switched) this.post({ type: 'notice', text: result.text });
  }

  /** Stops the chat session's running turn. */
  async stop(): Promise<boolean> {
    if (!this.current || !this.sessionId) return false;
    const r = await this.current.execute(Commands.cancel, { sessionId: this.sessionId });
    return r.cancelled;
  }

  async newSession(): Promise<string> {
    const client = await this.requireClient();
    const r = await client.request(Methods.newSession, { folder: folder() });
    this.sessionId = r.sessionId;
    this.model = r.model || this.model;
    this.status.setSession(undefined, undefined);
    this.postState();
    return r.sessionId;
  }

  async listSessions(): Promise<void> {
    const client = await this.requireClient();
    const r = await client.request(Methods.listSessions, { folder: folder() });
    this.post({ type: 'sessions', list: r.sessions });
  }

  async resume(sessionId: string): Promise<void> {
    const client = await this.requireClient();
    const r = await client.request(Methods.resumeSession, { sessionId });
    this.sessionId = r.sessionId;
    this.model = r.model || this.model;
    this.status.setSession(r.usage, r.cost);
    const turns = await this.turnsOf(client, r.sessionId);
    this.post({ type: 'resumed', sessionId: r.sessionId, messages: r.messages, model: r.model, usage: r.usage, cost: r.cost, turns });
    this.postState();
  }

  /**
   * The numbers of a session's turns that can be rewound to, oldest
   * first (reasonix.checkpoints); undefined from a server that does not
   * list them, or when listing failed (the panel then offers no rewind
   * on the resumed turns).
   */
  private async turnsOf(client: ReasonixClient, sessionId: string): Promise<number[] | undefined> {
    if (!this.knows(client, Commands.checkpoints.command)) return undefined;
    try {
      const r = await client.execute(Commands.checkpoints, { sessionId });
      return r.turns.map((c) => c.turn);
    } catch (err) {
      this.output.warn(`${Commands.checkpoints.command}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  /** Whether the server lists a command in its executeCommandProvider. */
  private knows(client: ReasonixClient, command: string): boolean {
    return (client.client.initializeResult?.capabilities.executeCommandProvider?.commands ?? []).includes(command);
  }

  /**
   * "Restore to before this turn": rewinds the chat's session to before
   * turn (reasonix.rewind), or with preview only says what that would do.
   * The panel gets the plan, its paths relative to the workspace, as
   * `rewindPreview` or `rewound`; or `rewindFailed` with why. Resolves to
   * the server's plan, undefined on failure.
   */
  /**
   * The starts of the server's rewind summaries the panel is telling
   * itself: a rewind of its own under way.
   */
  private readonly rewindSummaries: string[] = [];

  /**
   * Whether a server message is the summary of a rewind the panel asked
   * for, which the panel shows: a summary that adds what the panel does
   * not say (files the editor holds unsaved) is still shown.
   */
  private told(message: string): boolean {
    const i = this.rewindSummaries.findIndex((s) => message === s || [' ', ':', '.'].some((c) => message.startsWith(s + c)));
    if (i < 0 || message.includes('did not save')) return false;
    this.rewindSummaries.splice(i, 1);
    return true;
  }

  async rewind(turn: number, preview: boolean): Promise<RewindPlan | undefined> {
    try {
      const client = await this.requireClient();
      if (!this.knows(client, Commands.rewind.command)) {
        throw new Error(
          `The Reasonix server ${client.binary} cannot rewind (it lacks the command ${Commands.rewind.command}). ` +
            'Update reasonix, or set reasonix.path to a newer binary.',
        );
      }
      if (!this.sessionId) throw new Error('There is no session to rewind.');
      // The server tells the outcome as a notification too, before it
      // answers; the panel tells it itself.
      const summary = preview ? '' : `Reasonix: Rewound to before turn ${turn}`;
      if (summary) this.rewindSummaries.push(summary);
      const plan = await client.execute(Commands.rewind, { sessionId: this.sessionId, turn, preview }).finally(() => {
        // Told by now, or never to come (a failure, an older server).
        const i = this.rewindSummaries.indexOf(summary);
        if (i >= 0) this.rewindSummaries.splice(i, 1);
      });
      const shown: RewindPlan = { ...plan, files: plan.files.map((f) => ({ ...f, path: vscode.workspace.asRelativePath(f.path, false) })) };
      if (preview) {
        this.post({ type: 'rewindPreview', plan: shown });
      } else {
        // The files the review showed belong to a turn that is gone.
        this.review.reset();
        this.post({ type: 'rewound', plan: shown });
        await this.postChangedFiles();
      }
      return plan;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.output.warn(`${preview ? 'rewind preview' : 'rewind'} to before turn ${turn}: ${message}`);
      this.post({ type: 'rewindFailed', turn, message });
      return undefined;
    }
  }

  /**
   * The MCP servers of a workspace folder (a URI; default: the first) and
   * the prompts and resources they offer. The first call may take a few seconds: the
   * folder's servers start with its agent.
   */
  async mcpServers(folderUri = folder()): Promise<McpServersResult> {
    const client = await this.requireClient();
    if (!client.supports(Methods.mcpServers)) {
      throw new Error(
        `The Reasonix server ${client.binary} does not report MCP servers (it lacks ${Methods.mcpServers.method}). ` +
          'Update reasonix, or set reasonix.path to a newer binary.',
      );
    }
    return client.request(Methods.mcpServers, { folder: folderUri });
  }

  /** What the agent remembers in a workspace folder (a URI; default: the first): the user's notes and the project's. */
  async memory(folderUri = folder()): Promise<MemoryResult> {
    const client = await this.requireClient();
    if (!client.supports(Methods.memory)) {
      throw new Error(
        `The Reasonix server ${client.binary} does not list the agent's memory (it lacks ${Methods.memory.method}). ` +
          'Update reasonix, or set reasonix.path to a newer binary.',
      );
    }
    return client.request(Methods.memory, { folder: folderUri });
  }

  /**
   * Runs reasonix.trust on a workspace folder (a URI; default: the
   * first): `review` asks the trust question again, `revoke` forgets
   * what was trusted. Resolves once the user has answered.
   */
  async trust(args: TrustArgs): Promise<TrustResult> {
    const client = await this.requireClient();
    if (!this.knows(client, Commands.trust.command)) {
      throw new Error(
        `The Reasonix server ${client.binary} does not know workspace trust (it lacks the command ${Commands.trust.command}). ` +
          'Update reasonix, or set reasonix.path to a newer binary.',
      );
    }
    return client.execute(Commands.trust, args);
  }

  /**
   * Answers the panel's requestMcp. A failure is part of the answer, not
   * an error message: the panel asks whenever `@` opens its menu. A server
   * older than resource mentions sends no resources: none, then.
   */
  private async postMcp(): Promise<void> {
    try {
      const r = await this.mcpServers();
      this.post({ type: 'mcp', servers: r.servers, prompts: r.prompts, resources: r.resources ?? [], text: r.text });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.output.warn(`requestMcp: ${message}`);
      this.post({ type: 'mcp', servers: [], prompts: [], resources: [], text: '', error: message });
    }
  }

  /**
   * Answers the panel's requestCommands with the server's slash commands
   * of the active editor's workspace. A failure is part of the answer: the
   * panel asks whenever `/` opens its menu, and completes its own commands
   * meanwhile.
   */
  private async postCommands(): Promise<void> {
    try {
      const client = await this.requireClient();
      if (!client.supports(Methods.listCommands)) {
        throw new Error(`The Reasonix server ${client.binary} does not list slash commands (it lacks ${Methods.listCommands.method}).`);
      }
      const editor = vscode.window.activeTextEditor;
      const uri = editor?.document.uri.scheme === 'file' ? editor.document.uri.toString() : folder();
      const r = await client.request(Methods.listCommands, { uri });
      this.post({ type: 'commands', commands: r.commands });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.output.warn(`requestCommands: ${message}`);
      this.post({ type: 'commands', commands: [], error: message });
    }
  }

  private async requireClient(): Promise<ReasonixClient> {
    const c = this.current ?? (await this.starting);
    if (!c) throw new Error('The Reasonix server is not running. Fix the problem shown, then run "Reasonix: Restart Server".');
    return c;
  }

  private post(m: ExtensionToPanel): void {
    this.panel.post(m);
  }

  private postState(): void {
    const running = this.asking !== undefined || (this.sessionId !== null && this.running.has(this.sessionId));
    this.post({ type: 'state', model: this.model, running, sessionId: this.sessionId });
  }

  private async postChangedFiles(): Promise<void> {
    this.post({ type: 'changedFiles', files: await this.review.files() });
  }

  dispose(): void {
    void this.stopServer();
    for (const d of this.disposables.splice(0).reverse()) d.dispose();
  }
}

function folder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.toString();
}
