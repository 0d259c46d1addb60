// The extension in real VS Code: code-server with the packaged extension
// installed, opened in headless Chromium (Debian's, through
// playwright-core), with the scripted model in the user's config.toml.
// Run through scripts/test-vscode.sh, which installs code-server when it
// is missing and builds the .vsix; it passes:
//
//   CODE_SERVER   the code-server launcher (Node 24 first on PATH)
//   VSIX          the packaged extension
//   REASONIX_BIN  the directory of reasonix, scripted-model and
//                 reasonix-plugin-example
//   ARTIFACTS     where the screenshots go
//   KEEP_TMP=1    keeps the workspace, code-server's logs and the
//                 output channel's log file (the path is printed)
//
// What a person sees, in order: the server the .vsix carries starting with
// no reasonix and no Go on PATH and no reasonix.path set, without an error
// or a warning; a chat turn streamed into the panel; the light bulb's "Ask
// Reasonix to fix" with the panel hidden, whose permission questions are
// modal dialogs of four buttons in plain text; the edit in the buffer; the
// answer's notification in plain text; the server's log lines in the
// output channel at their own levels; and, in another folder whose
// reasonix.toml adds an MCP server, the question whether to trust it as a
// modal dialog listing the server, which starts once trusted. Before that,
// two more turns of the chat (an edit, a file a shell command made) are
// restored from the panel: the preview of each file, then the files back.
// Last, in a third folder, an HTTP MCP server that wants a sign-in: its
// page opened in the browser with the query Reasonix built, and the
// sign-in done.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { URL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

const CODE_SERVER = need('CODE_SERVER');
const VSIX = need('VSIX');
const BIN = need('REASONIX_BIN');
const ARTIFACTS = need('ARTIFACTS');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TIMEOUT = 60_000;
const ACTIONS = ['Allow once', 'Allow for session', 'Always allow', 'Deny'];

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run scripts/test-vscode.sh`);
  return v;
}

// The model's side of both turns. The chat's answer and the fix's carry
// Markdown: the panel renders it, a notification must not show it raw.
const SCRIPT = `match Say hello from the chat
delay 300ms
text Hello from **Reasonix**: the chat runs in \`code-server\`.
---
match Fix this problem in calc.json
expect user Expected comma
call read_file {"path": "calc.json"}
---
match Fix this problem in calc.json
expect tool "version": 1
call edit_file {"path": "calc.json", "old_string": "\\"calc\\"", "new_string": "\\"calc\\","}
---
match Fix this problem in calc.json
expect tool Edited calc.json
call bash {"command": "cat calc.json"}
---
match Fix this problem in calc.json
expect tool "calc",
text Added the missing comma after \`"calc"\`; **calc.json** parses now.
---
match Make the sign a plus
call edit_file {"path": "sign.txt", "old_string": "a - b", "new_string": "a + b"}
---
match Make the sign a plus
expect tool Edited sign.txt
text The sign is a plus now.
---
match Write a note
call bash {"command": "printf 'remember the sign\\\\n' > note.txt"}
---
match Write a note
text Wrote note.txt.
`;

const SIGN = 'return a - b\n';

const BROKEN_JSON = '{\n  "name": "calc"\n  "version": 1\n}\n';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-code-server-'));
const ws = path.join(tmp, 'calc');
// A folder whose reasonix.toml adds an MCP server that leaves a mark when it starts.
const untrusted = path.join(tmp, 'untrusted');
const marker = path.join(tmp, 'marker-server-started');
// A folder whose reasonix.toml adds an HTTP MCP server that wants a sign-in.
const signin = path.join(tmp, 'signin');
const home = path.join(tmp, 'home');
const reasonixHome = path.join(home, '.reasonix');
const gopath = path.join(tmp, 'gopath');
const userData = path.join(tmp, 'user-data');
const extensions = path.join(tmp, 'extensions');
const children = [];
let browser;
let context;
let page;
/** The server inside the installed extension. */
let bundled;
let origin;

