// Workspace trust. A folder's own reasonix.toml and .mcp.json can start
// programs, connect to servers, send the user's keys and loosen the
// sandbox; the server leaves those entries out until the user trusts
// them, and asks with window/showMessageRequest (docs/PROTOCOL.md, "What
// the server asks of the client"). Here that question is a modal dialog:
// a notification would fade into the corner while the folder's servers
// stay off for reasons the user never read.
import * as vscode from 'vscode';
import { type MessageActionItem, type ShowMessageRequestParams } from 'vscode-languageclient/node';
import { TRUST_ACTIONS, type TrustArgs, type TrustResult } from './protocol';

/** The answer that leaves the folder's configuration off. */
const KEEP_OFF = TRUST_ACTIONS[1];

/** Whether a window/showMessageRequest is the trust question: it offers exactly its two actions. */
export function isTrustQuestion(actions: readonly MessageActionItem[]): boolean {
  return actions.length === TRUST_ACTIONS.length && actions.every((a, i) => a.title === TRUST_ACTIONS[i]);
}

/**
 * Asks the trust question as a modal warning: the message's first line
 * (which folder) as the dialog's message, the rest (one entry a line,
 * with the file and line that sets it) as its detail. The server writes
 * this text plain, not Markdown, so it is shown as written. "Keep
 * disabled" is the dialog's close affordance: Escape picks it, and VS
 * Code adds no Cancel of its own. Resolves to the action picked, or null.
 */
export async function askTrust(params: ShowMessageRequestParams): Promise<MessageActionItem | null> {
  const actions = params.actions ?? [];
  const [heading, ...entries] = params.message.split('\n');
  const items: vscode.MessageItem[] = actions.map((a) => ({ title: a.title, isCloseAffordance: a.title === KEEP_OFF }));
  const picked = await vscode.window.showWarningMessage(heading, { modal: true, detail: entries.join('\n') }, ...items);
  return actions.find((a) => a.title === picked?.title) ?? null;
}

/**
 * What the user is told once reasonix.trust is done; undefined where the
 * server has said it already (window/showMessage: nothing needs trust, or
 * it is all trusted).
 */
export function trustOutcome(action: NonNullable<TrustArgs['action']>, r: TrustResult): string | undefined {
  if (r.items.length === 0) {
    return action === 'revoke' ? `Reasonix: nothing in the configuration of ${r.workspace} needs trust.` : undefined;
  }
  if (action === 'revoke') {
    return `Reasonix: forgot what you trusted in ${r.workspace}: its own servers and settings are off until you trust them again.`;
  }
  if (r.granted) return `Reasonix: you trust the configuration of ${r.workspace}: its own servers and settings are on.`;
  if (!r.trusted) return `Reasonix: the configuration of ${r.workspace} stays off until you trust it (Reasonix: Review Workspace Trust).`;
  return undefined;
}
