// Small pieces checked on their own, against the mocked `vscode`: the
// run-time check of panel messages, the "too old" rule, the settings the
// server receives, the status bar's words, Markdown as plain text, the
// server's log levels, where go install puts binaries, and saving.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { vscode } from './harness';
import { logServerLine } from '../src/client';
import { goBinDirs, installDirs, serverSettings } from '../src/config';
import { saveDocuments } from '../src/documents';
import { plainText } from '../src/plaintext';
import { isPanelMessage } from '../src/panel';
import { Methods, missingMethods } from '../src/protocol';
import { StatusBar, hitRatio } from '../src/status';

test('isPanelMessage accepts the union and nothing else', () => {
  const good: unknown[] = [
    { type: 'ready' },
    { type: 'ask', prompt: 'hi' },
    { type: 'ask', prompt: 'hi', attach: 'selection' },
    { type: 'ask', prompt: 'hi', attach: null },
    { type: 'approve', id: 'a1', action: 'Deny' },
    { type: 'approve', id: 'a1', action: null },
    { type: 'answer', id: 'q1', answer: 'Remove it now' },
    { type: 'answer', id: 'q1', answer: null },
    { type: 'requestFiles', prefix: '' },
    { type: 'resumeSession', sessionId: 's' },
    { type: 'requestMcp' },
    { type: 'requestCommands' },
    { type: 'rewindPreview', turn: 1 },
    { type: 'rewind', turn: 12 },
  ];
  const bad: unknown[] = [
    null,
    'ask',
    {},
    { type: 'toString' },
    { type: 'constructor' },
    { type: 'ask' },
    { type: 'ask', prompt: 3 },
    { type: 'ask', prompt: 'hi', attach: 'disk' },
    { type: 'approve', id: 1, action: 'Deny' },
    { type: 'approve', id: 'a1' },
    { type: 'answer', id: 'q1' },
    { type: 'answer', id: 'q1', answer: 3 },
    { type: 'openDiff' },
    { type: 'state', model: '', running: false, sessionId: null },
    { type: 'rewind' },
    { type: 'rewind', turn: '1' },
    { type: 'rewind', turn: 0 },
    { type: 'rewindPreview', turn: 1.5 },
  ];
  for (const m of good) assert.ok(isPanelMessage(m), JSON.stringify(m));
  for (const m of bad) assert.ok(!isPanelMessage(m), JSON.stringify(m));
});

test('missingMethods names the required methods a server lacks', () => {
  const all = Object.values(Methods).map((m) => m.method);
  assert.deepEqual(missingMethods({ methods: all }), []);
  // reasonix/approve and reasonix/ask are optional: dialogs are the
  // fallback. So are reasonix/mcpServers and reasonix/memory: without them
  // there is no list of MCP servers, or of the agent's notes; and
  // reasonix/listCommands: without it the panel completes its own commands;
  // and reasonix/review: the extension reviews edits in its own panel.
  const optional = ['reasonix/approve', 'reasonix/ask', 'reasonix/mcpServers', 'reasonix/memory', 'reasonix/listCommands', 'reasonix/review'];
  assert.deepEqual(missingMethods({ methods: all.filter((m) => !optional.includes(m)) }), []);
  assert.deepEqual(missingMethods({ methods: all.filter((m) => m !== 'reasonix/saveDocuments') }), ['reasonix/saveDocuments']);
  assert.equal(missingMethods(undefined).length, all.length - optional.length);
});

test('serverSettings: reasonix.settings as written, reasonix.model as default_model', () => {
  vscode._test.setConfiguration('reasonix.settings', { default_model: 'a/b', agent: { max_steps: 3 } });
  vscode._test.setConfiguration('reasonix.model', '');
  assert.deepEqual(serverSettings(), { default_model: 'a/b', agent: { max_steps: 3 } });
  vscode._test.setConfiguration('reasonix.model', ' c/d ');
  assert.deepEqual(serverSettings(), { default_model: 'c/d', agent: { max_steps: 3 } });
  vscode._test.setConfiguration('reasonix.settings', ['not', 'an', 'object']);
  assert.deepEqual(serverSettings(), { default_model: 'c/d' });
});

test('the status bar spins while a turn runs, then shows cost and cache hits', () => {
  const status = new StatusBar('reasonix.openChat');
  try {
    assert.equal(status.text, '$(hubot) Reasonix');
    status.onEvent({ kind: 'turn_start', sessionId: 'S', turn: 1, text: 'hi' });
    assert.equal(status.text, '$(sync~spin) Reasonix');
    const usage = { prompt_tokens: 100, completion_tokens: 5, cache_hit_tokens: 75, cache_miss_tokens: 25 };
    status.onEvent({
      kind: 'turn_done',
      sessionId: 'S',
      turn: 1,
      done: { sessionId: 'S', turn: 1, text: '', stop: 'done', steps: 1, toolCalls: 0, usage, cost: 0.5, sessionUsage: usage, sessionCost: 0.0123, priced: true },
    });
    assert.equal(status.text, '$(hubot) Reasonix $0.0123 · 75% cache');
    status.setProblem('no binary');
    assert.equal(status.text, '$(error) Reasonix');
  } finally {
    status.dispose();
  }
  assert.equal(hitRatio({ prompt_tokens: 0, completion_tokens: 0, cache_hit_tokens: 0, cache_miss_tokens: 0 }), undefined);
});

