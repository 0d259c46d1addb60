#!/usr/bin/env node
// Records the chat panel's fixtures from the real server: plays
// fixtures/turn.txtar with bin/scripted-model, drives `bin/reasonix lsp`
// as the VS Code extension does (events and approvals declared), and
// writes what the extension would hand the panel:
//
//   fixtures/turn.jsonl     one extension→panel message a line: every
//                           reasonix/event as {type:'event'}, and every
//                           permission question as {type:'approval'}
//   fixtures/sessions.json  {type:'sessions'} from reasonix/listSessions
//   fixtures/resumed.json   {type:'resumed'} from reasonix/resumeSession
//
//   cd /work/main && make build && node editors/vscode/test/webview/record.mjs
//
// The bash call is allowed for the session and the edit once, so the
// fixture holds both kinds of answer. Re-recording changes session ids,
// temp paths and dates, nothing the tests match on.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../../..');
const fixtures = path.join(here, 'fixtures');
const scenario = path.join(fixtures, 'turn.txtar');
const reasonix = path.join(repo, 'bin/reasonix');
const scriptedModel = path.join(repo, 'bin/scripted-model');
const ANSWERS = { bash: 'Allow for session' }; // anything else: Allow once
const TIMEOUT_MS = 60000;

for (const bin of [reasonix, scriptedModel]) {
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run make build in ${repo}`);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-record-'));
const root = path.join(tmp, 'calc');
const home = path.join(tmp, 'home');
fs.mkdirSync(home);
execFileSync(scriptedModel, ['-script', scenario, '-extract', root]);
const prompt = execFileSync(scriptedModel, ['-script', scenario, '-section', 'prompt'], { encoding: 'utf8' }).trim();

const children = [];
function cleanup() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
}

async function startModel() {
  const urlFile = path.join(tmp, 'model.url');
  const model = spawn(scriptedModel, ['-script', scenario, '-url-file', urlFile], { stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(model);
  const deadline = Date.now() + 10000;
  while (!fs.existsSync(urlFile)) {
    if (Date.now() > deadline) throw new Error('scripted-model did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  return fs.readFileSync(urlFile, 'utf8');
}

// rpc speaks JSON-RPC 2.0 with LSP framing over a child's stdio.
function rpc(child, onRequest, onNotification) {
  let nextId = 1;
  const pending = new Map();
  let buf = Buffer.alloc(0);
  const send = (msg) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...msg }));
    child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    child.stdin.write(body);
  };
  child.stdout.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const sep = buf.indexOf('\r\n\r\n');
      if (sep < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, sep).toString())[1]);
      if (buf.length < sep + 4 + len) return;
      const msg = JSON.parse(buf.subarray(sep + 4, sep + 4 + len).toString());
      buf = buf.subarray(sep + 4 + len);
      if (msg.method && msg.id !== undefined) {
        Promise.resolve(onRequest(msg.method, msg.params, msg.id)).then((result) => send({ id: msg.id, result: result ?? null }));
      } else if (msg.method) {
        onNotification(msg.method, msg.params);
      } else {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
        else p.resolve(msg.result);
      }
    }
  });
  return {
    request: (method, params) => new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject, method });
      send({ id, method, params });
    }),
    notify: (method, params) => send({ method, params }),
  };
}

async function main() {
  const url = await startModel();
  // The model is the user's own (their config.toml needs no trust), as
  // a workspace's own provider is used only once the user trusts it. The
  // edits apply at once, as they do for the extension, whose review
  // panel this recorder has not.
  fs.writeFileSync(path.join(home, 'config.toml'), `default_model = "scripted"
review = "apply"
[[providers]]
name = "scripted"
base_url = ${JSON.stringify(url)}
model = "deepseek-flash"
`);
  const server = spawn(reasonix, ['lsp'], {
    cwd: root,
    env: { ...process.env, REASONIX_HOME: home, DEEPSEEK_API_KEY: '' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(server);

  const messages = [];
  let lastApproval; // the approval event of a dialog the server opens next
  const lastTitle = new Map(); // tool name -> title of its latest tool_start
  let approvals = 0;
  const answer = (request) => {
    const action = ANSWERS[request.tool] ?? 'Allow once';
    messages.push({ type: 'approval', id: `approval-${++approvals}`, request });
    return action;
  };
  const conn = rpc(server, (method, params) => {
    switch (method) {
      case 'reasonix/approve':
        return { action: answer(params) };
      case 'window/showMessageRequest': {
        // A server without reasonix/approve: the extension builds the
        // same card from the approval event that came just before.
        const { sessionId, tool, arguments: args, scope, message, actions } = lastApproval;
        return { title: answer({ sessionId, tool, title: lastTitle.get(tool), arguments: args, scope, message, actions }) };
      }
      default:
        return null;
    }
  }, (method, params) => {
    if (method !== 'reasonix/event') return;
    if (params.kind === 'approval') lastApproval = params;
    if (params.kind === 'tool_start') lastTitle.set(params.tool.name, params.tool.title);
    messages.push({ type: 'event', event: params });
  });

  const rootUri = pathToFileURL(root).href;
  await conn.request('initialize', {
    processId: process.pid,
    clientInfo: { name: 'reasonix-webview-recorder', version: '0' },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: 'calc' }],
    capabilities: {
      window: { showMessage: {} },
      experimental: { reasonix: { events: true, approvals: true } },
    },
  });
  conn.notify('initialized', {});

  const result = await conn.request('workspace/executeCommand', { command: 'reasonix.ask', arguments: [{ prompt }] });
  if (result.stop !== 'done') throw new Error(`the turn ended with ${JSON.stringify(result)}`);
  if (!messages.some((m) => m.type === 'approval')) throw new Error('no permission question was recorded');
  const sessions = await conn.request('reasonix/listSessions', { folder: rootUri });
  const resumed = await conn.request('reasonix/resumeSession', { sessionId: result.sessionId });
  await conn.request('shutdown');
  conn.notify('exit');

  fs.writeFileSync(path.join(fixtures, 'turn.jsonl'), messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
  fs.writeFileSync(path.join(fixtures, 'sessions.json'), JSON.stringify({ type: 'sessions', list: sessions.sessions }, null, 1) + '\n');
  fs.writeFileSync(path.join(fixtures, 'resumed.json'), JSON.stringify({ type: 'resumed', ...resumed }, null, 1) + '\n');
  const kinds = {};
  for (const m of messages) {
    const k = m.type === 'event' ? m.event.kind : m.type;
    kinds[k] = (kinds[k] ?? 0) + 1;
  }
  console.log(`recorded ${messages.length} messages: ${JSON.stringify(kinds)}`);
}

const guard = setTimeout(() => { console.error(`no result after ${TIMEOUT_MS} ms`); cleanup(); process.exit(1); }, TIMEOUT_MS);
main().then(() => { clearTimeout(guard); cleanup(); }, (err) => { console.error(err); cleanup(); process.exit(1); });
