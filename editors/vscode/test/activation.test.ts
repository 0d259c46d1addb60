// Activation against the real server: it starts, the client declares the
// Reasonix extensions and finds every method it needs, the contributions
// are registered (and all disposed again), settings reach the server on
// change; and what the user sees when the binary is missing or too old.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { Commands, Methods } from '../src/protocol';
import { writeFakeServer } from './fake-server';
import { EXT_ROOT, loadExtension, makeContext, openPanel, reasonixBinary, setup, vscode, waitFor } from './harness';

const packageJson = JSON.parse(fs.readFileSync(path.join(EXT_ROOT, 'package.json'), 'utf8'));

test('activation starts the server and registers every contribution', async () => {
  const env = await setup({ script: 'text unused\n' });
  try {
    const client = env.controller.client;
    assert.ok(client, `no client; messages: ${JSON.stringify(vscode._test.messages)}`);
    const caps = client.client.initializeResult?.capabilities;
    // The server offers exactly the commands of the extension's table.
    assert.deepEqual(caps?.executeCommandProvider?.commands?.sort(), Object.values(Commands).map((c) => c.command).sort());
    // Every method of the table, optional ones too, is one the server announces.
    for (const { method } of Object.values(Methods)) {
      assert.ok(client.features.methods?.includes(method), `server lacks ${method}`);
    }
    assert.ok(caps?.codeActionProvider, 'no code actions');
    assert.equal(vscode._test.messages.length, 0, `messages shown: ${JSON.stringify(vscode._test.messages)}`);

    // The client registered the server's commands, and ours are there.
    const commands = await vscode.commands.getCommands();
    for (const c of packageJson.contributes.commands) assert.ok(commands.includes(c.command), `${c.command} not registered`);
    for (const c of ['reasonix.ask', 'reasonix.start', 'reasonix.cancel']) assert.ok(commands.includes(c), `${c} not registered`);
    assert.equal(vscode._test.codeActionProviders.length, 1, 'the code action provider is not registered');

    // The status bar item opens the chat.
    const item = vscode._test.statusBarItems.find((i) => !i.disposed);
    assert.ok(item?.visible);
    assert.equal(item.command, 'reasonix.openChat');

    // The panel: strict CSP, a nonce on the one script, only media/ loadable.
    const panel = await openPanel();
    const { html, options } = panel.view.webview;
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(csp, /default-src 'none'/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce && nonce.length >= 32, `nonce ${nonce}`);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
    assert.equal(scripts.length, 1);
    assert.match(scripts[0], new RegExp(`nonce="${nonce}"`));
    assert.match(scripts[0], /src="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/.*\/media\/panel\.js"/);
    assert.match(html, /href="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/.*\/media\/panel\.css"/);
    assert.equal(options.enableScripts, true);
    assert.deepEqual(options.localResourceRoots?.map((u) => u.fsPath), [path.join(EXT_ROOT, 'media')]);
    // A second page gets a new nonce.
    panel.send({ type: 'ready' });
    const state = await panel.next('state');
    assert.equal(state.running, false);
    // Messages that are not of the union are dropped, not routed.
    panel.view.webview.send({ type: 'approve', id: 7 });
    panel.view.webview.send({ type: 'nonsense' });
  } finally {
    await env.close();
  }
  // Everything activate registered went into context.subscriptions.
  assert.deepEqual(vscode._test.live(), {
    commands: [],
    viewProviders: [],
    contentProviders: [],
    codeActionProviders: 0,
    statusBarItems: 0,
    outputChannels: 0,
    configurationListeners: 0,
  });
  assert.deepEqual(vscode._test.errors, []);
});

