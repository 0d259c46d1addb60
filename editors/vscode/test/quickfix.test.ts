// The quick fix, end to end: the light bulb's code action comes from the
// server through the real language client, its reasonix.start command
// runs, both permission questions are answered in the panel, the edit
// lands in the editor's document, reasonix/saveDocuments saves it before
// `go test` runs, and the module's tests pass.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { calcGo, eventKinds, openPanel, setup, vscode, waitFor } from './harness';

const script = `match Fix this problem in calc.go
expect user TestAdd fails: Add(2, 3) = -1, want 5
call read_file {"path": "calc.go"}
---
match Fix this problem in calc.go
expect tool return a - b
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
match Fix this problem in calc.go
expect tool Edited calc.go
call bash {"command": "go test ./..."}
---
match Fix this problem in calc.go
expect tool ok  \texample.com/calc
expect tool Exit code: 0
text Add subtracted its arguments; it adds them now and the tests pass.
`;

test('the quick fix: code action, approvals in the panel, edit applied and saved, go test passes', async () => {
  const env = await setup({ script });
  try {
    const panel = await openPanel();
    const file = path.join(env.root, 'calc.go');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc);

    // What gopls would report; the light bulb asks the registered provider.
    const range = new vscode.Range(4, 1, 4, 13);
    const diagnostic = new vscode.Diagnostic(range, 'TestAdd fails: Add(2, 3) = -1, want 5', vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'go test';
    const [registration] = vscode._test.codeActionProviders;
    const actions = await registration.provider.provideCodeActions(
      doc,
      range,
      { diagnostics: [diagnostic], triggerKind: vscode.CodeActionTriggerKind.Invoke, only: undefined },
      new vscode.CancellationTokenSource().token,
    );
    const fix = actions.find((a: { title: string }) => a.title.startsWith('Ask Reasonix to fix'));
    assert.ok(fix, `no fix among ${JSON.stringify(actions.map((a: { title: string }) => a.title))}`);
    assert.equal(fix.kind?.value, 'quickfix');
    assert.equal(fix.command?.command, 'reasonix.start');

    // Running it as VS Code does: the command the client registered.
    const started = await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    assert.ok(started?.sessionId, `reasonix.start answered ${JSON.stringify(started)}`);

    // Two questions (the edit, the command), answered on the panel's cards.
    const answered = new Set<string>();
    const done = waitFor('the turn to end', () =>
      panel.of('event').find((m) => m.event.kind === 'turn_done' && m.event.sessionId === started.sessionId),
    );
    while (answered.size < 2) {
      const q = await panel.next('approval', (m) => !answered.has(m.id));
      assert.equal(q.request.sessionId, started.sessionId);
      assert.deepEqual(q.request.actions, ['Allow once', 'Allow for session', 'Always allow', 'Deny']);
      answered.add(q.id);
      panel.send({ type: 'approve', id: q.id, action: 'Allow once' });
      await panel.next('approvalDone', (m) => m.id === q.id);
    }
    const end = await done;
    assert.equal(end.event.kind === 'turn_done' && end.event.done.stop, 'done', `events ${eventKinds(panel.posted()).join(',')}`);
    const tools = panel.of('event').flatMap((m) => (m.event.kind === 'tool_result' ? [m.event.tool] : []));
    assert.deepEqual(tools.map((t) => t.name), ['read_file', 'edit_file', 'bash']);
    assert.ok(tools.every((t) => !t.isError), JSON.stringify(tools));

    // The edit is in the editor's document, and it was saved before bash ran.
    const want = calcGo.replace('return a - b', 'return a + b');
    assert.equal(doc.getText(), want);
    assert.equal(doc.isDirty, false);
    assert.equal(fs.readFileSync(file, 'utf8'), want);
    assert.deepEqual(vscode._test.saves.filter((s) => s === file).length, 1);
    assert.equal(vscode._test.messages.filter((m) => m.modal).length, 0, 'a modal dialog was shown while the panel was visible');

    // The review lists the file; its pre-turn text is the file as it was.
    const changed = await panel.next('changedFiles', (m) => m.files.length > 0);
    assert.deepEqual(changed.files, [{ path: 'calc.go', status: 'modified' }]);

    // And the module's tests pass on disk.
    const out = execFileSync('go', ['test', './...'], { cwd: env.root, encoding: 'utf8', env: { ...process.env, GOFLAGS: '-count=1' } });
    assert.match(out, /^ok\s+example\.com\/calc/m);

    // The status bar shows the session's numbers after the turn.
    const item = vscode._test.statusBarItems.find((i) => !i.disposed);
    assert.match(item?.text ?? '', /Reasonix.*% cache/);
  } finally {
    await env.close();
  }
});
