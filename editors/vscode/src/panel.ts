// The host side of the chat panel: creates the webview view (strict CSP,
// the script and stylesheet the webview build puts in media/), and passes
// typed messages both ways (src/messages.ts). What a message does is the
// Controller's business.
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { type ExtensionToPanel, type PanelToExtension } from './messages';

export const VIEW_ID = 'reasonix.chat';

export class ChatPanel implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  /** Listeners of the current view, disposed with it. */
  private viewDisposables: vscode.Disposable[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private readonly received = new vscode.EventEmitter<PanelToExtension>();
  /** A message from the panel, checked to be one of PanelToExtension. */
  readonly onMessage = this.received.event;

  constructor(private readonly extensionUri: vscode.Uri) {
    this.disposables.push(this.received);
  }

  /** Whether the panel is on screen, so that a question asked there is seen. */
  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.disposeView();
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = html(view.webview, media);
    this.viewDisposables.push(
      view.webview.onDidReceiveMessage((m: unknown) => {
        if (isPanelMessage(m)) this.received.fire(m);
      }),
      view.onDidDispose(() => {
        if (this.view === view) this.disposeView();
      }),
    );
  }

  private disposeView(): void {
    this.view = undefined;
    for (const d of this.viewDisposables.splice(0)) d.dispose();
  }

  /** Sends a message to the panel; dropped when the panel does not exist. */
  post(message: ExtensionToPanel): void {
    void this.view?.webview.postMessage(message);
  }

  /** Brings the panel into view. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }

  dispose(): void {
    this.disposeView();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** The panel's page: only media/ may be loaded, and only our nonce'd script runs. */
export function html(webview: vscode.Webview, media: vscode.Uri): string {
  const nonce = crypto.randomUUID();
  const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'panel.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'panel.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Reasonix</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

const SHAPES: { [K in PanelToExtension['type']]: Record<string, 'string' | 'string?' | 'attach' | 'action' | 'turn'> } = {
  ready: {},
  ask: { prompt: 'string', attach: 'attach' },
  stop: {},
  newSession: {},
  listSessions: {},
  resumeSession: { sessionId: 'string' },
  approve: { id: 'string', action: 'action' },
  answer: { id: 'string', answer: 'action' },
  openDiff: { path: 'string' },
  acceptFile: { path: 'string' },
  rejectFile: { path: 'string' },
  requestFiles: { prefix: 'string' },
  requestMcp: {},
  requestCommands: {},
  rewindPreview: { turn: 'turn' },
  rewind: { turn: 'turn' },
};

/**
 * isPanelMessage checks a message from the webview at run time: the page
 * is less trusted than the extension, and TypeScript's types end at the
 * postMessage boundary.
 */
export function isPanelMessage(m: unknown): m is PanelToExtension {
  if (typeof m !== 'object' || m === null) return false;
  const rec = m as Record<string, unknown>;
  if (typeof rec.type !== 'string' || !Object.hasOwn(SHAPES, rec.type)) return false;
  const shape = SHAPES[rec.type as PanelToExtension['type']];
  return Object.entries(shape).every(([k, kind]) => {
    const v = rec[k];
    switch (kind) {
      case 'string':
        return typeof v === 'string';
      case 'string?':
        return v === undefined || typeof v === 'string';
      case 'attach':
        return v === undefined || v === null || v === 'selection' || v === 'file';
      case 'action':
        return v === null || typeof v === 'string';
      case 'turn':
        return typeof v === 'number' && Number.isInteger(v) && v > 0;
    }
    return false;
  });
}
