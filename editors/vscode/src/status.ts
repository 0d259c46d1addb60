// The status bar item: a spinner while a turn runs, then the session's
// cost and prompt-cache hit ratio after each turn. Clicking it opens the chat.
import * as vscode from 'vscode';
import { type ReasonixEvent, type Usage } from './protocol';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  /** Turns running now, by session id. */
  private readonly running = new Set<string>();
  private cost: number | undefined;
  private priced = true;
  private usage: Usage | undefined;
  private problem: string | undefined;

  constructor(openChatCommand: string) {
    this.item = vscode.window.createStatusBarItem('reasonix.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Reasonix';
    this.item.command = openChatCommand;
    this.render();
    this.item.show();
  }

  /** Follows the agent loop's events. */
  onEvent(e: ReasonixEvent): void {
    switch (e.kind) {
      case 'turn_start':
        this.running.add(e.sessionId);
        break;
      case 'usage':
        this.cost = e.usage.sessionCost;
        this.priced = e.usage.priced;
        this.usage = e.usage.session;
        break;
      case 'turn_done':
        this.running.delete(e.sessionId);
        if (e.done.sessionUsage) this.usage = e.done.sessionUsage;
        if (e.done.sessionCost !== undefined) this.cost = e.done.sessionCost;
        this.priced = e.done.priced;
        break;
      default:
        return;
    }
    this.render();
  }

  /** A new or resumed session: its totals so far. */
  setSession(usage: Usage | undefined, cost: number | undefined): void {
    this.usage = usage;
    this.cost = cost;
    this.render();
  }

  /** The server is not running, and why (undefined: it is). */
  setProblem(problem: string | undefined): void {
    this.problem = problem;
    this.render();
  }

  /** The item's text, for tests. */
  get text(): string {
    return this.item.text;
  }

  private render(): void {
    if (this.problem) {
      this.item.text = '$(error) Reasonix';
      this.item.tooltip = this.problem;
      return;
    }
    if (this.running.size > 0) {
      this.item.text = '$(sync~spin) Reasonix';
      this.item.tooltip = 'Reasonix is working. Click to open the chat.';
      return;
    }
    const parts: string[] = [];
    if (this.cost !== undefined && this.priced) parts.push(`$${this.cost.toFixed(4)}`);
    const ratio = hitRatio(this.usage);
    if (ratio !== undefined) parts.push(`${Math.round(ratio * 100)}% cache`);
    this.item.text = parts.length ? `$(hubot) Reasonix ${parts.join(' · ')}` : '$(hubot) Reasonix';
    this.item.tooltip = parts.length
      ? `This session: ${parts.join(', ')} (prompt tokens served from the cache). Click to open the chat.`
      : 'Click to open the Reasonix chat.';
  }

  dispose(): void {
    this.item.dispose();
  }
}

export function hitRatio(u: Usage | undefined): number | undefined {
  if (!u) return undefined;
  const total = u.cache_hit_tokens + u.cache_miss_tokens;
  return total > 0 ? u.cache_hit_tokens / total : undefined;
}
