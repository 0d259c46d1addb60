// The test harness: installs the mocked `vscode` module for every
// require (the extension bundle and the real vscode-languageclient alike),
// builds a workspace and a Reasonix home whose user config.toml points
// the default model at the scripted model server, and activates the
// built extension (dist/extension.js) against the real `reasonix lsp`.
// What a test adds to the workspace's own reasonix.toml is trusted with
// `reasonix trust --yes`, as the user who wrote it would, unless the test
// is about the trust question.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Controller } from '../src/controller';
import type { ExtensionToPanel, PanelToExtension } from '../src/messages';
import type * as Mock from './mock-vscode';

/** editors/vscode, whichever directory the compiled tests run from. */
export const EXT_ROOT = findExtRoot(__dirname);
export const REPO_ROOT = path.resolve(EXT_ROOT, '../..');

function findExtRoot(dir: string): string {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    const pj = path.join(d, 'package.json');
    if (fs.existsSync(pj) && JSON.parse(fs.readFileSync(pj, 'utf8')).name === 'reasonix') return d;
  }
  throw new Error(`no editors/vscode package.json above ${dir}`);
}

// The mock must be what `require('vscode')` returns before anything
// requires it: the hook goes in when this module loads.
const mockPath = require.resolve('./mock-vscode');
type ResolveFilename = (request: string, ...rest: unknown[]) => string;
const mod = Module as unknown as { _resolveFilename: ResolveFilename };
const original = mod._resolveFilename;
mod._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
  return request === 'vscode' ? mockPath : original.call(this, request, ...rest);
};
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded through the hook, as the extension will
export const vscode: typeof Mock = require('vscode');

export const TIMEOUT_MS = 30000;

/** The reasonix binary: REASONIX_LSP, else the repository's bin/reasonix. */
export function reasonixBinary(): string {
  const p = process.env.REASONIX_LSP || path.join(REPO_ROOT, 'bin/reasonix');
  if (!fs.existsSync(p)) throw new Error(`${p} is missing: run make build in ${REPO_ROOT} (or set REASONIX_LSP)`);
  return p;
}

export function scriptedModelBinary(): string {
  const p = process.env.REASONIX_SCRIPTED_MODEL || path.join(path.dirname(reasonixBinary()), 'scripted-model');
  if (!fs.existsSync(p)) throw new Error(`${p} is missing: run make build in ${REPO_ROOT}`);
  return p;
}

/** The example MCP plugin (make build puts it beside the reasonix binary). */
export function pluginExampleBinary(): string {
  const p = path.join(path.dirname(reasonixBinary()), 'reasonix-plugin-example');
  if (!fs.existsSync(p)) throw new Error(`${p} is missing: run make build in ${REPO_ROOT}`);
  return p;
}

export const calcGo = `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}
`;

export const calcTest = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}
`;

export interface Env {
  tmp: string;
  root: string;
  home: string;
  modelUrl: string;
  controller: Controller;
  context: { subscriptions: { dispose(): unknown }[] };
  /** The extension module (dist/extension.js). */
  extension: ExtensionModule;
  close(): Promise<void>;
}

export interface ExtensionModule {
  activate(ctx: unknown): Promise<Controller>;
  deactivate(): Promise<void>;
}

/** The built bundle, loaded as VS Code loads it. */
export function loadExtension(): ExtensionModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS bundle, resolved at run time
  return require(path.join(EXT_ROOT, 'dist/extension.js')) as ExtensionModule;
}

export interface EnvOptions {
  /** The scripted model's script (see agent/provider/scripted/doc.go). */
  script: string;
  /**
   * The workspace's own reasonix.toml (a function gets the model server's
   * URL); none when unset. The scripted provider is in the user's
   * config.toml.
   */
  toml?: string | ((modelUrl: string) => string);
  /** Files of the workspace besides reasonix.toml; default: the calc module. */
  files?: Record<string, string>;
  /**
   * Whether the user trusts the workspace's own configuration before the
   * editor opens it (`reasonix trust --yes`); default true. With false,
   * the server asks when the extension starts it.
   */
  trust?: boolean;
  /** Settings before activation, by full key ("reasonix.model"). */
  settings?: Record<string, unknown>;
}

let envCount = 0;

/** A workspace, the model server, and the extension activated on them. */
export async function setup(opts: EnvOptions): Promise<Env> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `reasonix-vscode-${envCount++}-`));
  const root = path.join(tmp, 'calc');
  const home = path.join(tmp, 'home');
  fs.mkdirSync(root);
  fs.mkdirSync(home);
  const model = await startModel(tmp, opts.script);
  const files = opts.files ?? { 'go.mod': 'module example.com/calc\n\ngo 1.21\n', 'calc.go': calcGo, 'calc_test.go': calcTest };
  if (opts.toml !== undefined) files['reasonix.toml'] = typeof opts.toml === 'function' ? opts.toml(model.url) : opts.toml;
  for (const [name, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), body);
  }
  // The user's own configuration, which needs no trust.
  fs.writeFileSync(path.join(home, 'config.toml'), userConfig(model.url));

  // The server inherits these: sessions go to a temp home, and no real key leaks in.
  process.env.REASONIX_HOME = home;
  process.env.DEEPSEEK_API_KEY = '';
  if (opts.trust !== false) trustWorkspace(root);

  const packageJson = JSON.parse(fs.readFileSync(path.join(EXT_ROOT, 'package.json'), 'utf8'));
  vscode._test.loadDefaults(packageJson);
  vscode._test.setWorkspaceFolders([root]);
  vscode._test.setConfiguration('reasonix.path', reasonixBinary());
  for (const [k, v] of Object.entries(opts.settings ?? {})) vscode._test.setConfiguration(k, v);

  const context = makeContext(tmp);
  const extension = loadExtension();
  const controller = await extension.activate(context);

  return {
    tmp,
    root,
    home,
    modelUrl: model.url,
    controller,
    context,
    extension,
    async close() {
      await extension.deactivate();
      for (const d of context.subscriptions.splice(0)) d.dispose();
      model.child.kill('SIGTERM');
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** The user's config.toml: the scripted model server as the default model. */
export function userConfig(modelUrl: string): string {
  return `default_model = "scripted"
