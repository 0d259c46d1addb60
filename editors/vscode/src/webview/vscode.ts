// The webview's handle on VS Code: typed messages to the extension, and
// the state VS Code keeps while the view is hidden.
import type { PanelToExtension } from '../messages';

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

// acquireVsCodeApi may be called once per page.
const api = acquireVsCodeApi();

export function post(msg: PanelToExtension): void {
  api.postMessage(msg);
}

export function getState(): unknown {
  return api.getState();
}

export function setState(state: unknown): void {
  api.setState(state);
}
