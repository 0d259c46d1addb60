// Edits you can review: the files a turn changed are listed in the panel,
// diffed against their pre-turn text, reverted (rejectFile) or kept
// (acceptFile); each turn starts a new review. Also: a permission question
// while the panel is hidden is a modal dialog.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { calcGo, openPanel, setup, vscode, waitFor } from './harness';
import type { Uri } from './mock-vscode';

const NEW_GO = 'package calc\n\n// Sub returns a minus b.\nfunc Sub(a, b int) int { return a - b }\n';

const script = `match Make Add add and give it a Sub.
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
call write_file {"path": "sub.go", "content": ${JSON.stringify(NEW_GO)}}
---
match Make Add add and give it a Sub.
expect tool Edited calc.go
text Done.
---
match Once more, and vet it.
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
match Once more, and vet it.
call bash {"command": "go vet ./..."}
---
match Once more, and vet it.
expect tool Exit code: 0
text Vetted.
`;

test('review: changed files listed, diffed, rejected back to the pre-turn text, accepted', async () => {
  const env = await setup({
    script,
    // Edits need no question: the settings reach the server as initializationOptions.
    settings: { 'reasonix.settings': { permissions: { allow: ['Edit'] } } },
  });
  try {
    const panel = await openPanel();
    const calc = path.join(env.root, 'calc.go');
    const sub = path.join(env.root, 'sub.go');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(calc));

    panel.send({ type: 'ask', prompt: 'Make Add add and give it a Sub.' });
    const done = await panel.next('event', (m) => m.event.kind === 'turn_done');
    assert.ok(done.event.kind === 'turn_done' && done.event.done.stop === 'done', JSON.stringify(done));
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(done));
    assert.deepEqual(panel.of('approval'), [], 'the Edit permission from reasonix.settings did not reach the server');
    const changed = await panel.next('changedFiles', (m) => m.files.length === 2);
    assert.deepEqual(changed.files, [
      { path: 'calc.go', status: 'modified' },
      { path: 'sub.go', status: 'created' },
    ]);
    assert.equal(doc.getText(), calcGo.replace('return a - b', 'return a + b'));
    assert.equal(vscode._test.document(sub)?.getText(), NEW_GO);

    // The diff: the pre-turn text on the left, the file on the right.
    panel.send({ type: 'openDiff', path: 'calc.go' });
    const diff = await waitFor('vscode.diff', () => vscode._test.executed.find((e) => e.id === 'vscode.diff'));
    const [left, right, title] = diff.args as [Uri, Uri, string];
    assert.equal(left.scheme, 'reasonix-before');
    assert.equal(right.toString(), vscode.Uri.file(calc).toString());
    assert.match(title, /calc\.go/);
    const before = await vscode.workspace.openTextDocument(left);
    assert.equal(before.getText(), calcGo);

    // Reject calc.go: the document and the file are as before the turn.
    let from = panel.posted().length;
    panel.send({ type: 'rejectFile', path: 'calc.go' });
    const afterReject = await panel.next('changedFiles', (m) => m.files.length === 1, from);
    assert.deepEqual(afterReject.files, [{ path: 'sub.go', status: 'created' }]);
    assert.equal(doc.getText(), calcGo);
    assert.equal(doc.isDirty, false);
    assert.equal(fs.readFileSync(calc, 'utf8'), calcGo);

    // Reject the created file: it is gone.
    from = panel.posted().length;
    panel.send({ type: 'rejectFile', path: 'sub.go' });
    await panel.next('changedFiles', (m) => m.files.length === 0, from);
    assert.equal(fs.existsSync(sub), false);

    // Next turn, with the panel hidden: the bash question is a modal dialog.
    panel.view.setVisible(false);
    vscode._test.answerMessage = (m) => (m.modal ? 'Allow once' : undefined);
    from = panel.posted().length;
    panel.send({ type: 'ask', prompt: 'Once more, and vet it.' });
    const done2 = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    assert.ok(done2.event.kind === 'turn_done' && done2.event.done.stop === 'done', JSON.stringify(done2));
    const modal = vscode._test.messages.filter((m) => m.modal);
    assert.equal(modal.length, 1);
    assert.match(modal[0].message, /go vet/);
    assert.deepEqual(modal[0].items, ['Allow once', 'Allow for session', 'Always allow', 'Deny']);
    // Deny closes the dialog, so VS Code adds no Cancel: four buttons.
    assert.equal(modal[0].closeAffordance, 'Deny');
    // A dialog shows Markdown as written: the command's backticks go.
    assert.doesNotMatch(modal[0].message, /`/);
    assert.deepEqual(panel.of('approval'), []);

    // The new turn's review holds only its own change; accept keeps it.
    const changed2 = await panel.next('changedFiles', (m) => m.files.length === 1, from);
    assert.deepEqual(changed2.files, [{ path: 'calc.go', status: 'modified' }]);
    from = panel.posted().length;
    panel.send({ type: 'acceptFile', path: 'calc.go' });
    await panel.next('changedFiles', (m) => m.files.length === 0, from);
    const fixed = calcGo.replace('return a - b', 'return a + b');
    assert.equal(doc.getText(), fixed);
    assert.equal(fs.readFileSync(calc, 'utf8'), fixed, 'saved before go vet ran');
  } finally {
    vscode._test.answerMessage = () => undefined;
    await env.close();
  }
  assert.deepEqual(vscode._test.errors, []);
});

const shellScript = `match Make Add add with sed.
call bash {"command": "sed -i 's/return a - b/return a + b/' calc.go && echo notes > notes.txt"}
---
match Make Add add with sed.
text Done.
`;

test('review: files a shell command changed are listed, diffed and reverted', async () => {
  const env = await setup({
    script: shellScript,
    settings: { 'reasonix.settings': { permissions: { allow: ['Bash'] } } },
  });
  try {
    const panel = await openPanel();
    const calc = path.join(env.root, 'calc.go');
    panel.send({ type: 'ask', prompt: 'Make Add add with sed.' });
    const done = await panel.next('event', (m) => m.event.kind === 'turn_done');
    assert.ok(done.event.kind === 'turn_done' && done.event.done.stop === 'done', JSON.stringify(done));
    assert.deepEqual(
      done.event.done.changes?.map((c) => `${c.path} ${c.status} ${c.source}`),
      ['calc.go modified shell', 'notes.txt created shell'],
    );

    // The server's file_changed events carry the text before the turn.
    const events = panel.of('event').flatMap((m) => (m.event.kind === 'file_changed' ? [m.event.file] : []));
    const calcChange = events.find((f) => f.path === 'calc.go');
    assert.equal(calcChange?.source, 'shell');
    assert.equal(calcChange?.before, calcGo);

    const changed = await panel.next('changedFiles', (m) => m.files.length === 2);
    assert.deepEqual(changed.files, [
      { path: 'calc.go', status: 'modified' },
      { path: 'notes.txt', status: 'created' },
    ]);

    panel.send({ type: 'openDiff', path: 'calc.go' });
    const diff = await waitFor('vscode.diff', () => vscode._test.executed.find((e) => e.id === 'vscode.diff'));
    const [left] = diff.args as [Uri];
    assert.equal((await vscode.workspace.openTextDocument(left)).getText(), calcGo);

    // Reject: the file is as before the turn, on disk too.
    const from = panel.posted().length;
    panel.send({ type: 'rejectFile', path: 'calc.go' });
    const after = await panel.next('changedFiles', (m) => m.files.length === 1, from);
    assert.deepEqual(after.files, [{ path: 'notes.txt', status: 'created' }]);
    assert.equal(fs.readFileSync(calc, 'utf8'), calcGo);
  } finally {
    await env.close();
  }
  assert.deepEqual(vscode._test.errors, []);
});

test('review: a file a shell command changed and then made a link out of the workspace is not reverted through the link', async () => {
  const env = await setup({
    script: shellScript,
    settings: { 'reasonix.settings': { permissions: { allow: ['Bash'] } } },
  });
  const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-outside-')), 'target.txt');
  try {
    const panel = await openPanel();
    const calc = path.join(env.root, 'calc.go');
    panel.send({ type: 'ask', prompt: 'Make Add add with sed.' });
    await panel.next('changedFiles', (m) => m.files.length === 2);

    // What a later command could do: calc.go becomes a link out.
    fs.writeFileSync(outside, 'untouched\n');
    fs.rmSync(calc);
    fs.symlinkSync(outside, calc);
    const from = panel.posted().length;
    panel.send({ type: 'rejectFile', path: 'calc.go' });
    const refused = await panel.next('error', () => true, from);
    assert.match(refused.message, /calc\.go now leads to .*outside the workspace/);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'untouched\n');
    assert.ok(fs.lstatSync(calc).isSymbolicLink());
  } finally {
    fs.rmSync(path.dirname(outside), { recursive: true, force: true });
    await env.close();
  }
});
