// Questions of reasonix/approve (permissions, plans, /clear), or a
// permission dialog sent as window/showMessageRequest: asked as a card in
// the chat panel when it is on screen, else as a modal dialog, so a
// question is never left unseen. The answer is one of the question's
// actions, or null.
import * as vscode from 'vscode';
import { type CancellationToken } from 'vscode-languageclient/node';
import { type ChatPanel } from './panel';
import { PendingAnswers } from './pending';
import { plainText } from './plaintext';
import { APPROVAL_ACTIONS, type ApprovalAction, type ApproveParams, type ApproveResult } from './protocol';

export class Approvals implements vscode.Disposable {
  private readonly pending = new PendingAnswers<ApprovalAction>('approval');
  /** The actions each question in the panel offers, by id. */
  private readonly actions = new Map<string, readonly string[]>();

  constructor(private readonly panel: ChatPanel) {}

  async ask(params: ApproveParams, token: CancellationToken): Promise<ApproveResult> {
    if (!this.panel.visible) return { action: await this.modal(params) };
    const action = await this.pending.ask(token, (id) => {
      this.actions.set(id, actionsOf(params));
      this.panel.post({ type: 'approval', id, request: params });
    });
    return { action };
  }

  /** The panel's answer to question `id` (null: dismissed, which is Deny). */
  answer(id: string, action: string | null): void {
    const valid = this.actions.get(id)?.find((a) => a === action) ?? null;
    if (!this.pending.settle(id, valid)) return;
    this.actions.delete(id);
    this.panel.post({ type: 'approvalDone', id, action: valid });
  }

  /**
   * The question as a modal dialog, its message as plain text (a dialog
   * shows Markdown as it is written). The answer that changes nothing
   * (Deny, or the last of other questions' answers: Keep planning, Keep
   * it) is the dialog's close affordance, so Escape picks it and VS Code
   * adds no Cancel of its own: the buttons are the question's answers.
   */
  private async modal(params: ApproveParams): Promise<ApprovalAction | null> {
    const actions = actionsOf(params);
    const close = actions.includes(DENY) ? DENY : actions.at(-1);
    const items: vscode.MessageItem[] = actions.map((title) => ({ title, isCloseAffordance: title === close }));
    const picked = await vscode.window.showWarningMessage(plainText(params.message), { modal: true }, ...items);
    return picked?.title ?? null;
  }

  /** Withdraws every open question (the server went away): Deny. */
  withdrawAll(): void {
    for (const id of this.pending.ids()) this.answer(id, null);
  }

  dispose(): void {
    this.withdrawAll();
  }
}

/** The answer of a permission question that allows nothing. */
const DENY: ApprovalAction = APPROVAL_ACTIONS[3];

/** The answers a question offers; a permission's four when it names none. */
function actionsOf(params: ApproveParams): readonly string[] {
  return params.actions?.length ? params.actions : APPROVAL_ACTIONS;
}
