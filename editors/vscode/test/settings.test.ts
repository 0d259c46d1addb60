// Settings pushed on change (workspace/didChangeConfiguration with the
// same object as initializationOptions), and the extension's commands:
// askSelection, newSession, stop, restartServer.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { openPanel, setup, vscode, waitFor } from './harness';

const script = `match First question.
expect request "model":"deepseek-flash"
call bash {"command": "echo one"}
---
match First question.
expect tool one
text One.
---
match Second question.
expect request "model":"other-model"
call bash {"command": "echo two"}
---
match Second question.
expect tool two
text Two.
---
match What is this?
expect user The user's selection in calc.go
expect user func Add(a, b int) int {
text A function.
---
match Take your time.
delay 150ms
text Slowly, one piece after another, the answer arrives; there is more of
text it than anyone would wait for, line after line after line, so that
text stopping it is the only way it ends within this test's time.
`;

test('settings changes are pushed to the server and apply to the next turn', async () => {
  const env = await setup({
    script,
    toml: (url) => `
[[providers]]
name = "other"
base_url = ${JSON.stringify(url)}
model = "other-model"
options = { retry_base_ms = 10 }
`,
  });
  try {
    const panel = await openPanel();
    // Turn 1 asks about bash: answered in the panel.
    const answering = panel.view.webview.onPost.event((m: { type: string; id: string }) => {
      if (m.type === 'approval') panel.send({ type: 'approve', id: m.id, action: 'Allow once' });
    });
    panel.send({ type: 'ask', prompt: 'First question.' });
    const one = await panel.next('event', (m) => m.event.kind === 'turn_done');
    assert.ok(one.event.kind === 'turn_done' && one.event.done.text === 'One.', JSON.stringify(one));
    assert.equal(panel.of('approval').length, 1);
    answering.dispose();
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(one));

    // New settings: another model, and bash allowed. Pushed, not restarted.
    const client = env.controller.client;
    vscode._test.setConfiguration('reasonix.settings', { permissions: { allow: ['Bash'] } });
    vscode._test.setConfiguration('reasonix.model', 'other');
    assert.equal(env.controller.client, client, 'a settings change restarted the server');
    let from = panel.posted().length;
    panel.send({ type: 'newSession' });
    const state = await panel.next('state', (m) => m.model === 'other/other-model', from);
    from = panel.posted().length;
    panel.send({ type: 'ask', prompt: 'Second question.' });
    const two = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    assert.ok(two.event.kind === 'turn_done' && two.event.done.text === 'Two.', JSON.stringify(two));
    assert.equal(two.event.sessionId, state.sessionId);
    assert.equal(panel.of('approval').length, 1, 'Bash was asked again: the pushed permissions did not apply');
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(two));

    // reasonix.askSelection: the selection goes with the prompt.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(env.root, 'calc.go')));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(3, 0, 3, 24) });
    vscode._test.answerInput = () => 'What is this?';
    const result = await vscode.commands.executeCommand('reasonix.askSelection');
    assert.equal(result?.text, 'A function.', JSON.stringify(vscode._test.messages));

    // reasonix.stop ends a slow turn; reasonix.newSession starts over.
    from = panel.posted().length;
    vscode._test.answerInput = () => 'Take your time.';
    const slow = vscode.commands.executeCommand('reasonix.askSelection');
    await panel.next('event', (m) => m.event.kind === 'text', from);
    assert.match(vscode._test.statusBarItems.find((i) => !i.disposed)?.text ?? '', /sync~spin/);
    assert.equal(await vscode.commands.executeCommand('reasonix.stop'), true);
    const stopped = await slow;
    assert.equal(stopped?.stop, 'cancelled');
    const before = env.controller.client;
    const sessionBefore = panel.of('state').at(-1)?.sessionId;
    await vscode.commands.executeCommand('reasonix.newSession');
    assert.notEqual(panel.of('state').at(-1)?.sessionId, sessionBefore);

    // reasonix.restartServer: a new server process, which works.
    await vscode.commands.executeCommand('reasonix.restartServer');
    assert.ok(env.controller.client && env.controller.client !== before);
    from = panel.posted().length;
    panel.send({ type: 'listSessions' });
    const list = await panel.next('sessions', () => true, from);
    // The sessions that had turns are listed; the one newSession started
    // just before the restart had none, so the server kept no file for it.
    const titles = list.list.map((s) => s.title);
    assert.ok(titles.includes('First question.') && titles.includes('Second question.'), JSON.stringify(list));
    assert.ok(list.list.every((s) => s.turns > 0), JSON.stringify(list));
    await waitFor('no error shown', () => vscode._test.messages.every((m) => m.level !== 'error'));
  } finally {
    vscode._test.answerInput = () => undefined;
    await env.close();
  }
  assert.deepEqual(vscode._test.errors, []);
});

const takeBackScript = `match Run it.
call bash {"command": "echo allowed"}
---
match Run it.
expect tool allowed
text Ran.
---
match Run it again.
call bash {"command": "echo again"}
---
match Run it again.
expect tool Permission denied
text Refused.
`;

test('a permission taken back in the settings holds in the chat already open', async () => {
  const env = await setup({
    script: takeBackScript,
    // reasonix.model back to its default: the test before set it.
    settings: { 'reasonix.settings': { permissions: { allow: ['Bash'] } }, 'reasonix.model': '' },
  });
  try {
    const panel = await openPanel();
    panel.send({ type: 'ask', prompt: 'Run it.' });
    const one = await panel.next('event', (m) => m.event.kind === 'turn_done');
    assert.ok(one.event.kind === 'turn_done' && one.event.done.text === 'Ran.', JSON.stringify(one));
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(one));

    // The user takes Bash back; the chat goes on in the same session.
    vscode._test.setConfiguration('reasonix.settings', { permissions: { deny: ['Bash'] } });
    const from = panel.posted().length;
    panel.send({ type: 'ask', prompt: 'Run it again.' });
    const two = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    assert.ok(two.event.kind === 'turn_done' && two.event.done.text === 'Refused.', JSON.stringify(two));
    assert.equal(two.event.sessionId, one.event.sessionId, 'the chat moved to another session');
    assert.deepEqual(panel.of('approval'), [], 'a denied command was asked about');
  } finally {
    await env.close();
  }
  assert.deepEqual(vscode._test.errors, []);
});
