// Slash commands typed in the panel, against the real server: the panel's
// requestCommands lists the built-ins and the workspace's custom commands;
// a custom command is expanded by the server, its @ reference attached;
// /help answers without the model; /new and /clear switch the chat to a
// new session, /clear once the user confirms it on the panel's card.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calcGo, openPanel, setup } from './harness';

const script = `expect user Review @calc.go for bugs.
expect user <file path="calc.go">
expect user return a - b
text One bug: Add subtracts.
`;

test('the panel: slash commands run by the server', async () => {
  const env = await setup({
    script,
    files: {
      'go.mod': 'module example.com/calc\n\ngo 1.21\n',
      'calc.go': calcGo,
      '.reasonix/commands/review.md': '---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\nReview $1 for bugs.\n',
    },
  });
  try {
    const panel = await openPanel();
    panel.send({ type: 'ready' });
    await panel.next('state');

    // The menu's list: the built-ins, then the project's command.
    panel.send({ type: 'requestCommands' });
    const listed = await panel.next('commands');
    assert.equal(listed.error, undefined);
    const names = listed.commands.map((c) => c.name);
    for (const n of ['/help', '/new', '/clear', '/model', '/cost', '/mcp', '/compact']) assert.ok(names.includes(n), `no ${n} in ${names.join(' ')}`);
    assert.deepEqual(
      listed.commands.find((c) => c.name === '/review'),
      { name: '/review', description: 'Review a file for bugs', argumentHint: 'FILE', source: 'project' },
    );

    // A custom command: the server expands it and attaches calc.go (the script checks).
    let from = panel.posted().length;
    panel.send({ type: 'ask', prompt: '/review @calc.go', attach: null });
    const reviewed = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    assert.ok(reviewed.event.kind === 'turn_done' && reviewed.event.done.text === 'One bug: Add subtracts.', JSON.stringify(reviewed));
    const first = reviewed.event.sessionId;
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(reviewed));

    // /help: answered without the model, as a built-in's result.
    from = panel.posted().length;
    panel.send({ type: 'ask', prompt: '/help', attach: null });
    const help = await panel.next('event', (m) => m.event.kind === 'turn_done', from);
    assert.ok(help.event.kind === 'turn_done' && help.event.done.action?.kind === 'help', JSON.stringify(help));
    assert.match(help.event.done.text, /\/review +FILE +Review a file for bugs \(project\)/);
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(help));

    // /new: the chat moves to a new session; the first stays saved.
    from = panel.posted().length;
    panel.send({ type: 'ask', prompt: '/new', attach: null });
    const started = await panel.next('sessionStarted', () => true, from);
    assert.notEqual(started.sessionId, first);
    assert.match(started.text, new RegExp(`session ${first} stays saved`));
    await panel.next('state', (m) => !m.running && m.sessionId === started.sessionId, from);

    // /clear: a card with the question's own answers; keeping changes nothing.
    from = panel.posted().length;
    panel.send({ type: 'ask', prompt: '/clear', attach: null });
    const card = await panel.next('approval', () => true, from);
    assert.deepEqual(card.request.actions, ['Clear conversation', 'Keep it']);
    panel.send({ type: 'approve', id: card.id, action: 'Keep it' });
    const kept = await panel.next('notice', () => true, from);
    assert.equal(kept.text, 'The conversation was kept.');
    await panel.next('state', (m) => !m.running && m.sessionId === started.sessionId, panel.posted().indexOf(kept));

    from = panel.posted().length;
    panel.send({ type: 'ask', prompt: '/clear', attach: null });
    const again = await panel.next('approval', () => true, from);
    panel.send({ type: 'approve', id: again.id, action: 'Clear conversation' });
    const cleared = await panel.next('sessionStarted', () => true, from);
    assert.notEqual(cleared.sessionId, started.sessionId);
    assert.match(cleared.text, /was deleted/);
    assert.deepEqual(panel.of('error'), []);
  } finally {
    await env.close();
  }
});
