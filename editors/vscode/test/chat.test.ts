// The chat panel's messages against the real server: ask streams events
// to the panel and ends with the turn's result, the selection is attached,
// @ completion lists workspace files, sessions are listed, created and
// resumed, and stop ends a slow turn at once.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import type { ReasonixEvent } from '../src/protocol';
import { eventKinds, openPanel, setup, vscode, waitFor } from './harness';

const QUESTION = 'What does Add do?';
const SLOW = 'Walk me through every test, slowly.';
const AFTER = 'Still there?';

const script = `match ${QUESTION}
expect user The user's selection in calc.go
expect user return a - b
reasoning The selection is Add's body.
text Add returns a minus b,
text although its comment says it returns the sum.
---
match ${SLOW}
delay 150ms
text TestAdd calls Add(2, 3) and wants 5. It fails because Add subtracts.
text Each line of this answer takes a while to arrive, so that the test
text has time to press stop while the answer is still streaming, long
text before it would end by itself. More words, and more words, and more
text words follow here, one chunk at a time, slowly, for several seconds.
---
match ${AFTER}
text Yes.
`;

test('the panel: ask streams events, sessions, @ files, and stop', async () => {
  const env = await setup({ script });
  try {
    const panel = await openPanel();
    panel.send({ type: 'ready' });
    const initial = await panel.next('state');
    assert.equal(initial.sessionId, null);

    // A question about the selection.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(env.root, 'calc.go')));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(4, 0, 4, 13) });
    const from = panel.posted().length;
    panel.send({ type: 'ask', prompt: QUESTION, attach: 'selection' });
    const running = await panel.next('state', (m) => m.running, from);
    assert.ok(running.sessionId, 'a session was created for the first question');
    const sessionId = running.sessionId;
    const done = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    const events = panel.posted().slice(from).flatMap((m) => (m.type === 'event' ? [m.event] : []));
    const kinds = eventKinds(panel.posted().slice(from));
    assert.equal(kinds[0], 'turn_start', kinds.join(','));
    for (const k of ['reasoning', 'text', 'usage', 'turn_done']) assert.ok(kinds.includes(k), `no ${k} in ${kinds.join(',')}`);
    const text = events.filter((e): e is Extract<ReasonixEvent, { kind: 'text' }> => e.kind === 'text');
    assert.ok(text.length > 1, 'the answer was not streamed in pieces');
    assert.equal(text.map((e) => e.text).join(''), 'Add returns a minus b,\nalthough its comment says it returns the sum.');
    assert.ok(done.event.kind === 'turn_done' && done.event.done.stop === 'done');
    assert.equal(done.event.sessionId, sessionId);
    const idle = await panel.next('state', (m) => !m.running, panel.posted().indexOf(done));
    assert.equal(idle.sessionId, sessionId);
    assert.deepEqual(panel.of('error'), []);

    // @ completion.
    panel.send({ type: 'requestFiles', prefix: 'calc' });
    const files = await panel.next('files');
    assert.deepEqual(files.items.map((f) => f.path).sort(), ['calc.go', 'calc_test.go']);
    panel.send({ type: 'requestFiles', prefix: '' });
    const all = await panel.next('files', (m) => m.items.length > 2);
    assert.ok(all.items.some((f) => f.path === 'go.mod'));

    // Stop during a slow turn.
    const slowFrom = panel.posted().length;
    panel.send({ type: 'ask', prompt: SLOW });
    await panel.next('event', (m) => m.event.kind === 'text', slowFrom);
    const stopAt = Date.now();
    panel.send({ type: 'stop' });
    const stopped = await panel.next('event', (m) => m.event.kind === 'turn_done', slowFrom);
    const stoppedMs = Date.now() - stopAt;
    assert.ok(stopped.event.kind === 'turn_done' && stopped.event.done.stop === 'cancelled', JSON.stringify(stopped));
    assert.ok(stoppedMs < 2000, `stop took ${stoppedMs} ms`);
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(stopped));
    // The status bar stops spinning.
    const item = vscode._test.statusBarItems.find((i) => !i.disposed);
    await waitFor('the spinner to stop', () => !item?.text.includes('sync~spin'));

    // The session goes on after a stop.
    const afterFrom = panel.posted().length;
    panel.send({ type: 'ask', prompt: AFTER });
    const after = await panel.next('event', (m) => m.event.kind === 'turn_done', afterFrom);
    assert.ok(after.event.kind === 'turn_done' && after.event.done.text === 'Yes.' && after.event.sessionId === sessionId);

    // Sessions: list, new, resume.
    panel.send({ type: 'listSessions' });
    const list = await panel.next('sessions');
    assert.equal(list.list.length, 1);
    assert.equal(list.list[0].id, sessionId);
    assert.equal(list.list[0].turns, 3);
    panel.send({ type: 'newSession' });
    const fresh = await panel.next('state', (m) => m.sessionId !== null && m.sessionId !== sessionId);
    panel.send({ type: 'resumeSession', sessionId });
    const resumed = await panel.next('resumed');
    assert.equal(resumed.sessionId, sessionId);
    const users = resumed.messages.filter((m) => m.role === 'user').map((m) => m.content ?? '');
    assert.equal(users.length, 3);
    assert.ok(users[0].startsWith(QUESTION));
    assert.equal(resumed.messages.at(-1)?.content, 'Yes.');
    const back = await panel.next('state', (m) => m.sessionId === sessionId, panel.posted().indexOf(resumed));
    assert.notEqual(back.sessionId, fresh.sessionId);
    // A session that does not exist is an error message, not a crash.
    panel.send({ type: 'resumeSession', sessionId: 'no-such-session' });
    await panel.next('error');
  } finally {
    await env.close();
  }
  assert.deepEqual(vscode._test.errors, []);
});
