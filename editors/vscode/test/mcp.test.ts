// The workspace's MCP servers (plugins): reasonix.mcpServers lists them in
// a QuickPick, the panel's requestMcp gets them with their prompts and
// resources (for `@` completion), an MCP prompt typed as a slash command
// is expanded by the server, a resource mentioned as @server:uri is
// attached to the prompt, and what the user sees when the servers cannot
// be asked.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { McpServerItem } from '../src/commands';
import { writeFakeServer } from './fake-server';
import { loadExtension, makeContext, openPanel, pluginExampleBinary, setup, vscode, waitFor } from './harness';

const script = `match Review calc.go with a focus on naming.
text Add is well named; its body subtracts.
---
match summarize @example:note://greeting
expect user <resource ref="example:note://greeting">
expect user Hello from the example plugin.
text The note says hello.
`;

const plugins = () => `
[[plugins]]
name    = "example"
command = ${JSON.stringify(pluginExampleBinary())}

[[plugins]]
name    = "broken"
command = "sh"
args    = ["-c", "echo boom >&2; exit 3"]
`;

test('MCP servers: the QuickPick, the panel, a prompt as a slash command, a resource after @', async () => {
  const env = await setup({ script, toml: plugins() });
  try {
    // From an editor in the workspace: its folder's servers.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(env.root, 'calc.go')));
    await vscode.window.showTextDocument(doc);
    const picked = (await vscode.commands.executeCommand('reasonix.mcpServers')) as McpServerItem | undefined;
    assert.equal(vscode._test.quickPicks.length, 1, `no QuickPick; messages: ${JSON.stringify(vscode._test.messages)}`);
    const [pick] = vscode._test.quickPicks;
    assert.deepEqual(
      pick.items.map((i: McpServerItem) => [i.label, i.description]),
      [
        ['broken', 'stdio · failed · 0 tools, 0 prompts, 0 resources'],
        ['example', 'stdio · connected · 3 tools, 1 prompt, 1 resource'],
      ],
    );
    const [broken, example] = pick.items as McpServerItem[];
    assert.equal(example.detail, undefined);
    assert.match(broken.detail ?? '', /boom/);
    assert.deepEqual(
      pick.items.map((i: McpServerItem) => (i.iconPath as { id: string }).id),
      ['error', 'pass'],
    );
    assert.equal(pick.options.title, 'Reasonix: MCP Servers');
    assert.equal(pick.options.placeHolder, 'MCP servers of calc: 1 connected, 1 failed');
    assert.equal(picked?.server.name, 'broken');
    assert.ok(
      vscode._test.progress.some((p) => p.title === 'Reasonix: asking the MCP servers'),
      'no progress while the servers start',
    );
    // The server tells once that a plugin failed to start.
    await waitFor('the warning about broken', () => vscode._test.messages.find((m) => m.level === 'warning' && /broken/.test(m.message)));
    assert.deepEqual(
      vscode._test.messages.filter((m) => m.level === 'error'),
      [],
    );

    // The panel's request: the servers, their prompts and resources, and the table.
    const panel = await openPanel();
    panel.send({ type: 'requestMcp' });
    const mcp = await panel.next('mcp');
    assert.equal(mcp.error, undefined);
    assert.deepEqual(
      mcp.servers.map((s) => [s.name, s.transport, s.state, s.tools, s.prompts, s.resources]),
      [
        ['broken', 'stdio', 'failed', 0, 0, 0],
        ['example', 'stdio', 'connected', 3, 1, 1],
      ],
    );
    assert.deepEqual(
      mcp.prompts.map((p) => [p.server, p.name, p.command, p.arguments?.map((a) => [a.name, a.required])]),
      [['example', 'review', 'mcp__example__review', [['focus', true], ['path', false]]]],
    );
    assert.deepEqual(
      mcp.resources.map((r) => [r.server, r.uri, r.name, r.mimeType]),
      [['example', 'note://greeting', 'greeting', 'text/plain']],
    );
    assert.match(mcp.text, /^SERVER +TRANSPORT +STATE +TOOLS +PROMPTS +RESOURCES\nbroken +stdio +failed +0 +0 +0\nexample +stdio +connected +3 +1 +1\n/);
    assert.match(mcp.text, /^broken: .*boom/m);

    // A prompt of the menu, with its arguments, as the panel sends it.
    panel.send({ type: 'ask', prompt: '/mcp__example__review naming calc.go', attach: null });
    const done = await panel.next('event', (m) => m.event.kind === 'turn_done');
    assert.ok(done.event.kind === 'turn_done' && done.event.done.stop === 'done', JSON.stringify(done));
    assert.equal(done.event.done.text, 'Add is well named; its body subtracts.');
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(done));

    // A resource of the @ menu, as the panel inserts it: the server reads
    // it and attaches it to the prompt (the script expects its text).
    const mentionFrom = panel.posted().length;
    panel.send({ type: 'ask', prompt: 'summarize @example:note://greeting', attach: null });
    const mentioned = await panel.next('event', (m) => m.event.kind === 'turn_done', mentionFrom);
    assert.ok(mentioned.event.kind === 'turn_done' && mentioned.event.done.stop === 'done', JSON.stringify(mentioned));
    assert.equal(mentioned.event.done.text, 'The note says hello.');
    await panel.next('state', (m) => !m.running, panel.posted().indexOf(mentioned));

    // Without a server: the command shows why, the panel's answer says it.
    await env.controller.stopServer();
    vscode._test.messages.length = 0;
    assert.equal(await vscode.commands.executeCommand('reasonix.mcpServers'), undefined);
    const shown = await waitFor('the error', () => vscode._test.messages.find((m) => m.level === 'error'));
    assert.match(shown.message, /^Reasonix: The Reasonix server is not running/);
    assert.equal(vscode._test.quickPicks.length, 1, 'a QuickPick without a server');
    const from = panel.posted().length;
    panel.send({ type: 'requestMcp' });
    const failed = await panel.next('mcp', () => true, from);
    assert.match(failed.error ?? '', /not running/);
    assert.deepEqual([failed.servers, failed.prompts, failed.resources], [[], [], []]);
    assert.deepEqual(panel.of('error'), [], 'a failed requestMcp is an answer, not an error message');
  } finally {
    await env.close();
  }
  assert.deepEqual(vscode._test.errors, []);
});

