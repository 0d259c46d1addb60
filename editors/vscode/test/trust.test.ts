// Workspace trust, against the real server: a folder whose reasonix.toml
// adds an MCP server is opened untrusted; the server's question is a
// modal warning whose detail lists the entry; dismissing it keeps the
// server off; Reasonix: Review Workspace Trust asks again, and "Trust and
// enable" starts it; Revoke Workspace Trust stops it. And, against
// stand-in servers, a dismissed question's answer is null, and a server
// without reasonix.trust is reported as too old for the commands.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
// The harness first: it installs the mocked `vscode` that src/ requires.
import { loadExtension, makeContext, pluginExampleBinary, setup, vscode, waitFor } from './harness';
import { TRUST_ACTIONS, type TrustResult } from '../src/protocol';
import { isTrustQuestion } from '../src/trust';
import { writeFakeServer } from './fake-server';
import type { ShownMessage } from './mock-vscode';

const HEADING = 'comes with configuration that takes effect only once you trust it:';

const trustQuestions = () => vscode._test.messages.filter((m) => m.modal && m.message.endsWith(HEADING));

test('the trust question is a modal warning; Review trusts, and the MCP server starts; Revoke stops it', async () => {
  const marks = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-trust-mark-'));
  const marker = path.join(marks, 'started');
  // An MCP server that leaves a mark when it starts, then serves.
  const toml = `
[[plugins]]
name = "marker"
command = "sh"
args = ["-c", "touch \\"$0\\" && exec \\"$1\\"", ${JSON.stringify(marker)}, ${JSON.stringify(pluginExampleBinary())}]
`;
  let answer: string | undefined; // the first question is dismissed (Escape)
  vscode._test.messages.length = 0;
  vscode._test.answerMessage = (m: ShownMessage) => (m.message.endsWith(HEADING) ? answer : undefined);
  const env = await setup({ script: 'text unused\n', toml, trust: false });
  try {
    const root = fs.realpathSync(env.root);
    const [asked] = await waitFor('the trust question', () => trustQuestions().length > 0 && trustQuestions());
    assert.deepEqual(
      { level: asked.level, message: asked.message, items: asked.items, close: asked.closeAffordance },
      { level: 'warning', message: `Reasonix: The workspace ${root} ${HEADING}`, items: [...TRUST_ACTIONS], close: 'Keep disabled' },
    );
    const detail = (asked.detail ?? '').split('\n');
    assert.match(detail[0], /^ {2}• MCP server "marker": runs sh -c .*started.* \(reasonix\.toml:2\)$/);
    assert.equal(detail.at(-1), 'Until then it is off, and everything else works without it.');
    assert.equal(detail.length, 2, asked.detail);
    assert.ok(
      !vscode._test.messages.some((m) => !m.modal && m.message.includes(HEADING)),
      `the question was also a notification: ${JSON.stringify(vscode._test.messages)}`,
    );

    // Dismissed: the folder's server is not among them, and never started.
    const off = await env.controller.mcpServers();
    assert.deepEqual(off.servers, []);
    assert.equal(fs.existsSync(marker), false, 'the untrusted MCP server started');

    // Review Workspace Trust asks again; trusting it starts the server.
    answer = 'Trust and enable';
    const granted = (await vscode.commands.executeCommand('reasonix.reviewTrust')) as TrustResult | undefined;
    assert.equal(trustQuestions().length, 2);
    assert.ok(granted, JSON.stringify(vscode._test.messages));
    assert.equal(granted.workspace, root);
    assert.equal(granted.trusted, true);
    assert.equal(granted.granted, true);
    assert.deepEqual(
      granted.items.map((i) => [i.what.startsWith('MCP server "marker": runs sh'), path.basename(i.at)]),
      [[true, 'reasonix.toml:2']],
    );
    assert.ok(vscode._test.messages.some((m) => m.level === 'information' && m.message === `Reasonix: you trust the configuration of ${root}: its own servers and settings are on.`));
    await waitFor('the trusted MCP server to start', () => fs.existsSync(marker));
    const on = await env.controller.mcpServers();
    assert.deepEqual(
      on.servers.map((s) => [s.name, s.state]),
      [['marker', 'connected']],
    );

    // Reviewed once trusted: the server says so; nothing is asked.
    vscode._test.messages.length = 0;
    const again = (await vscode.commands.executeCommand('reasonix.reviewTrust')) as TrustResult | undefined;
    assert.deepEqual([again?.trusted, again?.granted], [true, undefined]);
    await waitFor('the server to say it is trusted', () =>
      vscode._test.messages.find((m) => m.level === 'information' && m.message.includes(`you trust the configuration of ${root}, which brings:`)),
    );
    assert.equal(trustQuestions().length, 0);

    // Revoked: the server stops; whatever is asked next is kept off.
    answer = 'Keep disabled';
    vscode._test.messages.length = 0;
    const revoked = (await vscode.commands.executeCommand('reasonix.revokeTrust')) as TrustResult | undefined;
    assert.deepEqual([revoked?.trusted, revoked?.items.length], [false, 1]);
    assert.ok(
      vscode._test.messages.some(
        (m) => m.message === `Reasonix: forgot what you trusted in ${root}: its own servers and settings are off until you trust them again.`,
      ),
      JSON.stringify(vscode._test.messages),
    );
    assert.deepEqual((await env.controller.mcpServers()).servers, []);
    assert.deepEqual(
      vscode._test.messages.filter((m) => m.level === 'error'),
      [],
    );
  } finally {
    vscode._test.answerMessage = () => undefined;
    await env.close();
    fs.rmSync(marks, { recursive: true, force: true });
  }
  assert.deepEqual(vscode._test.errors, []);
});

