// Permission questions (reasonix/approve, or a permission dialog sent as
// window/showMessageRequest): asked as a card in the chat panel when it is
// on screen, else as a modal dialog, so a question is never left unseen.
import * as vscode from 'vscode';
import { type CancellationToken } from 'vscode-languageclient/node';
import { type ChatPanel } from './panel';
import { APPROVAL_ACTIONS, type ApprovalAction, type ApproveParams, type ApproveResult } from './protocol';

export class Approvals implements vscode.Disposable {
  private next = 1;
  /** Questions shown in the panel and not answered yet, by id. */
  private readonly pending = new Map<string, (action: ApprovalAction | null) => void>();

  constructor(private readonly panel: ChatPanel) {}

  async ask(params: ApproveParams, token: CancellationToken): Promise<ApproveResult> {
    if (!this.panel.visible) return { action: await this.modal(params) };
    const id = `approval-${this.next++}`;
    const answer = new Promise<ApprovalAction | null>((resolve) => this.pending.set(id, resolve));
    const cancelled = token.onCancellationRequested(() => this.answer(id, null));
    this.panel.post({ type: 'approval', id, request: params });
    try {
      return { action: await answer };
    } finally {
      cancelled.dispose();
    }
  }

  /** The panel's answer to question `id` (null: dismissed, which is Deny). */
  answer(id: string, action: string | null): void {
    const resolve = this.pending.get(id);
    if (!resolve) return;
    this.pending.delete(id);
    const valid = APPROVAL_ACTIONS.find((a) => a === action) ?? null;
    resolve(valid);
    this.panel.post({ type: 'approvalDone', id, action: valid });
  }

  private async modal(params: ApproveParams): Promise<ApprovalAction | null> {
    const picked = await vscode.window.showWarningMessage(params.message, { modal: true }, ...APPROVAL_ACTIONS);
    return picked ?? null;
  }

  /** Withdraws every open question (the server went away): Deny. */
  withdrawAll(): void {
    for (const id of [...this.pending.keys()]) this.answer(id, null);
  }

  dispose(): void {
    this.withdrawAll();
  }
}
