// Questions put to the chat panel and not answered yet: permission
// questions (src/approvals.ts) and the agent's own (src/questions.ts).
// Each is posted with an id; the panel answers with that id, the server
// may cancel the request, and a server that goes away withdraws them all.
import { type CancellationToken } from 'vscode-languageclient/node';

export class PendingAnswers<A> {
  private next = 1;
  /** The questions waiting for an answer, by id. */
  private readonly waiting = new Map<string, (answer: A | null) => void>();

  constructor(private readonly prefix: string) {}

  /**
   * Shows a question with `show`, given its id, and resolves with its
   * answer, or null when the request is cancelled or the question
   * withdrawn.
   */
  async ask(token: CancellationToken, show: (id: string) => void): Promise<A | null> {
    const id = `${this.prefix}-${this.next++}`;
    const answer = new Promise<A | null>((resolve) => this.waiting.set(id, resolve));
    const cancelled = token.onCancellationRequested(() => this.settle(id, null));
    show(id);
    try {
      return await answer;
    } finally {
      cancelled.dispose();
    }
  }

  /** Answers question `id`; false when it is not waiting (answered, withdrawn, unknown). */
  settle(id: string, answer: A | null): boolean {
    const resolve = this.waiting.get(id);
    if (!resolve) return false;
    this.waiting.delete(id);
    resolve(answer);
    return true;
  }

  /** The ids of the questions still waiting. */
  ids(): string[] {
    return [...this.waiting.keys()];
  }
}
