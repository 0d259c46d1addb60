// Turns what the server reports (reasonix/event, permission questions,
// a resumed session's messages) into transcript entries.
import type { ChatMessage, ReasonixEvent, TurnResult } from '../messages';
import { describeCall, formatCost, formatTokens, plural } from './format';
import type { ApprovalEntry, Entry, NoticeEntry, QuestionEntry, StreamEntry, Store, ToolEntry, UserEntry } from './state';

const isUser = (e: Entry): e is UserEntry => e.kind === 'user';
const isTool = (e: Entry): e is ToolEntry => e.kind === 'tool';
const isApproval = (e: Entry): e is ApprovalEntry => e.kind === 'approval';
const isQuestion = (e: Entry): e is QuestionEntry => e.kind === 'question';

/** The row of a tool call, by the turn, the call's id and its task's (sub-tasks number their calls on their own). */
const findCall = (store: Store, turn: number, callId: string, parent?: string): ToolEntry | undefined =>
  store.findLast((e): e is ToolEntry => isTool(e) && e.callId === callId && e.turn === turn && e.parent === parent);

const STOPPED: Record<string, string> = {
  cancelled: 'Stopped.',
  max_steps: 'Stopped: the turn reached its step limit.',
  token_budget: 'Stopped: the turn spent its token budget.',
};

export function applyEvent(store: Store, ev: ReasonixEvent): void {
  const s = store.state;
  switch (ev.kind) {
    case 'turn_start': {
      s.running = true;
      s.sessionId = ev.sessionId;
      s.turn = undefined;
      const mine = store.findLast(isUser);
      if (mine?.pending) {
        mine.pending = false;
        mine.turn = ev.turn;
        store.update(mine);
      } else {
        store.add<UserEntry>({ kind: 'user', text: ev.text, turn: ev.turn });
      }
      return;
    }
    case 'text':
    case 'reasoning': {
      const step = ev.step ?? 0;
      // Reasoning and text of one step each grow one entry; text after a
      // tool call starts a new one.
      const last = s.entries[s.entries.length - 1];
      const same = (e: Entry | undefined): e is StreamEntry =>
        e !== undefined && e.kind === ev.kind && e.turn === ev.turn && e.step === step;
      const target = ev.kind === 'text' ? (same(last) ? last : undefined) : s.entries.slice(-8).reverse().find(same);
      if (target) {
        target.text += ev.text;
        store.update(target);
      } else {
        store.add<StreamEntry>({ kind: ev.kind, turn: ev.turn, step, text: ev.text });
      }
      return;
    }
    case 'retry': {
      // What the step streamed before the retry is void.
      for (const e of [...s.entries]) {
        if ((e.kind === 'text' || e.kind === 'reasoning') && e.turn === ev.turn && e.step === (ev.step ?? 0)) {
          store.remove(e);
        }
      }
      store.add<NoticeEntry>({ kind: 'notice', level: 'retry', text: ev.text || 'The model request failed; retrying.' });
      return;
    }
    case 'tool_start':
      store.add<ToolEntry>({
        kind: 'tool',
        turn: ev.turn,
        callId: ev.tool.callId,
        parent: ev.parent,
        name: ev.tool.name,
        title: ev.tool.title || ev.tool.name,
        status: 'running',
      });
      return;
    case 'tool_progress': {
      // Progress that arrives after the result is stale: a finished row shows none.
      const row = findCall(store, ev.turn, ev.tool.callId, ev.parent);
      if (!row || row.status !== 'running' || row.progress === ev.text) return;
      row.progress = ev.text;
      store.update(row);
      return;
    }
    case 'tool_result': {
      const t = ev.tool;
      let row = findCall(store, ev.turn, t.callId, ev.parent);
      if (!row) {
        row = store.add<ToolEntry>({ kind: 'tool', turn: ev.turn, callId: t.callId, parent: ev.parent, name: t.name, title: t.title || t.name, status: 'running' });
      }
      row.status = t.denied ? 'denied' : t.isError ? 'error' : 'ok';
      row.progress = undefined;
      row.summary = t.summary;
      row.result = t.result;
      row.durationMs = t.durationMs;
      if (t.title) row.title = t.title;
      store.update(row);
      return;
    }
    case 'usage': {
      const u = ev.usage;
      s.usageModel = u.model;
      s.turn = { usage: u.turn, cost: u.turnCost, priced: u.priced };
      s.session = { usage: u.session, cost: u.sessionCost, priced: u.priced };
      return;
    }
    case 'notice':
    case 'compaction':
    case 'repair':
    case 'hook':
    case 'check':
      store.add<NoticeEntry>({ kind: 'notice', level: 'info', text: ev.text });
      return;
    case 'error':
      store.add<NoticeEntry>({ kind: 'notice', level: 'error', text: ev.error });
      return;
    case 'turn_done':
      endTurn(store, ev.turn, ev.done);
      return;
    case 'rewind':
      // The panel's own rewind says so when it ends ('rewound'); this
      // also covers /rewind N typed in the composer.
      store.cutTurns(ev.rewind.turns);
      return;
    case 'approval':
      // The question itself arrives as an `approval` message with the id
      // to answer; this event only says that a dialog opened.
      return;
  }
}

