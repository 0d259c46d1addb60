// The extension's own commands (package.json contributes.commands). The
// server's commands (reasonix.ask, reasonix.start, reasonix.cancel) are
// registered by the language client, so code actions run as they are.
import * as vscode from 'vscode';
import { type Controller } from './controller';

export const CommandIds = {
  openChat: 'reasonix.openChat',
  askSelection: 'reasonix.askSelection',
  newSession: 'reasonix.newSession',
  stop: 'reasonix.stop',
  restartServer: 'reasonix.restartServer',
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
    vscode.commands.registerCommand(CommandIds.restartServer, () => c.restart()),
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