/** Starts a child that the test stops at the end; its output goes to a log in tmp. */
function start(name, cmd, args, opts = {}) {
  const log = fs.openSync(path.join(tmp, `${name}.log`), 'w');
  const child = spawn(cmd, args, { stdio: ['ignore', log, log], detached: true, ...opts });
  children.push(child);
  return child;
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

async function until(what, fn, ms = TIMEOUT) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await sleep(250);
  }
}

/** Whether url answers 200. */
function healthy(url) {
  return new Promise((resolve) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('error', () => resolve(false));
  });
}

async function shot(name) {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/**
 * Runs a command from the command palette by its title; `pick` is the
 * item to pick in the list the command opens, if it opens one.
 */
async function palette(title, pick) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  for (const [text, want] of pick ? [[`>${title}`, title], [pick, pick]] : [[`>${title}`, title]]) {
    await input.fill(text);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: want }).first().waitFor({ state: 'visible' });
    await input.press('Enter');
  }
  await input.waitFor({ state: 'hidden' });
}

/**
 * Runs Reasonix: Show MCP Servers and leaves its QuickPick open (`palette`
 * would pick in it); returns its input.
 */
async function showMcpServers() {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.fill('>Reasonix: Show MCP Servers');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Reasonix: Show MCP Servers' }).first().waitFor();
  await input.press('Enter');
  return input;
}

/** The chat panel's frame: the webview's inner document, once it shows the composer. */
async function chatFrame() {
  return until('the chat panel', async () => {
    for (const f of page.frames()) {
      if (await f.$('.composer textarea').catch(() => null)) return f;
    }
    return undefined;
  });
}