function endTurn(store: Store, turn: number, done: TurnResult): void {
  const s = store.state;
  s.running = false;
  if (done.action) {
    // A built-in command ran no turn: its answer streamed as text is shown
    // as a notice, without a turn's footer. The tables (/help, /mcp) keep
    // their columns in a fixed-width font; the lines of the others (/cost,
    // /model) wrap, so a narrow panel shows all of them.
    const table = done.action.kind === 'help' || done.action.kind === 'mcp';
    for (const e of [...s.entries]) {
      if (e.kind === 'text' && e.turn === turn) {
        store.remove(e);
        store.add<NoticeEntry>({ kind: 'notice', level: 'info', text: e.text, mono: table });
      }
    }
    return;
  }
  s.turn = { usage: done.usage, cost: done.cost, priced: done.priced };
  if (done.sessionUsage) s.session = { usage: done.sessionUsage, cost: done.sessionCost ?? done.cost, priced: done.priced };
  for (const e of s.entries) {
    if (e.kind === 'tool' && e.status === 'running') {
      e.status = 'stopped';
      store.update(e);
    } else if (e.kind === 'approval' && e.choice === undefined) {
      e.choice = null; // the turn ended before anyone answered
      store.update(e);
    } else if (e.kind === 'question' && e.answer === undefined) {
      e.answer = null;
      store.update(e);
    }
  }
  if (done.stop === 'error') {
    const shown = s.entries.some((e) => e.kind === 'notice' && e.level === 'error' && e.text === done.error);
    if (done.error && !shown) store.add<NoticeEntry>({ kind: 'notice', level: 'error', text: done.error });
  } else if (STOPPED[done.stop]) {
    store.add<NoticeEntry>({ kind: 'notice', level: 'stop', text: STOPPED[done.stop] });
  }
  const parts = [plural(done.steps, 'request'), plural(done.toolCalls, 'tool call')];
  const tokens = done.usage.prompt_tokens + done.usage.completion_tokens;
  parts.push(done.priced ? formatCost(done.cost) : `${formatTokens(tokens)} tokens`);
  if (done.effort) parts.push(`effort ${done.effort}`);
  store.add({ kind: 'done', text: `Turn ${turn}: ${parts.join(' · ')}` });
}

export function addApproval(store: Store, id: string, request: ApprovalEntry['request']): void {
  if (store.findLast((e): e is ApprovalEntry => isApproval(e) && e.approvalId === id)) return;
  keepHeadingOnly(store, request.message);
  store.add<ApprovalEntry>({ kind: 'approval', approvalId: id, request });
}

/**
 * The planner's plan comes twice: as a notice ("plan by …:" and the plan)
 * and as the question about it, whose card renders the plan's Markdown.
 * A notice just before the card that ends with the card's message keeps
 * its heading alone, so the plan is shown once, rendered.
 */
function keepHeadingOnly(store: Store, message: string): void {
  const entries = store.state.entries;
  const last = entries[entries.length - 1];
  const body = message.trim();
  if (last?.kind !== 'notice' || last.level !== 'info' || body === '' || !last.text.endsWith('\n\n' + body)) return;
  last.text = last.text.slice(0, -body.length).trim().replace(/:$/, '');
  store.update(last);
}

/** Records an answer given elsewhere (a modal dialog), or null for a withdrawn question. */
export function settleApproval(store: Store, id: string, action: string | null): void {
  const card = store.findLast((e): e is ApprovalEntry => isApproval(e) && e.approvalId === id);
  if (!card || card.choice !== undefined) return;
  card.choice = action;
  store.update(card);
}

export function addQuestion(store: Store, id: string, request: QuestionEntry['request']): void {
  if (store.findLast((e): e is QuestionEntry => isQuestion(e) && e.questionId === id)) return;
  store.add<QuestionEntry>({ kind: 'question', questionId: id, request });
}

/** Records an answer given elsewhere (a picker), or null for a withdrawn question. */
export function settleQuestion(store: Store, id: string, answer: string | null): void {
  const card = store.findLast((e): e is QuestionEntry => isQuestion(e) && e.questionId === id);
  if (!card || card.answer !== undefined) return;
  card.answer = answer;
  store.update(card);
}

/**
 * The entries of a saved conversation: the user's prompts, the answers,
 * reasoning, and each tool call with its result. Saved results do not say
 * whether a call failed; one that starts with "Error" or ends with a
 * non-zero exit code is shown as failed, and "Permission denied:" as denied
 * (the wording of agent/dispatch.go).
 */
export function historyEntries(messages: ChatMessage[], firstId: number): Entry[] {
  const out: Entry[] = [];
  let id = firstId;
  let turn = 0;
  let step = 0;
  const calls = new Map<string, ToolEntry>();
  for (const m of messages) {
    if (m.role === 'user') {
      turn++;
      out.push({ id: id++, kind: 'user', text: m.content ?? '', turn });
    } else if (m.role === 'assistant') {
      step++;
      if (m.reasoning) out.push({ id: id++, kind: 'reasoning', turn, step, text: m.reasoning });
      if (m.content) out.push({ id: id++, kind: 'text', turn, step, text: m.content });
      for (const c of m.tool_calls ?? []) {
        const row: ToolEntry = { id: id++, kind: 'tool', turn, callId: c.id, name: c.name, title: describeCall(c.name, c.arguments), status: 'ok' };
        calls.set(c.id, row);
        out.push(row);
      }
    } else if (m.role === 'tool') {
      const row = m.tool_call_id ? calls.get(m.tool_call_id) : undefined;
      if (!row) continue;
      const content = m.content ?? '';
      row.result = content;
      if (content.startsWith('Permission denied:')) row.status = 'denied';
      else if (/^Error\b/.test(content) || /Exit code: [1-9]\d*\s*$/.test(content)) row.status = 'error';
    }
  }
  return out;
}
