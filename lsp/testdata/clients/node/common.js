// What the Node client programs share (client.js, review*.js): the
// environment, an editor's documents and how it applies workspace edits,
// the server process, and waiting.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  DidChangeTextDocumentNotification,
  ShowMessageRequest,
  ApplyWorkspaceEditRequest,
  PublishDiagnosticsNotification,
} = require('vscode-languageserver-protocol/node');

const TIMEOUT_MS = 45000;

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

function say(msg) {
  process.stderr.write(`node: ${msg}\n`);
}

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

// offsetAt turns an LSP position (UTF-16, the encoding this client
// offers and JavaScript strings use) into an index in text.
function offsetAt(text, pos) {
  let line = 0;
  let i = 0;
  while (line < pos.line) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) throw new Error(`line ${pos.line} is past the end`);
    i = nl + 1;
    line++;
  }
  const end = text.indexOf('\n', i);
  const lineEnd = end < 0 ? text.length : end;
  if (i + pos.character > lineEnd) throw new Error(`character ${pos.character} is past line ${pos.line}'s end`);
  return i + pos.character;
}

function comparePos(a, b) {
  return a.line - b.line || a.character - b.character;
}

// applyTextEdits applies non-overlapping edits, as the LSP defines them
// (all ranges refer to the text before any edit), and returns the new
// text and the edits in the order applied: last first, so each range is
// still valid when it is applied, and the same list is a valid sequence
// of incremental didChange events.
function applyTextEdits(text, edits) {
  const sorted = edits.map((e, i) => ({ e, i }))
    .sort((a, b) => comparePos(b.e.range.start, a.e.range.start) || b.i - a.i)
    .map((x) => x.e);
  for (let k = 1; k < sorted.length; k++) {
    check(comparePos(sorted[k].range.end, sorted[k - 1].range.start) <= 0, 'overlapping text edits');
  }
  for (const e of sorted) {
    const start = offsetAt(text, e.range.start);
    const end = offsetAt(text, e.range.end);
    check(start <= end, 'a text edit ends before it starts');
    text = text.slice(0, start) + e.newText + text.slice(end);
  }
  return { text, applied: sorted };
}

function docFor(docs, uri) {
  let doc = docs.get(uri);
  if (!doc) {
    // An editor loads a file it does not have open into a buffer, which
    // the user saves later.
    const p = new URL(uri).pathname;
    doc = { path: p, version: 0, text: fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : '', hidden: true };
    docs.set(uri, doc);
  }
  return doc;
}

// applyWorkspaceEdit applies an edit all or nothing, as VS Code does:
// versions are checked before anything changes.
function applyWorkspaceEdit(conn, docs, seen, edit) {
  const changes = [];
  for (const dc of edit.documentChanges || []) {
    if (dc.kind) throw new Error(`resource operation ${dc.kind} is not expected in this scenario`);
    const doc = docFor(docs, dc.textDocument.uri);
    const v = dc.textDocument.version;
    if (v !== null && v !== undefined && v !== doc.version) {
      return { applied: false, failureReason: `${dc.textDocument.uri} is at version ${doc.version}, the edit is for ${v}` };
    }
    changes.push({ uri: dc.textDocument.uri, doc, edits: dc.edits });
  }
  for (const [uri, edits] of Object.entries(edit.changes || {})) {
    changes.push({ uri, doc: docFor(docs, uri), edits });
  }
  const results = changes.map((c) => ({ c, r: applyTextEdits(c.doc.text, c.edits) }));
  for (const { c, r } of results) {
    c.doc.text = r.text;
    c.doc.version++;
    if (!c.doc.hidden) {
      conn.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri: c.uri, version: c.doc.version },
        contentChanges: r.applied.map((e) => ({ range: e.range, text: e.newText })),
      });
    }
  }
  seen.edits++;
  return { applied: true };
}

