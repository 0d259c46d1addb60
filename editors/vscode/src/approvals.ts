// Questions of reasonix/approve (permissions, plans, /clear), or a
// permission dialog sent as window/showMessageRequest: asked as a card in
// the chat panel when it is on screen, else as a modal dialog, so a
// question is never left unseen. The answer is one of the question's
// actions, or null.
import * as vscode from 'vscode';
import { type CancellationToken } from 'vscode-languageclient/node';
import { type ChatPanel } from './panel';
import { APPROVAL_ACTIONS, type ApprovalAction, type ApproveParams, type ApproveResult } from './protocol';

export class Approvals implements vscode.Disposable {
  private next = 1;
  /** Questions shown in the panel and not answered yet, by id, with their actions. */
  private readonly pending = new Map<string, { actions: readonly string[]; resolve: (action: ApprovalAction | null) => void }>();

  constructor(private readonly panel: ChatPanel) {}

  async ask(params: ApproveParams, token: CancellationToken): Promise<ApproveResult> {
    if (!this.panel.visible) return { action: await this.modal(params) };
    const id = `approval-${this.next++}`;
    const answer = new Promise<ApprovalAction | null>((resolve) => this.pending.set(id, { actions: actionsOf(params), resolve }));
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
    const q = this.pending.get(id);
    if (!q) return;
    this.pending.delete(id);
    const valid = q.actions.find((a) => a === action) ?? null;
    q.resolve(valid);
    this.panel.post({ type: 'approvalDone', id, action: valid });
  }

  private async modal(params: ApproveParams): Promise<ApprovalAction | null> {
    const picked = await vscode.window.showWarningMessage(params.message, { modal: true }, ...actionsOf(params));
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

/** The answers a question offers; a permission's four when it names none. */
function actionsOf(params: ApproveParams): readonly string[] {
  return params.actions?.length ? params.actions : APPROVAL_ACTIONS;
}
