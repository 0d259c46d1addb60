// The agent's questions and memory against the real server: a question
// is a card in the panel, answered with an option or in the user's own
// words, or a QuickPick when the panel is hidden; saving a note is a
// permission card showing the note, asked even though the rules allow
// everything; reasonix.showMemory lists the notes and opens one.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { MemoryNoteItem } from '../src/commands';
import type { ExtensionToPanel } from '../src/messages';
import { openPanel, setup, vscode } from './harness';

/** The QuickPick item for an answer of one's own (OWN_ANSWER in src/questions.ts). */
const OWN_ANSWER = 'Answer in my own words…';
const PROMPT = 'Drop the v1 endpoint?';
const HIDDEN = 'And the docs?';
const QUICK = 'Anything else?';

const script = `match ${PROMPT}
call ask {"question": "Keep /v1 for one more release?", "options": ["Keep it, deprecated", "Remove it now"]}
---
expect tool The user picked: Keep it, deprecated
call ask {"question": "Until when?", "options": ["June", "December"]}
---
expect tool The user answered, in their own words: until the 2.0 release
call remember {"scope": "project", "name": "api-policy", "description": "When old API versions go", "content": "Deprecated endpoints stay until the next major release."}
---
expect tool Saved the note project/api-policy
text Kept /v1 until 2.0, and noted the policy.
---
match ${QUICK}
text Nothing else.
---
match ${HIDDEN}
call ask {"question": "Rewrite the docs too?", "options": ["Yes", "No"]}
---
expect tool The user answered, in their own words: only the changelog
text Only the changelog, then.
`;

test('questions and memory: cards, a QuickPick, a note saved with approval, and the memory list', async () => {
  const env = await setup({ script, toml: '[permissions]\nmode = "allow"\napproval = "yolo"\nallow = ["remember"]\n' });
  try {
    const panel = await openPanel();
    panel.send({ type: 'ready' });
    let from = panel.posted().length;
    // The next prompt goes the moment the panel sees turn_done, before the
    // turn's command has answered, as a quick user would send it: it waits
    // for that answer instead of failing.
    const quick = panel.view.webview.onPost.event((m: ExtensionToPanel) => {
      if (m.type !== 'event' || m.event.kind !== 'turn_done') return;
      quick.dispose();
      panel.send({ type: 'ask', prompt: QUICK });
    });
    panel.send({ type: 'ask', prompt: PROMPT });

    // The first question: an option.
    const q1 = await panel.next('question', () => true, from);
    assert.equal(q1.request.question, 'Keep /v1 for one more release?');
    assert.deepEqual(q1.request.options, ['Keep it, deprecated', 'Remove it now']);
    assert.equal(q1.request.allowText, true);
    panel.send({ type: 'answer', id: q1.id, answer: 'Keep it, deprecated' });
    const done1 = await panel.next('questionDone', (m) => m.id === q1.id, from);
    assert.equal(done1.answer, 'Keep it, deprecated');

    // The second: in the user's own words.
    const q2 = await panel.next('question', (m) => m.id !== q1.id, from);
    panel.send({ type: 'answer', id: q2.id, answer: '  until the 2.0 release ' });

    // Saving the note is asked, with the note shown, whatever the rules.
    const approval = await panel.next('approval', () => true, from);
    assert.equal(approval.request.tool, 'remember');
    assert.match(approval.request.message, /Save the note project\/api-policy/);
    assert.match(approval.request.message, /Deprecated endpoints stay until the next major release\./);
    assert.match(approval.request.message, /asked each time/);
    panel.send({ type: 'approve', id: approval.id, action: 'Allow once' });
    const done = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    assert.ok(done.event.kind === 'turn_done' && done.event.done.stop === 'done', JSON.stringify(done));
    const note = path.join(env.root, '.reasonix', 'memory', 'api-policy.md');
    assert.match(fs.readFileSync(note, 'utf8'), /Deprecated endpoints stay/);
    const quickDone = await panel.next('event', (m) => m.event.kind === 'turn_done' && m.event.done.text === 'Nothing else.', from);
    assert.equal(quickDone.event.sessionId, done.event.sessionId);
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(quickDone));
    assert.deepEqual(panel.of('error'), []);
    assert.equal(vscode._test.messages.filter((m) => m.modal).length, 0, 'a modal dialog was shown while the panel was visible');

    // With the panel hidden, the question is a QuickPick, and its last
    // item lets the user type.
    panel.view.setVisible(false);
    vscode._test.answerQuickPick = (p) => (String(p.options.title).startsWith('Reasonix asks') ? OWN_ANSWER : p.items[0]);
    vscode._test.answerInput = () => 'only the changelog';
    from = panel.posted().length;
    panel.send({ type: 'ask', prompt: HIDDEN });
    const done2 = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    assert.ok(done2.event.kind === 'turn_done' && done2.event.done.text === 'Only the changelog, then.', JSON.stringify(done2));
    const pick = vscode._test.quickPicks.at(-1)!;
    assert.equal(pick.options.title, 'Reasonix asks: Rewrite the docs too?');
    assert.deepEqual(pick.items, ['Yes', 'No', OWN_ANSWER]);
    assert.deepEqual(panel.of('question').length, 2);

    // The memory: listed, and the picked note opened.
    vscode._test.answerQuickPick = (p) => p.items[0];
    const picked = (await vscode.commands.executeCommand('reasonix.showMemory')) as MemoryNoteItem | undefined;
    const list = vscode._test.quickPicks.at(-1)!;
    assert.equal(list.options.title, 'Reasonix: Memory');
    assert.deepEqual(
      list.items.map((i: MemoryNoteItem) => [i.label, i.description, i.detail]),
      [['project/api-policy', 'When old API versions go', note]],
    );
    assert.equal(picked?.note.name, 'api-policy');
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, note);
  } finally {
    vscode._test.answerQuickPick = (p) => p.items[0];
    vscode._test.answerInput = () => undefined;
    await env.close();
  }
  assert.deepEqual(vscode._test.errors, []);
});
