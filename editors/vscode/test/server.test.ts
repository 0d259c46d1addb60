// Which server the extension starts and whether it is in step: the order
// it searches (reasonix.path, the bundled server, PATH, where installers
// put it), the bundled server made executable when unpacked without its
// mode, and the warning for a server of another version.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
// The harness first: it installs the mocked `vscode` that src/ requires.
import { loadExtension, makeContext, reasonixBinary, vscode, waitFor } from './harness';
import { type ServerBinary, bundledServer, serverPath } from '../src/config';
import { versionWarning } from '../src/version';
import { writeFakeServer } from './fake-server';

/** What a server needs to announce for the extension to accept it. */
const METHODS = ['reasonix/listSessions', 'reasonix/newSession', 'reasonix/resumeSession', 'reasonix/saveDocuments', 'reasonix/event'];

/** Runs fn with process.env's PATH, GOBIN, GOPATH and HOME replaced, and restores them. */
function withEnv<T>(env: Record<string, string>, fn: () => T): T {
  const keys = ['PATH', 'GOBIN', 'GOPATH', 'HOME'];
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  for (const k of keys) delete process.env[k];
  Object.assign(process.env, env);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function executable(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
  return file;
}

test('serverPath: reasonix.path, then the bundled server, then PATH, then where installers put it', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-resolve-'));
  const ext = path.join(tmp, 'ext');
  const env = { PATH: path.join(tmp, 'path'), GOBIN: path.join(tmp, 'gobin'), GOPATH: path.join(tmp, 'gopath'), HOME: path.join(tmp, 'home') };
  const setting = executable(path.join(tmp, 'chosen', 'reasonix'));
  const bundled = executable(bundledServer(ext));
  const onPath = executable(path.join(env.PATH, 'reasonix'));
  const installed = executable(path.join(env.GOBIN, 'reasonix'));
  // Each case removes what the one before found.
  const cases: { name: string; setting: string; want: ServerBinary; remove: string }[] = [
    { name: 'the setting first', setting, want: { path: setting, source: 'setting' }, remove: '' },
    { name: 'the bundled server before PATH', setting: '', want: { path: bundled, source: 'bundled' }, remove: bundled },
    { name: 'PATH before the install dirs', setting: '', want: { path: onPath, source: 'path' }, remove: onPath },
    { name: 'GOBIN last', setting: '', want: { path: installed, source: 'installed' }, remove: installed },
  ];
  try {
    for (const c of cases) {
      vscode._test.setConfiguration('reasonix.path', c.setting);
      assert.deepEqual(
        withEnv(env, () => serverPath(ext)),
        c.want,
        c.name,
      );
      if (c.remove) fs.rmSync(c.remove);
    }
    // Nothing anywhere: the message says where it looked and what to install.
    assert.throws(
      () => withEnv(env, () => serverPath(ext)),
      (err: Error) => {
        assert.match(err.message, /no server for this platform/);
        assert.match(err.message, /not on PATH/);
        assert.ok(err.message.includes(env.GOBIN), err.message);
        assert.match(err.message, /\.vsix built for your platform/);
        assert.match(err.message, /make install/);
        assert.match(err.message, /reasonix\.path/);
        assert.doesNotMatch(err.message, /go install/);
        return true;
      },
    );
  } finally {
    vscode._test.setConfiguration('reasonix.path', '');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('serverPath: a bundled server unpacked without its executable bits gets them', () => {
  const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-mode-'));
  try {
    const bundled = bundledServer(ext);
    fs.mkdirSync(path.dirname(bundled));
    fs.writeFileSync(bundled, '#!/bin/sh\n', { mode: 0o644 });
    vscode._test.setConfiguration('reasonix.path', '');
    assert.deepEqual(serverPath(ext), { path: bundled, source: 'bundled' });
    assert.equal(fs.statSync(bundled).mode & 0o111, 0o111);
  } finally {
    fs.rmSync(ext, { recursive: true, force: true });
  }
});

test('bundledServer: server/reasonix, with .exe on Windows', () => {
  assert.equal(bundledServer('/ext', 'linux'), path.join('/ext', 'server', 'reasonix'));
  assert.equal(bundledServer('/ext', 'win32'), path.join('/ext', 'server', 'reasonix.exe'));
});

test('versionWarning: only a chosen server of another version, naming both and what to do', () => {
  const setting: ServerBinary = { path: '/opt/reasonix', source: 'setting' };
  const onPath: ServerBinary = { path: '/usr/bin/reasonix', source: 'path' };
  const installed: ServerBinary = { path: '/home/u/go/bin/reasonix', source: 'installed' };
  const bundled: ServerBinary = { path: '/ext/server/reasonix', source: 'bundled' };
  const cases: { name: string; server: ServerBinary; serverVersion?: string; ext?: string; want: RegExp[] | undefined }[] = [
    { name: 'same version', server: setting, serverVersion: '0.1.0', ext: '0.1.0', want: undefined },
    { name: 'a tag with v', server: onPath, serverVersion: 'v0.1.0', ext: '0.1.0', want: undefined },
    { name: 'the bundled server is never checked', server: bundled, serverVersion: 'dev', ext: '0.1.0', want: undefined },
    { name: 'an unknown server version', server: setting, serverVersion: undefined, ext: '0.1.0', want: undefined },
    {
      name: 'the setting, older',
      server: setting,
      serverVersion: '0.0.9',
      ext: '0.1.0',
      want: [/\/opt\/reasonix \(set in reasonix\.path\) is version 0\.0\.9/, /extension is version 0\.1\.0/, /clear it to use the server that comes with the extension/],
    },
    {
      name: 'PATH, a build from a checkout',
      server: onPath,
      serverVersion: '9245dc8-dirty',
      ext: '0.1.0',
      want: [/\/usr\/bin\/reasonix \(found on PATH\) is version 9245dc8-dirty/, /extension is version 0\.1\.0/, /\.vsix built for your platform/],
    },
    { name: 'an install dir counts as PATH', server: installed, serverVersion: '0.2.0', ext: '0.1.0', want: [/found on PATH\) is version 0\.2\.0/] },
  ];
  for (const c of cases) {
    const got = versionWarning(c.server, c.serverVersion, c.ext);
    if (!c.want) {
      assert.equal(got, undefined, c.name);
      continue;
    }
    assert.ok(got, c.name);
    for (const re of c.want) assert.match(got, re, c.name);
  }
});

test('activation: a server of another version in reasonix.path starts, with a warning naming both versions', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-version-'));
  const fake = writeFakeServer(dir, { version: '0.0.2', methods: METHODS });
  vscode._test.messages.length = 0;
  vscode._test.setWorkspaceFolders([dir]);
  vscode._test.setConfiguration('reasonix.path', fake);
  vscode._test.answerMessage = (m) => (m.level === 'warning' ? 'Open Settings' : undefined);
  const extension = loadExtension();
  const context = makeContext(dir, { version: '0.1.0' });
  try {
    const controller = await extension.activate(context);
    assert.equal(controller.client?.binary, fake);
    const shown = await waitFor('the warning', () => vscode._test.messages.find((m) => m.level === 'warning'));
    assert.match(shown.message, /is version 0\.0\.2, but this extension is version 0\.1\.0/);
    assert.deepEqual(shown.items, ['Open Settings']);
    const opened = await waitFor('the settings to open', () => vscode._test.executed.find((e) => e.id === 'workbench.action.openSettings'));
    assert.deepEqual(opened.args, [{ query: 'reasonix.path' }]);
  } finally {
    vscode._test.answerMessage = () => undefined;
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('activation: with no setting, the bundled server starts though another reasonix is on PATH', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-bundled-'));
  const ext = path.join(tmp, 'ext');
  const ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
  fs.mkdirSync(path.join(ext, 'server'), { recursive: true });
  fs.symlinkSync(reasonixBinary(), bundledServer(ext));
  const pathDir = path.join(tmp, 'path');
  fs.mkdirSync(pathDir);
  writeFakeServer(pathDir, { version: '0.0.2', methods: METHODS });
  const saved = process.env.PATH;
  process.env.PATH = [pathDir, saved].join(path.delimiter);
  vscode._test.messages.length = 0;
  vscode._test.setWorkspaceFolders([ws]);
  vscode._test.setConfiguration('reasonix.path', '');
  const extension = loadExtension();
  const context = makeContext(tmp, { extensionPath: ext });
  try {
    const controller = await extension.activate(context);
    assert.equal(controller.client?.binary, bundledServer(ext), JSON.stringify(vscode._test.messages));
    assert.deepEqual(vscode._test.messages, []);
  } finally {
    process.env.PATH = saved;
    await extension.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