before(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const d of [ws, untrusted, signin, reasonixHome, path.join(gopath, 'bin'), path.join(userData, 'User'), extensions]) fs.mkdirSync(d, { recursive: true });

  // The scripted model, and beside it the MCP server that wants a
  // sign-in. That one is on 127.0.0.2, as an authorization server is
  // elsewhere than on localhost: VS Code running remote (code-server is)
  // sends a page on localhost or 127.0.0.1 through its port forwarding.
  fs.writeFileSync(path.join(tmp, 'script'), SCRIPT);
  const urlFile = path.join(tmp, 'model-url');
  const signinFile = path.join(tmp, 'signin-url');
  start('scripted-model', path.join(BIN, 'scripted-model'), [
    '-script', path.join(tmp, 'script'),
    '-url-file', urlFile,
    '-signin-mcp-url-file', signinFile,
    '-signin-mcp-addr', '127.0.0.2:0',
  ]);
  const modelUrl = await until('the scripted model', () => fs.existsSync(urlFile) && fs.readFileSync(urlFile, 'utf8').trim());
  const signinUrl = await until('the MCP server that wants a sign-in', () => fs.existsSync(signinFile) && fs.readFileSync(signinFile, 'utf8'));

  fs.writeFileSync(path.join(ws, 'calc.json'), BROKEN_JSON);
  fs.writeFileSync(path.join(ws, 'sign.txt'), SIGN);
  // The model is the user's own: their config.toml needs no trust.
  fs.writeFileSync(
    path.join(reasonixHome, 'config.toml'),
    `default_model = "scripted"\n[[providers]]\nname = "scripted"\nbase_url = ${JSON.stringify(modelUrl)}\nmodel = "deepseek-flash"\noptions = { retry_base_ms = 10 }\n`,
  );
  // editor_theme is not a Reasonix setting: the server warns about it on
  // stderr (the output channel) and in a notification.
  fs.writeFileSync(path.join(ws, 'reasonix.toml'), 'editor_theme = "dark"\n');
  fs.writeFileSync(
    path.join(untrusted, 'reasonix.toml'),
    `[[plugins]]\nname = "marker"\ncommand = "sh"\nargs = ["-c", "touch \\"$0\\" && exec \\"$1\\"", ${JSON.stringify(marker)}, ${JSON.stringify(path.join(BIN, 'reasonix-plugin-example'))}]\n`,
  );
  fs.writeFileSync(path.join(signin, 'reasonix.toml'), `[[plugins]]\nname = "remote"\ntype = "http"\nurl = ${JSON.stringify(signinUrl)}\n`);
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'security.workspace.trust.enabled': false,
      'extensions.ignoreRecommendations': true,
      'extensions.autoCheckUpdates': false,
      'telemetry.telemetryLevel': 'off',
      'editor.lightbulb.enabled': 'on',
      // VS Code's own chat would take the secondary side bar.
      'chat.disableAIFeatures': true,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
    }),
  );

  const csEnv = { ...process.env, HOME: home, GOPATH: gopath, REASONIX_HOME: reasonixHome, REASONIX_LOG: 'info', DEEPSEEK_API_KEY: '' };
  delete csEnv.GOBIN;
  // Neither reasonix nor Go is anywhere the extension looks: not on
  // PATH, nor in GOPATH/bin or ~/go/bin. Only the server the .vsix
  // carries can start.
  csEnv.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((d) => d && !fs.existsSync(path.join(d, 'reasonix')) && !fs.existsSync(path.join(d, 'go')))
    .join(path.delimiter);
  delete csEnv.GOROOT;
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  execFileSync(CODE_SERVER, [...common, '--install-extension', VSIX], { env: csEnv, stdio: 'pipe' });
  // The server the .vsix carries, unpacked where VS Code installs
  // extensions, executable as packed (the extension would otherwise set
  // the bits itself, which this would not catch).
  const installed = fs.readdirSync(extensions).find((d) => d.startsWith('reasonix.reasonix-'));
  assert.ok(installed, `no reasonix extension in ${extensions}: ${fs.readdirSync(extensions).join(', ')}`);
  bundled = path.join(extensions, installed, 'server', 'reasonix');
  assert.equal(fs.statSync(bundled).mode & 0o111, 0o111, `${bundled} is not executable`);

  const port = await freePort();
  start(
    'code-server',
    CODE_SERVER,
    [
      ...common,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      ws,
    ],
    { env: csEnv },
  );
  origin = `http://127.0.0.1:${port}`;
  await until('code-server', () => healthy(`${origin}/healthz`));

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  // The workbench's console, for a failure's post-mortem.
  const consoleLog = fs.createWriteStream(path.join(ARTIFACTS, 'browser-console.log'));
  page.on('console', (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
  page.on('pageerror', (e) => consoleLog.write(`[pageerror] ${e.stack ?? e}\n`));
  await page.goto(`${origin}/?folder=${encodeURIComponent(ws)}`);
  await page.locator('.monaco-workbench').waitFor();
});

// What the page showed when each test ended, failed ones included.
let shots = 0;
afterEach(async (t) => {
  if (page) await shot(`end-${++shots}-${t.name.replace(/\W+/g, '-').slice(0, 40)}`).catch(() => undefined);
});