test('a missing binary is an actionable error, and Open Settings opens the settings', async () => {
  vscode._test.messages.length = 0;
  vscode._test.setConfiguration('reasonix.path', '/nonexistent/reasonix');
  vscode._test.answerMessage = (m) => (m.level === 'error' ? 'Open Settings' : undefined);
  const extension = loadExtension();
  const context = makeContext(fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-missing-')));
  try {
    const controller = await extension.activate(context);
    assert.equal(controller.client, undefined);
    const shown = await waitFor('the error', () => vscode._test.messages.find((m) => m.level === 'error'));
    assert.match(shown.message, /reasonix\.path/);
    assert.match(shown.message, /\/nonexistent\/reasonix/);
    assert.ok(shown.items.includes('Open Settings'), `items ${shown.items.join(', ')}`);
    // A local window: the User tab, at the setting.
    const opened = await waitFor('the settings to open', () => vscode._test.executed.find((e) => e.id === 'workbench.action.openSettings'));
    assert.deepEqual(opened.args, [{ query: 'reasonix.path' }]);
    // The commands stay: once the setting is fixed, a restart works.
    assert.ok((await vscode.commands.getCommands()).includes('reasonix.restartServer'));

    // Nothing configured, nothing on PATH nor where go install puts
    // binaries: the message says where it looked and how to install.
    vscode._test.messages.length = 0;
    const saved = { PATH: process.env.PATH, GOBIN: process.env.GOBIN, GOPATH: process.env.GOPATH, HOME: process.env.HOME };
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-gobin-'));
    const [gobin, gopath1, gopath2, home] = ['gobin', 'gp1', 'gp2', 'home'].map((d) => path.join(tmp, d));
    Object.assign(process.env, { PATH: path.join(EXT_ROOT, 'no-such-dir'), GOBIN: gobin, GOPATH: [gopath1, gopath2].join(path.delimiter), HOME: home });
    try {
      vscode._test.setConfiguration('reasonix.path', ''); // restarts
      const onPath = await waitFor('the PATH error', () => vscode._test.messages.find((m) => m.level === 'error'));
      assert.match(onPath.message, /not on PATH/);
      assert.match(onPath.message, /reasonix\.path/);
      for (const d of [gobin, path.join(gopath1, 'bin'), path.join(gopath2, 'bin'), path.join(home, 'go', 'bin')]) {
        assert.ok(onPath.message.includes(d), `the message does not name ${d}: ${onPath.message}`);
      }

      // A remote window (SSH, a container, code-server): reasonix.path is
      // machine-scoped, listed under the Remote tab, so that opens.
      vscode.env.remoteName = 'ssh-remote';
      vscode._test.executed.length = 0;
      vscode._test.messages.length = 0;
      await vscode.commands.executeCommand('reasonix.restartServer');
      const remote = await waitFor('the remote settings to open', () =>
        vscode._test.executed.find((e) => e.id === 'workbench.action.openRemoteSettings'),
      );
      assert.deepEqual(remote.args, [{ query: 'reasonix.path' }]);
      assert.equal(vscode._test.executed.find((e) => e.id === 'workbench.action.openSettings'), undefined);
      vscode.env.remoteName = undefined;

      // Installed with go install into the second GOPATH entry: found there.
      // (The server starts in the first folder: one that exists.)
      fs.mkdirSync(home, { recursive: true });
      vscode._test.setWorkspaceFolders([home]);
      fs.mkdirSync(path.join(gopath2, 'bin'), { recursive: true });
      fs.symlinkSync(reasonixBinary(), path.join(gopath2, 'bin', 'reasonix'));
      vscode._test.messages.length = 0;
      await vscode.commands.executeCommand('reasonix.restartServer');
      // (A fresh read: the assertion above narrowed controller.client.)
      const started = await waitFor('the server to start from GOPATH', () => (controller as { client?: { binary: string } }).client);
      assert.equal(started.binary, path.join(gopath2, 'bin', 'reasonix'));
      assert.deepEqual(vscode._test.messages, []);
    } finally {
      vscode.env.remoteName = undefined;
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } finally {
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    vscode._test.answerMessage = () => undefined;
  }
});

test('a server without the methods the extension needs is reported as too old', async () => {
  // A fake `reasonix` that answers initialize like an old server.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-old-'));
  const fake = writeFakeServer(dir, { version: '0.0.1', methods: ['reasonix/listSessions'] });
  vscode._test.messages.length = 0;
  vscode._test.setWorkspaceFolders([dir]);
  vscode._test.setConfiguration('reasonix.path', fake);
  const extension = loadExtension();
  const context = makeContext(dir);
  try {
    const controller = await extension.activate(context);
    assert.equal(controller.client, undefined);
    const shown = await waitFor('the error', () => vscode._test.messages.find((m) => m.level === 'error'));
    assert.match(shown.message, /too old/);
    assert.match(shown.message, /reasonix\/newSession/);
    assert.match(shown.message, /0\.0\.1/);
    assert.ok(shown.items.includes('Open Settings'));
  } finally {
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a permission dialog from a server without reasonix/approve is answered in the panel', async () => {
  // The approval event comes first, then the dialog, as the server sends them.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-dialog-'));
  const approval = {
    kind: 'approval',
    sessionId: 'S1',
    tool: 'bash',
    arguments: { command: 'make' },
    scope: 'Bash(make:*)',
    message: 'Reasonix wants to run the command `make`.',
    actions: ['Allow once', 'Allow for session', 'Always allow', 'Deny'],
  };
  const fake = writeFakeServer(dir, {
    version: '0.0.2',
    methods: ['reasonix/listSessions', 'reasonix/newSession', 'reasonix/resumeSession', 'reasonix/saveDocuments', 'reasonix/event'],
    onInitialized: `
      send({ method: 'reasonix/event', params: ${JSON.stringify(approval)} });
      const answer = await request('window/showMessageRequest', {
        type: 2, message: ${JSON.stringify(approval.message)}, actions: ${JSON.stringify(approval.actions.map((title) => ({ title })))},
      });
      send({ method: 'reasonix/event', params: { kind: 'notice', sessionId: 'S1', turn: 1, text: 'answer: ' + JSON.stringify(answer) } });
      const other = await request('window/showMessageRequest', { type: 3, message: 'Something else?', actions: [{ title: 'Yes' }, { title: 'No' }] });
      send({ method: 'reasonix/event', params: { kind: 'notice', sessionId: 'S1', turn: 1, text: 'other: ' + JSON.stringify(other) } });
    `,
  });
  vscode._test.messages.length = 0;
  vscode._test.setWorkspaceFolders([dir]);
  vscode._test.setConfiguration('reasonix.path', fake);
  vscode._test.answerMessage = (m) => (m.message === 'Something else?' ? 'No' : undefined);
  const extension = loadExtension();
  const context = makeContext(dir, { version: '0.0.2' });
  try {
    // The panel is open before the server starts, so the question goes there.
    const controller = await extension.activate(context);
    const panel = await openPanel();
    assert.ok(controller.client, JSON.stringify(vscode._test.messages));
    const q = await panel.next('approval');
    const { kind: _kind, ...request } = approval;
    assert.deepEqual(q.request, request);
    panel.send({ type: 'approve', id: q.id, action: 'Allow for session' });
    const notice = await panel.next('event', (m) => m.event.kind === 'notice' && m.event.text.startsWith('answer'));
    assert.ok(notice.event.kind === 'notice');
    assert.equal(notice.event.text, 'answer: {"title":"Allow for session"}');
    // Any other dialog is shown as VS Code shows it.
    const other = await panel.next('event', (m) => m.event.kind === 'notice' && m.event.text.startsWith('other'));
    assert.ok(other.event.kind === 'notice');
    assert.equal(other.event.text, 'other: {"title":"No"}');
    assert.deepEqual(
      vscode._test.messages.map((m) => [m.level, m.message, m.items.join('|')]),
      [['information', 'Something else?', 'Yes|No']],
    );
  } finally {
    vscode._test.answerMessage = () => undefined;
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