[[providers]]
name = "scripted"
base_url = ${JSON.stringify(modelUrl)}
model = "deepseek-flash"
options = { retry_base_ms = 10 }
`;
}

/**
 * Records the user's trust in a workspace's own configuration, in
 * process.env.REASONIX_HOME, as `reasonix trust --yes DIR` from a
 * terminal does.
 */
export function trustWorkspace(dir: string): void {
  execFileSync(reasonixBinary(), ['trust', '--yes', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The version the reasonix binary under test reports (`reasonix version`). */
export function binaryVersion(): string {
  binaryVersionCache ??= execFileSync(reasonixBinary(), ['version'], { encoding: 'utf8' }).split(' ')[1];
  return binaryVersionCache;
}
let binaryVersionCache: string | undefined;

export interface ContextOptions {
  /**
   * The extension's version; default: the binary's, as scripts/vsix.sh
   * stamps the extension and its server alike, so no test sees the
   * version warning unless it asks for it.
   */
  version?: string;
  /** Where the extension is installed, for its bundled server/; default: editors/vscode. */
  extensionPath?: string;
}

export function makeContext(tmp: string, opts: ContextOptions = {}) {
  const memento = () => {
    const m = new Map<string, unknown>();
    return { get: (k: string, d?: unknown) => (m.has(k) ? m.get(k) : d), update: (k: string, v: unknown) => Promise.resolve(void m.set(k, v)), keys: () => [...m.keys()] };
  };
  return {
    subscriptions: [] as { dispose(): unknown }[],
    extensionUri: vscode.Uri.file(EXT_ROOT),
    extensionPath: opts.extensionPath ?? EXT_ROOT,
    extension: { packageJSON: { version: opts.version ?? binaryVersion() } },
    extensionMode: vscode.ExtensionMode.Test,
    globalState: memento(),
    workspaceState: memento(),
    globalStorageUri: vscode.Uri.file(path.join(tmp, 'global')),
    storageUri: vscode.Uri.file(path.join(tmp, 'storage')),
    logUri: vscode.Uri.file(path.join(tmp, 'log')),
    asAbsolutePath: (p: string) => path.join(EXT_ROOT, p),
  };
}

async function startModel(tmp: string, script: string): Promise<{ url: string; child: ChildProcess }> {
  const scriptFile = path.join(tmp, 'model.script');
  const urlFile = path.join(tmp, 'model.url');
  fs.writeFileSync(scriptFile, script);
  const child = spawn(scriptedModelBinary(), ['-script', scriptFile, '-url-file', urlFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  await waitFor('the scripted model to listen', () => fs.existsSync(urlFile) || child.exitCode !== null, 10000);
  if (!fs.existsSync(urlFile)) throw new Error(`scripted-model exited: ${stderr}`);
  return { url: fs.readFileSync(urlFile, 'utf8'), child };
}

/** Polls cond on the event loop until it returns something truthy. */
export function waitFor<T>(what: string, cond: () => T | undefined | null | false, ms = TIMEOUT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const tick = () => {
      let v: T | undefined | null | false;
      try {
        v = cond();
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (v) resolve(v);
      else if (Date.now() > deadline) reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      else setTimeout(tick, 10);
    };
    tick();
  });
}

/** The chat panel, resolved and on screen, with typed send and receive. */
export async function openPanel() {
  await vscode.commands.executeCommand('reasonix.openChat');
  const view = vscode._test.viewOf('reasonix.chat');
  if (!view) throw new Error('the chat view was not resolved');
  return panelHandle(view);
}

export function panelHandle(view: Mock.FakeWebviewView) {
  const posted = () => view.webview.posted as ExtensionToPanel[];
  return {
    view,
    posted,
    send: (m: PanelToExtension) => view.webview.send(m),
    /** Posted messages of one type, in order. */
    of<K extends ExtensionToPanel['type']>(type: K): Extract<ExtensionToPanel, { type: K }>[] {
      return posted().filter((m): m is Extract<ExtensionToPanel, { type: K }> => m.type === type);
    },
    /** Waits for a posted message of that type matching pred, after index `from`. */
    next<K extends ExtensionToPanel['type']>(
      type: K,
      pred: (m: Extract<ExtensionToPanel, { type: K }>) => boolean = () => true,
      from = 0,
    ): Promise<Extract<ExtensionToPanel, { type: K }>> {
      return waitFor(`a ${type} message`, () =>
        posted()
          .slice(from)
          .find((m): m is Extract<ExtensionToPanel, { type: K }> => m.type === type && pred(m as Extract<ExtensionToPanel, { type: K }>)),
      ).catch((err: Error) => {
        const tail = posted()
          .slice(from)
          .filter((m) => m.type !== 'event' || !['text', 'reasoning'].includes(m.event.kind))
          .slice(-15);
        err.message += `; the panel got since: ${JSON.stringify(tail).slice(0, 3000)}`;
        throw err;
      });
    },
  };
}

/** The reasonix/event kinds the panel received, for failure messages. */
export function eventKinds(posted: ExtensionToPanel[]): string[] {
  return posted.flatMap((m) => (m.type === 'event' ? [m.event.kind] : []));
}