after(async () => {
  await browser?.close();
  for (const c of children) {
    try {
      process.kill(-c.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  if (process.env.KEEP_TMP) console.log(`kept ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
});

test('the bundled server: no reasonix on PATH, no Go, no reasonix.path, and it starts', async () => {
  // The status bar item shows once the server is up.
  const item = page.locator('.statusbar-item', { has: page.locator('[aria-label*="Reasonix"], [aria-label*="reasonix"]') });
  await item.first().waitFor();
  const started = await until('the server to start', async () => /started (\S+) \(server (\S+)\)/.exec(await logText()));
  assert.equal(started[1], bundled);
  // Built by make vsix with the extension's own version.
  const { version } = JSON.parse(fs.readFileSync(path.join(bundled, '..', '..', 'package.json'), 'utf8'));
  assert.equal(started[2], version);
  // Neither an error (no binary) nor a warning (another version) came up.
  assert.equal(await page.locator('.notification-toast', { hasText: /carries no server|is version|did not start/ }).count(), 0);
  await shot('1-bundled-server');
});

test('chat: a prompt typed in the panel streams its answer', async () => {
  await palette('Reasonix: Open Chat');
  const frame = await chatFrame();
  const input = frame.locator('.composer textarea');
  await input.fill('Say hello from the chat');
  await input.press('Enter');
  // While the turn runs, Stop and Send both fit the side bar's width.
  const stop = frame.getByRole('button', { name: 'Stop the running turn' });
  await stop.waitFor();
  const fit = await frame.locator('.composer-bar').evaluate((bar) => ({
    right: Math.max(...[...bar.querySelectorAll('button')].filter((b) => !b.hidden).map((b) => b.getBoundingClientRect().right)),
    width: bar.ownerDocument.documentElement.clientWidth,
  }));
  assert.ok(fit.right <= fit.width, `the composer's buttons end at ${fit.right} px in a ${fit.width} px view`);
  await shot('3-chat-running');
  // The answer streams in; once the turn is done it is rendered whole.
  await frame.locator('.turn-done').waitFor();
  assert.match(await frame.locator('.answer').last().innerText(), /^Hello from Reasonix: the chat runs in code-server\.$/);
  assert.equal(await frame.locator('button', { hasText: 'Stop' }).isVisible(), false);
  await shot('3-chat');
});

test('quick fix with the panel hidden: four-button modal dialogs in plain text, the edit in the buffer', async () => {
  // The Explorer replaces the chat in the side bar: the panel is hidden.
  await palette('View: Show Explorer');
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'calc.json' }).click();
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.waitFor();
  // JSON's own diagnostic, from VS Code's JSON language features.
  const squiggle = editor.locator('.squiggly-error').first();
  await squiggle.waitFor();
  // The cursor on line 3, where the comma is missing, then the light bulb's menu.
  await editor.locator('.view-line', { hasText: '"version": 1' }).click();
  await page.keyboard.press('Home');
  // JSON offers no fix of its own: the light bulb is Reasonix's action,
  // arrived. A menu opened before it would stay empty.
  await editor.locator('.lightBulbWidget').waitFor();
  await page.keyboard.press('Control+.');
  const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Ask Reasonix to fix' }).first();
  await fix.waitFor();
  await shot('4-quick-fix-menu');
  await fix.click();

  const modals = [];
  for (let i = 0; i < 2; i++) {
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    // The message (VS Code shows it as the dialog's text or, in a browser, its detail).
    const message = await dialog.locator('.dialog-message-container').innerText();
    const buttons = await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts();
    modals.push({ message, buttons });
    assert.deepEqual([...buttons].sort(), [...ACTIONS].sort(), `dialog ${i + 1}: ${message}`);
    assert.doesNotMatch(message, /`/, `dialog ${i + 1} shows Markdown: ${message}`);
    await shot(`5-modal-${i + 1}`);
    await dialog.getByRole('button', { name: 'Allow once' }).click();
    await dialog.waitFor({ state: 'hidden' });
  }
  assert.match(modals[0].message, /edit_file on calc\.json/);
  assert.match(modals[1].message, /run the command cat calc\.json/);

  // The edit landed in the buffer, and the answer came as a notification in plain text.
  await until('the edit in the buffer', async () => (await editor.locator('.view-lines').innerText()).includes('"calc",'));
  const note = page.locator('.notification-toast', { hasText: 'Added the missing comma' });
  await note.waitFor();
  const said = await note.locator('.notification-list-item-message').innerText();
  assert.match(said, /Added the missing comma after "calc"; calc\.json parses now\./);
  assert.doesNotMatch(said, /[`*]/);
  await shot('6-fixed');
});

test("the output channel: the server's stderr at its own levels", async () => {
  const log = await logText();
  const lines = log.split('\n');
  // slog's text lines, parsed: none is left raw, none is an error for being on stderr.
  assert.equal(lines.filter((l) => /time=\S+ level=/.test(l)).length, 0, log);
  assert.ok(lines.some((l) => /\[info\] initialized client=/.test(l)), log);
  assert.ok(lines.some((l) => /\[warning\] config warning=.*unknown setting .*editor_theme/.test(l)), log);
  assert.ok(!lines.some((l) => /\[error\].*(unknown setting|initialized)/.test(l)), log);
  await palette('Output: Show Output Channels...', 'Reasonix');
  await page.locator('.panel .monaco-editor .view-lines', { hasText: 'initialized client=' }).first().waitFor();
  await shot('7-output');
});

test('restore to before a turn: the preview of each file, then the edit and the shell-created file undone', async () => {
  await palette('Reasonix: Open Chat');
  const frame = await chatFrame();
  const input = frame.locator('.composer textarea');
  // Two more turns of the chat's session: an edit, then a file made by a shell command.
  for (const [prompt, answer] of [
    ['Make the sign a plus', 'The sign is a plus now.'],
    ['Write a note', 'Wrote note.txt.'],
  ]) {
    const done = await frame.locator('.turn-done').count();
    await input.fill(prompt);
    await input.press('Enter');
    // The permission question is a card in the panel, which is in view.
    await frame.locator('.approval button:not([disabled])', { hasText: 'Allow once' }).first().click();
    await until(`the turn "${prompt}"`, async () => (await frame.locator('.turn-done').count()) > done);
    assert.equal(await frame.locator('.answer').last().innerText(), answer);
  }
  await until('sign.txt edited', () => fs.readFileSync(path.join(ws, 'sign.txt'), 'utf8') === 'return a + b\n');
  assert.equal(fs.readFileSync(path.join(ws, 'note.txt'), 'utf8'), 'remember the sign\n');

  const head = frame.locator('.turn-head', { hasText: 'Make the sign a plus' });
  await head.hover();
  await head.getByRole('button', { name: 'Restore to before this turn' }).click();
  const card = frame.locator('section.rewind');
  await card.locator('.rewind-file').first().waitFor();
  const rows = await card.locator('.rewind-file').evaluateAll((ls) =>
    ls.map((l) => `${l.querySelector('.rewind-action').textContent} ${l.querySelector('.rewind-path').textContent}`),
  );
  assert.deepEqual(rows.sort(), ['remove note.txt', 'restore sign.txt']);
  assert.ok(fs.existsSync(path.join(ws, 'note.txt')), 'the preview changed nothing');
  await shot('10-rewind-preview');
  await page.locator('.part.sidebar').screenshot({ path: path.join(ARTIFACTS, '10-rewind-preview-panel.png') });

  await card.getByRole('button', { name: 'Confirm' }).click();
  await card.waitFor({ state: 'hidden' });
  await until('note.txt removed', () => !fs.existsSync(path.join(ws, 'note.txt')));
  // sign.txt as it was, in the editor's buffer and, once saved, on disk.
  await palette('File: Save All');
  await until('sign.txt restored', () => fs.readFileSync(path.join(ws, 'sign.txt'), 'utf8') === SIGN);
  // The panel keeps the first turn and drops the two rewound ones.
  const prompts = await frame.locator('.user').allInnerTexts();
  assert.ok(prompts.includes('Say hello from the chat'), prompts.join(' | '));
  assert.ok(!prompts.includes('Make the sign a plus') && !prompts.includes('Write a note'), prompts.join(' | '));
  assert.match(await frame.locator('.notice-info').last().innerText(), /^Restored to before turn 2: 1 file restored, 1 file removed\.$/);
  // Told once, in the panel: the server's summary, which came before the
  // panel's notice, is no toast beside it.
  assert.equal(await page.locator('.notification-toast', { hasText: 'Rewound to before turn' }).count(), 0);
  await shot('11-rewound');
});

test("a folder whose reasonix.toml adds an MCP server: the trust question is a modal; trusted, the server starts", async () => {
  await page.goto(`${origin}/?folder=${encodeURIComponent(untrusted)}`);
  await page.locator('.monaco-workbench').waitFor();
  const dialog = page.locator('.monaco-dialog-box', { hasText: 'comes with configuration that takes effect only once you trust it' });
  await dialog.waitFor();
  const message = await dialog.locator('.dialog-message-container').innerText();
  const buttons = await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts();
  assert.deepEqual([...buttons].sort(), ['Keep disabled', 'Trust and enable'], message);
  assert.ok(message.includes(`The workspace ${untrusted} comes with configuration`), message);
  assert.match(message, /• MCP server "marker": runs sh -c .* \(reasonix\.toml:1\)/);
  assert.equal(fs.existsSync(marker), false, 'the MCP server started before it was trusted');
  await shot('8-trust-question');
  await dialog.getByRole('button', { name: 'Trust and enable' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await until('the trusted MCP server to start', () => fs.existsSync(marker));
  // Its QuickPick stays open for the screenshot.
  const input = await showMcpServers();
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'marker' }).first();
  await row.waitFor();
  assert.match(await row.innerText(), /stdio · connected · 3 tools/);
  await shot('9-trusted-mcp-server');
  await input.press('Escape');
  await input.waitFor({ state: 'hidden' });
});

test('an MCP server that wants a sign-in: the browser opens its page as the server built it, and the sign-in completes', async (t) => {
  // What the workbench asks the browser to open (VS Code in a browser
  // opens an external page in a new window): each navigation's first
  // request, before any redirect. A new window's has no frame yet.
  const opened = [];
  const onRequest = (r) => {
    if (r.isNavigationRequest() && !r.redirectedFrom()) opened.push(r.url());
  };
  context.on('request', onRequest);
  try {
    await page.goto(`${origin}/?folder=${encodeURIComponent(signin)}`);
    await page.locator('.monaco-workbench').waitFor();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'comes with configuration that takes effect only once you trust it' });
    await dialog.getByRole('button', { name: 'Trust and enable' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // VS Code asks before it opens a site it does not trust yet, as a
    // person's would.
    const ask = page.locator('.monaco-dialog-box', { hasText: 'open the external website' });
    await ask.waitFor();
    await shot('12-mcp-sign-in-open');
    await ask.getByRole('button', { name: 'Open', exact: true }).click();
    await ask.waitFor({ state: 'hidden' });
    const note = page.locator('.notification-toast', { hasText: 'MCP server "remote" wants you to sign in' });
    await note.waitFor();
    assert.equal(
      await note.locator('.notification-list-item-message').innerText(),
      'Reasonix: MCP server "remote" wants you to sign in; its page is open in your browser.',
    );
    // The toast fades in: the screenshot waits for it whole.
    await until('the toast shown whole', () => note.evaluate((e) => e.ownerDocument.defaultView.getComputedStyle(e).opacity === '1'));
    await shot('13-mcp-sign-in');
    // The page as the server built it, from its log in the output channel.
    const built = (await until('the sign-in page in the log', async () => /MCP sign-in page .*\bpage=(\S+)/.exec(await logText())))[1];
    const asked = await until('the browser to open the sign-in page', () => opened.find((u) => u.includes('/authorize?')));
    const parts = (u) => {
      const p = new URL(u);
      return { at: p.origin + p.pathname, query: [...p.searchParams].sort() };
    };
    t.diagnostic(`the server built ${built}`);
    t.diagnostic(`the browser opened ${asked}`);
    assert.deepEqual(parts(asked), parts(built), `the browser was asked to open\n  ${asked}\nfor the page the server built\n  ${built}`);

    // Every parameter came through: the authorization server knew the
    // client and its redirect, the code's exchange matched the PKCE
    // challenge, and Reasonix took the state back.
    const input = await showMcpServers();
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'remote' }).first();
    await row.waitFor();
    assert.match(await row.innerText(), /connected · 2 tools/);
    await input.press('Escape');
    await input.waitFor({ state: 'hidden' });
    const complaints = fs.readFileSync(path.join(tmp, 'scripted-model.log'), 'utf8').split('\n').filter((l) => l.startsWith('sign-in server:'));
    assert.deepEqual(complaints, []);
  } finally {
    context.off('request', onRequest);
  }
});

/** The Reasonix output channel's log file, as VS Code writes it. */
async function logText() {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/Reasonix\.log$/.test(e.name)) found.push(p);
    }
  };
  walk(path.join(userData, 'logs'));
  return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}