test('a dismissed trust question answers null; a server without reasonix.trust is too old for the commands', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-trust-fake-'));
  const answerFile = path.join(dir, 'answer.json');
  const question = {
    type: 2,
    message: `Reasonix: The workspace ${dir} ${HEADING}\n  • provider "p": sends your prompts and the files the agent reads to http://127.0.0.1:1 (reasonix.toml:3)\nUntil then it is off, and everything else works without it.`,
    actions: TRUST_ACTIONS.map((title) => ({ title })),
  };
  const fake = writeFakeServer(dir, {
    version: '0.0.5',
    methods: ['reasonix/listSessions', 'reasonix/newSession', 'reasonix/resumeSession', 'reasonix/saveDocuments', 'reasonix/event'],
    onInitialized: `const r = await request('window/showMessageRequest', ${JSON.stringify(question)});
      require('fs').writeFileSync(${JSON.stringify(answerFile)}, JSON.stringify(r));`,
  });
  vscode._test.messages.length = 0;
  vscode._test.answerMessage = () => undefined; // Escape
  vscode._test.setWorkspaceFolders([dir]);
  vscode._test.setConfiguration('reasonix.path', fake);
  const extension = loadExtension();
  const context = makeContext(dir);
  try {
    await extension.activate(context);
    const answered = await waitFor('the answer', () => fs.existsSync(answerFile) && fs.readFileSync(answerFile, 'utf8'));
    assert.equal(answered, 'null');
    const [asked] = trustQuestions();
    assert.equal(asked?.detail?.split('\n')[0], '  • provider "p": sends your prompts and the files the agent reads to http://127.0.0.1:1 (reasonix.toml:3)');

    assert.equal(await vscode.commands.executeCommand('reasonix.reviewTrust'), undefined);
    const shown = await waitFor('the error', () => vscode._test.messages.find((m) => m.level === 'error'));
    assert.match(shown.message, /does not know workspace trust \(it lacks the command reasonix\.trust\)/);
  } finally {
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('isTrustQuestion: exactly the two actions, in order', () => {
  const items = (...titles: string[]) => titles.map((title) => ({ title }));
  assert.equal(isTrustQuestion(items('Trust and enable', 'Keep disabled')), true);
  assert.equal(isTrustQuestion(items('Keep disabled', 'Trust and enable')), false);
  assert.equal(isTrustQuestion(items('Trust and enable')), false);
  assert.equal(isTrustQuestion(items('Allow once', 'Allow for session', 'Always allow', 'Deny')), false);
});
