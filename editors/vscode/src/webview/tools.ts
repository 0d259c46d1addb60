// A tool call as one compact row: status, the call in a few words, how
// far along it is while it runs, then the result's summary and duration;
// the result itself folded underneath.
import { h } from './dom';
import { formatDuration } from './format';
import type { ToolEntry, ToolStatus } from './state';

/** Results longer than this are cut: the row is a glance, not a log. */
export const RESULT_CAP = 2000;

const STATUS: Record<ToolStatus, { icon: string; label: string }> = {
  running: { icon: '', label: 'running' },
  ok: { icon: '✓', label: 'succeeded' },
  error: { icon: '✗', label: 'failed' },
  denied: { icon: '⊘', label: 'denied' },
  stopped: { icon: '■', label: 'stopped' },
};

export function renderTool(e: ToolEntry): HTMLElement {
  const st = STATUS[e.status];
  const summary = e.status === 'denied' ? 'denied' : e.summary;
  const row = h(
    'summary',
    { class: 'tool-row' },
    h('span', { class: 'tool-status', attrs: { role: 'img', 'aria-label': st.label, title: st.label } }, st.icon),
    h('span', { class: 'tool-title', attrs: { title: e.title } }, e.title),
    e.status === 'running' && e.progress ? h('span', { class: 'tool-progress', attrs: { title: e.progress } }, e.progress) : null,
    summary ? h('span', { class: 'tool-summary' }, summary) : null,
    h('span', { class: 'tool-duration' }, formatDuration(e.durationMs)),
  );
  let body: HTMLElement;
  if (e.result) {
    const cut = e.result.length > RESULT_CAP;
    body = h('pre', { class: 'tool-result' }, cut ? e.result.slice(0, RESULT_CAP) : e.result);
    if (cut) body.appendChild(h('span', { class: 'tool-cut' }, `\n… ${e.result.length - RESULT_CAP} more characters`));
  } else {
    body = h('div', { class: 'tool-result tool-empty' }, e.status === 'running' ? 'Running…' : 'No output.');
  }
  // A sub-task's calls are indented under the task's row.
  const attrs = { 'data-status': e.status, 'data-call-id': e.callId, 'data-parent': e.parent };
  return h('details', { class: e.parent ? 'tool tool-nested' : 'tool', attrs }, row, body);
}
