// The extension's settings: where the server binary is, and the Reasonix
// configuration keys the server receives as initializationOptions and
// workspace/didChangeConfiguration (docs/PROTOCOL.md, "Settings").
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

export const SECTION = 'reasonix';

/** Settings whose change needs a new server process, not just a push. */
export const RESTART_SETTINGS = ['reasonix.path'];

export type ServerSettings = Record<string, unknown>;

/**
 * The config keys for the server: `reasonix.settings` as written, with
 * `reasonix.model` as `default_model` on top when it is set.
 */
export function serverSettings(): ServerSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const raw = cfg.get<unknown>('settings');
  const settings: ServerSettings = isObject(raw) ? { ...raw } : {};
  const model = cfg.get<string>('model')?.trim();
  if (model) settings.default_model = model;
  return settings;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why the server binary cannot be started, in words a user can act on. */
export class BinaryNotFoundError extends Error {
  constructor(
    message: string,
    readonly configured: boolean,
  ) {
    super(message);
    this.name = 'BinaryNotFoundError';
  }
}

/** Where the server binary was found, which decides whether its version is checked. */
export type ServerSource = 'setting' | 'bundled' | 'path' | 'installed';

export interface ServerBinary {
  path: string;
  source: ServerSource;
}

/**
 * The binary a packaged extension carries for its platform: scripts/vsix.sh
 * builds it into server/ with the extension's own version.
 */
export function bundledServer(extensionPath: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionPath, 'server', platform === 'win32' ? 'reasonix.exe' : 'reasonix');
}

/**
 * The reasonix binary to start, searched in this order: `reasonix.path`
 * when set (`~` and workspace-relative paths allowed); the server bundled
 * in the extension at extensionPath; `reasonix` on PATH; where installers
 * put it (installDirs). Resolving it here, before the language client
 * spawns anything, turns a missing binary into a message that says what
 * to do.
 */
export function serverPath(extensionPath: string): ServerBinary {
  const configured = vscode.workspace.getConfiguration(SECTION).get<string>('path')?.trim() ?? '';
  if (configured) {
    let p = configured.replace(/^~(?=$|[\\/])/, os.homedir());
    if (!path.isAbsolute(p)) {
      const folder = vscode.workspace.workspaceFolders?.[0];
      p = folder ? path.join(folder.uri.fsPath, p) : path.resolve(p);
    }
    if (!isExecutable(p)) {
      throw new BinaryNotFoundError(
        `Reasonix: the server binary "${configured}" set in reasonix.path does not exist or is not executable. ` +
          'Fix the setting, or clear it to use the server that comes with the extension.',
        true,
      );
    }
    return { path: p, source: 'setting' };
  }
  const bundled = bundledServer(extensionPath);
  if (makeExecutable(bundled)) return { path: bundled, source: 'bundled' };
  const found = onPath('reasonix');
  if (found) return { path: found, source: 'path' };
  // Installers put it where binaries go, which is often not on the PATH
  // the editor was started with (a desktop launcher's, or a remote
  // extension host's, which is not a login shell's).
  const dirs = installDirs();
  const installed = findIn(dirs, 'reasonix');
  if (installed) return { path: installed, source: 'installed' };
  throw new BinaryNotFoundError(
    'Reasonix: this extension carries no server for this platform, and the "reasonix" binary is not on PATH, ' +
      `nor where installers put it (${dirs.join(', ')}). Install the Reasonix .vsix built for your platform ` +
      '(it carries the server), run make install in a Reasonix checkout, or set reasonix.path to the binary.',
    false,
  );
}

/**
 * Whether p is a file that can run, setting its executable bits when it
 * lacks them: an archive tool that drops the mode when the extension is
 * unpacked must not leave the bundled server unusable.
 */
function makeExecutable(p: string): boolean {
  if (isExecutable(p)) return true;
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.chmodSync(p, 0o755);
  } catch {
    return false;
  }
  return isExecutable(p);
}

/**
 * Where `go install` puts binaries, as Go decides from the environment:
 * GOBIN when set, else the bin directory of each GOPATH entry, and the
 * default GOPATH's (~/go/bin) in any case, since a GOPATH set in a shell
 * profile is often missing from the editor's environment.
 */
export function goBinDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  if (env.GOBIN) dirs.push(env.GOBIN);
  for (const p of (env.GOPATH ?? '').split(path.delimiter)) {
    if (p) dirs.push(path.join(p, 'bin'));
  }
  dirs.push(path.join(os.homedir(), 'go', 'bin'));
  return [...new Set(dirs.map((d) => path.resolve(d.replace(/^~(?=$|[\\/])/, os.homedir()))))];
}

/**
 * Where installers put the binary, in the order they are searched: where
 * `go install` puts it (goBinDirs), then the user's and
 * the system's bin directories that a login shell has on its PATH but an
 * editor started otherwise may not (~/.local/bin, /usr/local/bin, and
 * Homebrew's on macOS).
 */
export function installDirs(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const dirs = goBinDirs(env);
  if (platform !== 'win32') {
    dirs.push(path.join(os.homedir(), '.local', 'bin'), '/usr/local/bin');
  }
  if (platform === 'darwin') dirs.push('/opt/homebrew/bin');
  return [...new Set(dirs)];
}

/**
 * Opens the settings at `query`. In a remote window (SSH, WSL, a
 * container, a browser's code-server) the machine-scoped settings such as
 * reasonix.path apply on the remote machine and are listed under the
 * Remote tab, so that is where this lands; elsewhere, the User tab.
 */
export async function openSettings(query: string = SECTION): Promise<void> {
  const command = vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
  await vscode.commands.executeCommand(command, { query });
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform !== 'win32') fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  return findIn((process.env.PATH ?? '').split(path.delimiter), name);
}

/** The first executable `name` in dirs (with PATHEXT's extensions on Windows). */
function findIn(dirs: string[], name: string): string | undefined {
  const exts = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of dirs) {
    if (!dir) continue;
    for (const ext of exts) {
      const p = path.join(dir, name + ext);
      if (isExecutable(p)) return p;
    }
  }
  return undefined;
}
