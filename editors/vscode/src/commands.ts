// The extension's own commands (package.json contributes.commands). The
// server's commands (reasonix.ask, reasonix.start, reasonix.cancel) are
// registered by the language client, so code actions run as they are.
import * as vscode from 'vscode';
import { type Controller } from './controller';
import {
  type McpServer,
  type McpServersResult,
  type McpServerState,
  type MemoryNote,
  type MemoryResult,
  type TrustArgs,
  type TrustResult,
} from './protocol';
import { trustOutcome } from './trust';

export const CommandIds = {
  openChat: 'reasonix.openChat',
  askSelection: 'reasonix.askSelection',
  newSession: 'reasonix.newSession',
  stop: 'reasonix.stop',
  mcpServers: 'reasonix.mcpServers',
  showMemory: 'reasonix.showMemory',
  restartServer: 'reasonix.restartServer',
  reviewTrust: 'reasonix.reviewTrust',
  revokeTrust: 'reasonix.revokeTrust',
} as const;

export function registerCommands(c: Controller): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(CommandIds.openChat, () => c.panel.reveal()),
    // From the editor's context menu the argument is the file's URI, not a prompt.
    vscode.commands.registerCommand(CommandIds.askSelection, (prompt?: unknown) =>
      askSelection(c, typeof prompt === 'string' ? prompt : undefined),
    ),
    vscode.commands.registerCommand(CommandIds.newSession, () => c.newSession().then(() => c.panel.reveal())),
    vscode.commands.registerCommand(CommandIds.stop, () => c.stop()),
    vscode.commands.registerCommand(CommandIds.mcpServers, () => showMcpServers(c)),
    vscode.commands.registerCommand(CommandIds.showMemory, () => showMemory(c)),
    vscode.commands.registerCommand(CommandIds.restartServer, () => c.restart()),
    vscode.commands.registerCommand(CommandIds.reviewTrust, () => workspaceTrust(c, 'review')),
    vscode.commands.registerCommand(CommandIds.revokeTrust, () => workspaceTrust(c, 'revoke')),
  ];
}

/** Asks about the active editor's selection (or its file, with none). */
async function askSelection(c: Controller, prompt?: string) {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Reasonix: open a file and select the code to ask about.');
    return undefined;
  }
  prompt ??= await vscode.window.showInputBox({
    title: 'Ask Reasonix',
    prompt: editor.selection.isEmpty ? `About ${vscode.workspace.asRelativePath(editor.document.uri)}` : 'About the selection',
    placeHolder: 'What does this do? Why does it fail?',
  });
  if (!prompt) return undefined;
  await c.panel.reveal();
  try {
    return await c.ask(prompt, editor.selection.isEmpty ? 'file' : 'selection');
  } catch (err) {
    void vscode.window.showErrorMessage(`Reasonix: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** A server in the MCP servers QuickPick. */
export interface McpServerItem extends vscode.QuickPickItem {
  server: McpServer;
}

/** Each state's icon, in the order the summary counts them. */
const STATE_ICONS: Record<McpServerState, string> = {
  connected: 'pass',
  restarting: 'sync',
  failed: 'error',
  disabled: 'circle-slash',
  closed: 'circle-slash',
};

/**
 * Lists the MCP servers of the active editor's workspace folder (or the
 * first folder): each with its transport, state and what it offers, and
 * the error of one that failed. Resolves to the picked server's item.
 */
async function showMcpServers(c: Controller): Promise<McpServerItem | undefined> {
  const folder = activeFolder();
  let result: McpServersResult;
  try {
    // The first request starts the folder's servers, which takes a moment.
    result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Reasonix: asking the MCP servers' }, () =>
      c.mcpServers(folder?.uri.toString()),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`Reasonix: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  if (result.servers.length === 0) {
    void vscode.window.showInformationMessage(`Reasonix: ${result.text}`);
    return undefined;
  }
  const items = result.servers.map(mcpServerItem);
  const states = [...new Set([...Object.keys(STATE_ICONS), ...result.servers.map((s) => s.state)])];
  const summary = states
    .map((state) => [state, result.servers.filter((s) => s.state === state).length] as const)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  return vscode.window.showQuickPick(items, {
    title: 'Reasonix: MCP Servers',
    placeHolder: folder ? `MCP servers of ${folder.name}: ${summary}` : `MCP servers: ${summary}`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
}

/** A note in the memory QuickPick. */
export interface MemoryNoteItem extends vscode.QuickPickItem {
  note: MemoryNote;
}

/**
 * Lists what the agent remembers for the active editor's workspace folder
 * (or the first): the project's notes and the user's, each with its
 * description; picking one opens its file. Resolves to the picked item.
 */
async function showMemory(c: Controller): Promise<MemoryNoteItem | undefined> {
  const folder = activeFolder();
  let result: MemoryResult;
  try {
    result = await c.memory(folder?.uri.toString());
  } catch (err) {
    void vscode.window.showErrorMessage(`Reasonix: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  if (result.notes.length === 0) {
    void vscode.window.showInformationMessage(
      'Reasonix: no notes yet. The agent saves one when you ask it to remember something, with your approval.',
    );
    return undefined;
  }
  const items: MemoryNoteItem[] = result.notes.map((n) => ({
    label: `${n.scope}/${n.name}`,
    description: n.description,
    detail: n.path,
    iconPath: new vscode.ThemeIcon(n.scope === 'user' ? 'account' : 'repo'),
    note: n,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Reasonix: Memory',
    placeHolder: 'What the agent remembers; pick a note to open it',
    matchOnDescription: true,
  });
  if (picked) await vscode.window.showTextDocument(vscode.Uri.file(picked.note.path));
  return picked;
}

/**
 * Reviews (asks the trust question again) or revokes the trust in the
 * configuration of the active editor's workspace folder (or the first
 * folder), and says what came of it. Resolves to reasonix.trust's result.
 */
async function workspaceTrust(c: Controller, action: NonNullable<TrustArgs['action']>): Promise<TrustResult | undefined> {
  const folder = activeFolder();
  let result: TrustResult;
  try {
    result = await c.trust({ uri: folder?.uri.toString(), action });
  } catch (err) {
    void vscode.window.showErrorMessage(`Reasonix: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  const said = trustOutcome(action, result);
  if (said) void vscode.window.showInformationMessage(said);
  return result;
}

/** A server as the QuickPick shows it. */
function mcpServerItem(s: McpServer): McpServerItem {
  const offers = [plural(s.tools, 'tool'), plural(s.prompts, 'prompt'), plural(s.resources, 'resource')].join(', ');
  return {
    label: s.name,
    description: `${s.transport} · ${s.state} · ${offers}`,
    detail: s.error,
    iconPath: new vscode.ThemeIcon(STATE_ICONS[s.state] ?? 'question'),
    server: s,
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The workspace folder of the active editor, else the first one. */
function activeFolder(): vscode.WorkspaceFolder | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
}
