// The extension's entry point: activate builds the Controller, registers
// everything it owns in context.subscriptions and starts the server;
// deactivate stops it. Everything else lives in its own file.
import * as vscode from 'vscode';
import { CommandIds, registerCommands } from './commands';
import { openSettings } from './config';
import { Controller } from './controller';

let controller: Controller | undefined;

/**
 * Activates the extension. A server that cannot start is reported to the
 * user (with a way to fix it) and the commands stay registered, so
 * "Restart Server" works once the problem is fixed. Returns the
 * Controller, which tests drive.
 */
export async function activate(context: vscode.ExtensionContext): Promise<Controller> {
  try {
    const c = new Controller(context, CommandIds.openChat);
    controller = c;
    context.subscriptions.push(c, ...registerCommands(c));
    await c.start();
    return c;
  } catch (err) {
    // Controller.start reports the server's problems itself; this is
    // anything else, which VS Code would only log.
    const message = `Reasonix could not activate: ${err instanceof Error ? err.message : String(err)}`;
    void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
      if (choice) void openSettings();
    });
    throw err;
  }
}

export async function deactivate(): Promise<void> {
  const c = controller;
  controller = undefined;
  await c?.stopServer();
}
