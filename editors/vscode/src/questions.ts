// The agent's questions (the ask tool, reasonix/ask): asked as a card in
// the chat panel when it is on screen, else as a QuickPick of the
// suggested answers with a way to type another, so a question is never
// left unseen.
import * as vscode from 'vscode';
import { type CancellationToken } from 'vscode-languageclient/node';
import { type ChatPanel } from './panel';
import { PendingAnswers } from './pending';
import { plainText } from './plaintext';
import { type QuestionParams, type QuestionResult } from './protocol';

/** The QuickPick item that opens an input box for an answer of one's own. */
export const OWN_ANSWER = 'Answer in my own words…';

export class Questions implements vscode.Disposable {
  private readonly pending = new PendingAnswers<string>('question');

  constructor(private readonly panel: ChatPanel) {}

  async ask(params: QuestionParams, token: CancellationToken): Promise<QuestionResult> {
    if (!this.panel.visible) return { answer: await this.pick(params) };
    return { answer: await this.pending.ask(token, (id) => this.panel.post({ type: 'question', id, request: params })) };
  }

  /** The panel's answer to question `id` (null: dismissed). */
  answer(id: string, answer: string | null): void {
    const text = answer?.trim() || null;
    if (this.pending.settle(id, text)) this.panel.post({ type: 'questionDone', id, answer: text });
  }

  private async pick(params: QuestionParams): Promise<string | null> {
    const items = params.allowText ? [...params.options, OWN_ANSWER] : params.options;
    // A QuickPick's title is plain text: the question's Markdown goes.
    const question = plainText(params.question);
    const picked = await vscode.window.showQuickPick(items, {
      title: `Reasonix asks: ${question}`,
      placeHolder: 'Pick an answer',
      ignoreFocusOut: true,
    });
    if (picked !== OWN_ANSWER) return picked ?? null;
    const typed = await vscode.window.showInputBox({ title: 'Reasonix asks', prompt: question, ignoreFocusOut: true });
    return typed?.trim() || null;
  }

  /** Withdraws every open question (the server went away): no answer. */
  withdrawAll(): void {
    for (const id of this.pending.ids()) this.answer(id, null);
  }

  dispose(): void {
    this.withdrawAll();
  }
}