test('plainText drops Markdown markers and keeps the words', () => {
  const cases: [string, string][] = [
    ['Reasonix wants to run the command `go vet ./...`.', 'Reasonix wants to run the command go vet ./....'],
    ['Use ``a `tick` b`` here', 'Use a `tick` b here'],
    ['**Bold** and *em* and __strong__ and _em_', 'Bold and em and strong and em'],
    ['snake_case_name and 2 * 3 * 4 stay', 'snake_case_name and 2 * 3 * 4 stay'],
    ['`a*b*c` keeps its stars', 'a*b*c keeps its stars'],
    ['## What was wrong', 'What was wrong'],
    ['> quoted', 'quoted'],
    ['See [the docs](https://example.com/x) now', 'See the docs (https://example.com/x) now'],
    ['~~gone~~ here', 'gone here'],
    ['Fixed:\n```go\nfunc Add(a, b int) int { return a + b }\n```\nDone.', 'Fixed:\nfunc Add(a, b int) int { return a + b }\nDone.'],
    ['no markup at all', 'no markup at all'],
  ];
  for (const [md, want] of cases) assert.equal(plainText(md), want, md);
});

test("the server's log lines reach the channel at their own level", () => {
  const lines: string[] = [];
  const log = (level: string) => (msg: string) => lines.push(`[${level}] ${msg}`);
  const channel = { trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  const server = [
    'time=2026-01-02T03:04:05.678Z level=WARN msg="Reasonix: command file x.md: no description" path=/w/x.md',
    'time=2026-01-02T03:04:05.678Z level=INFO msg="event not sent" err="connection closed"',
    'time=2026-01-02T03:04:05.678Z level=DEBUG msg=started',
    'time=2026-01-02T03:04:05.678Z level=DEBUG-4 msg="very fine"',
    'time=2026-01-02T03:04:05.678Z level=ERROR msg="Reasonix lost track of file:///w/a.go"',
    'time=2026-01-02T03:04:05.678Z level=WARN msg=config warning="/w/reasonix.toml:1: unknown setting \\"x\\" (ignored)"',
    'panic: runtime error: index out of range',
    '',
  ];
  for (const l of server) logServerLine(channel as unknown as Parameters<typeof logServerLine>[0], l);
  assert.deepEqual(lines, [
    '[warn] Reasonix: command file x.md: no description path=/w/x.md',
    '[info] event not sent err=connection closed',
    '[debug] started',
    '[trace] very fine',
    '[error] Reasonix lost track of file:///w/a.go',
    '[warn] config warning=/w/reasonix.toml:1: unknown setting "x" (ignored)',
    '[error] panic: runtime error: index out of range',
  ]);
});

test('installDirs: where go install puts it, then ~/.local/bin and /usr/local/bin (and Homebrew on macOS)', () => {
  const home = os.homedir();
  assert.deepEqual(installDirs({ GOBIN: '/opt/gobin' }, 'linux'), [
    '/opt/gobin',
    path.join(home, 'go', 'bin'),
    path.join(home, '.local', 'bin'),
    '/usr/local/bin',
  ]);
  assert.deepEqual(installDirs({}, 'darwin').slice(-1), ['/opt/homebrew/bin']);
  assert.ok(!installDirs({}, 'win32').includes('/usr/local/bin'));
});

test('goBinDirs: GOBIN, each GOPATH entry, then ~/go/bin', () => {
  const home = os.homedir();
  assert.deepEqual(goBinDirs({ GOBIN: '/opt/gobin', GOPATH: ['/a', '/b'].join(path.delimiter) }), [
    '/opt/gobin',
    '/a/bin',
    '/b/bin',
    path.join(home, 'go', 'bin'),
  ]);
  assert.deepEqual(goBinDirs({}), [path.join(home, 'go', 'bin')]);
  assert.deepEqual(goBinDirs({ GOPATH: path.join(home, 'go') }), [path.join(home, 'go', 'bin')]);
});

test('saveDocuments: a save that overlaps the auto-save still counts; a refused one fails', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-save-'));
  try {
    const file = path.join(dir, 'a.txt');
    fs.writeFileSync(file, 'old\n');
    const uri = vscode.Uri.file(file);
    const doc = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(0, 0, 0, 3), 'new');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(doc.isDirty);

    vscode._test.overlappingAutoSave.add(file);
    assert.deepEqual(await saveDocuments({ uris: [uri.toString()] }), { saved: [uri.toString()], failed: [] });
    assert.equal(fs.readFileSync(file, 'utf8'), 'new\n');
    assert.equal(doc.isDirty, false);

    const again = new vscode.WorkspaceEdit();
    again.replace(uri, new vscode.Range(0, 0, 0, 3), 'NEW');
    assert.ok(await vscode.workspace.applyEdit(again));
    vscode._test.refuseSave.add(file);
    const refused = await saveDocuments({ uris: [uri.toString()] });
    assert.deepEqual(refused.saved, []);
    assert.equal(refused.failed?.[0]?.uri, uri.toString());
    assert.equal(fs.readFileSync(file, 'utf8'), 'new\n');
  } finally {
    vscode._test.refuseSave.clear();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
