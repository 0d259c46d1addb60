// Restore to before a turn, from the panel against the real server: a
// two-turn session (turn 1 edits the open calc.go, turn 2 creates
// notes.txt with a shell command); the preview says what happens to each
// file and changes nothing; the rewind puts calc.go's document back and
// removes notes.txt; the panel is told the plan, paths relative.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { calcGo, openPanel, setup, vscode } from './harness';

const FIXED = calcGo.replace('return a - b', 'return a + b');

const script = `match fix Add
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
match fix Add
text Add adds now.
---
match write notes
call bash {"command": "printf 'remember the sign\\\\n' > notes.txt"}
---
match write notes
text Wrote notes.txt.
---
match start over
text Starting over.
`;

test('rewind: the preview, then the files and the document back to before turn 1', async () => {
  const env = await setup({
    script,
    settings: { 'reasonix.settings': { permissions: { allow: ['Edit'] } } },
  });
  try {
    const panel = await openPanel();
    const calc = path.join(env.root, 'calc.go');
    const notes = path.join(env.root, 'notes.txt');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(calc));
    for (const prompt of ['fix Add', 'write notes']) {
      const from = panel.posted().length;
      panel.send({ type: 'ask', prompt });
      if (prompt === 'write notes') {
        // A redirection is never allowed by a rule: the command is asked about.
        const asked = await panel.next('approval', () => true, from);
        panel.send({ type: 'approve', id: asked.id, action: 'Allow once' });
      }
      const done = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
      assert.ok(done.event.kind === 'turn_done' && done.event.done.stop === 'done', JSON.stringify(done));
      await panel.next('state', (m) => !m.running, panel.posted().indexOf(done));
    }
    assert.equal(doc.getText(), FIXED);
    assert.equal(fs.readFileSync(notes, 'utf8'), 'remember the sign\n');

    let from = panel.posted().length;
    panel.send({ type: 'rewindPreview', turn: 1 });
    const preview = await panel.next('rewindPreview', () => true, from);
    assert.equal(preview.plan.done, false);
    assert.deepEqual(preview.plan.turns, [1, 2]);
    const actions = Object.fromEntries(preview.plan.files.map((f) => [f.path, f.action]));
    assert.deepEqual(actions, { 'calc.go': 'restore', 'notes.txt': 'remove' });
    assert.equal(doc.getText(), FIXED, 'a preview changes nothing');
    assert.ok(fs.existsSync(notes), 'a preview changes nothing');

    from = panel.posted().length;
    panel.send({ type: 'rewind', turn: 1 });
    const rewound = await panel.next('rewound', () => true, from);
    assert.equal(rewound.plan.done, true);
    assert.deepEqual(Object.fromEntries(rewound.plan.files.map((f) => [f.path, f.action])), actions);
    assert.equal(doc.getText(), calcGo, 'the document is back to before turn 1');
    assert.equal(fs.existsSync(notes), false, 'the file the shell created is gone');
    assert.deepEqual(panel.of('rewindFailed'), []);
    // The panel tells the outcome (its notice); no notification repeats it.
    assert.deepEqual(
      vscode._test.messages.filter((m) => m.message.includes('Rewound to before turn')).map((m) => m.message),
      [],
    );

    // The turns are gone: rewinding to one of them again is refused, and the panel says why.
    from = panel.posted().length;
    panel.send({ type: 'rewindPreview', turn: 2 });
    const failed = await panel.next('rewindFailed', () => true, from);
    assert.equal(failed.turn, 2);
    assert.ok(failed.message.length > 0);

    // Turn numbers are not reused: the next turn is 3, and a resumed
    // session's prompts carry the server's numbers for the panel.
    from = panel.posted().length;
    panel.send({ type: 'ask', prompt: 'start over' });
    const next = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    assert.equal(next.event.turn, 3);
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(next));
    from = panel.posted().length;
    panel.send({ type: 'resumeSession', sessionId: next.event.sessionId });
    const resumed = await panel.next('resumed', () => true, from);
    assert.deepEqual(resumed.turns, [3]);
    assert.deepEqual(
      resumed.messages.filter((m) => m.role === 'user').map((m) => m.content),
      ['start over'],
    );
  } finally {
    await env.close();
  }
  assert.deepEqual(vscode._test.errors, []);
});