test('no MCP servers configured, and a server without reasonix/mcpServers', async () => {
  const env = await setup({ script });
  try {
    vscode._test.messages.length = 0;
    const picks = vscode._test.quickPicks.length;
    assert.equal(await vscode.commands.executeCommand('reasonix.mcpServers'), undefined);
    const none = await waitFor('the message', () => vscode._test.messages.find((m) => m.level === 'information'));
    assert.match(none.message, /^Reasonix: No MCP servers are configured/);
    assert.equal(vscode._test.quickPicks.length, picks, 'a QuickPick without servers');
  } finally {
    await env.close();
  }

  // A server that does not announce the method: the rest works, this says why not.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-nomcp-'));
  const fake = writeFakeServer(dir, {
    version: '0.0.3',
    methods: ['reasonix/listSessions', 'reasonix/newSession', 'reasonix/resumeSession', 'reasonix/saveDocuments', 'reasonix/event'],
  });
  vscode._test.messages.length = 0;
  vscode._test.setWorkspaceFolders([dir]);
  vscode._test.setConfiguration('reasonix.path', fake);
  const extension = loadExtension();
  const context = makeContext(dir);
  try {
    const controller = await extension.activate(context);
    assert.ok(controller.client, JSON.stringify(vscode._test.messages));
    await vscode.commands.executeCommand('reasonix.mcpServers');
    const shown = await waitFor('the error', () => vscode._test.messages.find((m) => m.level === 'error'));
    assert.match(shown.message, /does not report MCP servers/);
    assert.match(shown.message, /reasonix\/mcpServers/);
    const panel = await openPanel();
    panel.send({ type: 'requestMcp' });
    const mcp = await panel.next('mcp');
    assert.match(mcp.error ?? '', /does not report MCP servers/);
  } finally {
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a server that lists no resources in reasonix/mcpServers: the panel gets none', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-noresources-'));
  const server = { name: 'example', transport: 'stdio', state: 'connected', tools: 3, prompts: 0, resources: 1 };
  const fake = writeFakeServer(dir, {
    version: '0.0.4',
    methods: ['reasonix/listSessions', 'reasonix/newSession', 'reasonix/resumeSession', 'reasonix/saveDocuments', 'reasonix/event', 'reasonix/mcpServers'],
    results: { 'reasonix/mcpServers': { servers: [server], prompts: [], text: 'SERVER …' } },
  });
  vscode._test.setWorkspaceFolders([dir]);
  vscode._test.setConfiguration('reasonix.path', fake);
  const extension = loadExtension();
  const context = makeContext(dir);
  try {
    const controller = await extension.activate(context);
    assert.ok(controller.client, JSON.stringify(vscode._test.messages));
    const panel = await openPanel();
    const from = panel.posted().length;
    panel.send({ type: 'requestMcp' });
    const mcp = await panel.next('mcp', () => true, from);
    assert.equal(mcp.error, undefined);
    assert.deepEqual(mcp.servers, [server]);
    assert.deepEqual(mcp.resources, []);
  } finally {
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a sign-in page (window/showDocument, external) goes to openExternal as the server wrote it; a file opens in VS Code's editor", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-signin-page-'));
  const answerFile = path.join(dir, 'answers.json');
  const file = path.join(dir, 'plan.md');
  fs.writeFileSync(file, '# plan\n');
  // Escapes a vscode.Uri would decode: a client_id in standard base64, a loopback redirect.
  const page = 'http://127.0.0.2:1/authorize?client_id=%2B%2F9x%3D%3D&redirect_uri=http%3A%2F%2F127.0.0.1%3A2%2Fcallback&state=s';
  const fake = writeFakeServer(dir, {
    version: '0.0.6',
    methods: ['reasonix/listSessions', 'reasonix/newSession', 'reasonix/resumeSession', 'reasonix/saveDocuments', 'reasonix/event'],
    onInitialized: `const page = await request('window/showDocument', { uri: ${JSON.stringify(page)}, external: true });
      const doc = await request('window/showDocument', { uri: ${JSON.stringify(vscode.Uri.file(file).toString())} });
      require('fs').writeFileSync(${JSON.stringify(answerFile)}, JSON.stringify([page, doc]));`,
  });
  const opened: unknown[] = [];
  const openExternal = vscode.env.openExternal;
  vscode.env.openExternal = (target: unknown) => {
    opened.push(target);
    return Promise.resolve(true);
  };
  vscode._test.setWorkspaceFolders([dir]);
  vscode._test.setConfiguration('reasonix.path', fake);
  const extension = loadExtension();
  const context = makeContext(dir);
  try {
    await extension.activate(context);
    const answers = await waitFor('the answers', () => fs.existsSync(answerFile) && fs.readFileSync(answerFile, 'utf8'));
    assert.deepEqual(JSON.parse(answers), [{ success: true }, { success: true }]);
    assert.deepEqual(opened, [page]);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file);
  } finally {
    vscode.env.openExternal = openExternal;
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