function startServer() {
  const child = spawn(env('REASONIX_LSP'), [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  return { child, exited, conn };
}

// waitFor polls cond on the event loop until it holds.
function waitFor(what, cond, ms = TIMEOUT_MS) {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const tick = () => {
      const v = cond();
      if (v) return resolve(v);
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 10);
    };
    tick();
  });
}

function within(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

// initializeReview initializes the server as a plain editor that reviews
// the agent's changes with diagnostics and code actions (review =
// "propose"), with the workspace folder root.
async function initializeReview(conn, root, name) {
  const rootUri = pathToFileURL(root).href;
  await conn.sendRequest('initialize', {
    processId: process.pid,
    clientInfo: { name, version: '0' },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
    initializationOptions: { review: 'propose' },
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, workspaceFolders: true, executeCommand: {} },
      textDocument: {
        synchronization: { didSave: true },
        publishDiagnostics: { tagSupport: { valueSet: [1, 2] } },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } } },
      },
    },
  });
  await conn.sendNotification('initialized', {});
}

// reviewActionsAt asks for the code actions on a line of the document
// uri, with the diagnostics diags lists there.
function reviewActionsAt(conn, uri, diags, line, character = 0) {
  return conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line, character }, end: { line, character } },
    context: { diagnostics: diags.filter((d) => d.range.start.line === line) },
  });
}

// checkReviewTitles checks that actions offer the review of a hunk and of
// the whole file of n hunks.
function checkReviewTitles(actions, n) {
  const titles = actions.map((a) => a.title);
  for (const t of ['Accept this change', 'Reject this change', `Accept all ${n} changes in this file`, `Reject all ${n} changes in this file`, 'Show diff']) {
    check(titles.includes(t), `no "${t}" among ${JSON.stringify(titles)}`);
  }
  return titles;
}

// stopServer shuts the server down as an editor does, and checks that it
// exits cleanly.
async function stopServer(conn, exited) {
  await conn.sendRequest('shutdown');
  await conn.sendNotification('exit');
  const { code } = await within(exited, 5000, 'the server\'s exit');
  check(code === 0, `the server exited with ${code}`);
  conn.dispose();
}

// runClient runs main within the time limit, prints its summary and exits
// 0, or says why it failed, kills the server (the child process server()
// returns, if any) and exits 1.
function runClient(main, server) {
  const fail = (err) => {
    say(`FAIL: ${err.stack || err}`);
    const child = server();
    if (child) child.kill('SIGKILL');
    process.exit(1);
  };
  const guard = setTimeout(() => fail(new Error(`no result after ${TIMEOUT_MS + 10000} ms`)), TIMEOUT_MS + 10000);
  main().then((summary) => {
    clearTimeout(guard);
    console.log(JSON.stringify(summary));
    process.exit(0);
  }, fail);
}

// startShellReview starts the server for a review of a shell command's
// changes to closed files, as the client name: dialogs are allowed for the
// session, and a workspace edit, which the server must not send (undoing
// such a change is its own write to disk), is refused and counted in
// seen.edits; seen.diagnostics holds the last diagnostics of each uri.
async function startShellReview(root, name) {
  const { child, exited, conn } = startServer();
  const seen = { edits: 0, diagnostics: new Map() };
  conn.onRequest(ShowMessageRequest.type, () => ({ title: 'Allow for session' }));
  conn.onRequest(ApplyWorkspaceEditRequest.type, () => {
    seen.edits++;
    return { applied: false, failureReason: 'no edit expected' };
  });
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => seen.diagnostics.set(p.uri, p.diagnostics));
  conn.listen();
  await initializeReview(conn, root, name);
  return { child, exited, conn, seen };
}

module.exports = { startShellReview, TIMEOUT_MS, env, say, check, offsetAt, applyTextEdits, docFor, applyWorkspaceEdit, startServer, initializeReview, reviewActionsAt, checkReviewTitles, stopServer, runClient, waitFor, within };
