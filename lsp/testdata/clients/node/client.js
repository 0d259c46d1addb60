#!/usr/bin/env node
// vscode-languageserver-protocol, the library VS Code's language client is
// built on, drives `reasonix lsp` as the bundled VS Code extension does:
// with every Reasonix extension declared (streamed events, saveDocuments),
// edits applied to its own in-memory documents, work-done progress.
//
//   node node/client.js
//
// lsp/clients_test.go runs it with the environment:
//   REASONIX_LSP              the server command (`reasonix lsp`)
//   REASONIX_TEST_ROOT        the workspace folder
//   REASONIX_TEST_FILE        the file to open
//   REASONIX_TEST_DIAGNOSTIC  the diagnostic to report for it (JSON), as
//                             gopls would: the server computes none
//   REASONIX_TEST_WANT        the file's text once fixed
//
// Three turns in one session (node.txtar's model script matches on their
// prompts): the quick fix (reasonix.start from the code action), a
// question (reasonix.ask), and a slow answer stopped with reasonix.cancel.
// It prints a JSON summary as its last line and exits 0 only if every
// check held.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const {
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  CodeActionRequest,
  ExecuteCommandRequest,
  ShowMessageRequest,
  ShowMessageNotification,
  LogMessageNotification,
  ApplyWorkspaceEditRequest,
  WorkDoneProgressCreateRequest,
  WorkDoneProgress,
  ShutdownRequest,
  ExitNotification,
  RequestType,
  NotificationType,
} = require('vscode-languageserver-protocol/node');
const { TIMEOUT_MS, env, say, check, applyWorkspaceEdit, startServer, waitFor, within } = require('./common');

// The custom methods of docs/PROTOCOL.md this client implements.
const SaveDocumentsRequest = new RequestType('reasonix/saveDocuments');
const EventNotification = new NotificationType('reasonix/event');

const CANCEL_WITHIN_MS = 1000;
const ACTIONS = ['Allow once', 'Allow for session', 'Always allow', 'Deny'];
// The prompts of turns two and three; node.txtar's steps match on them.
const QUESTION = 'Which function did you change, and why?';
const SLOW = 'Walk me through every test in this package, slowly.';

// What the server sent us, for the checks and the summary.
const seen = {
  dialogs: [],
  edits: 0,
  saves: [],
  logs: [],
  messages: [],
  progress: [], // {token, kind, title?, message?, at}
  events: [], // reasonix/event params
  unhandledProgress: 0,
};

// Documents the editor has open: uri -> {path, version, text, languageId}.
const docs = new Map();

async function main() {
  const root = env('REASONIX_TEST_ROOT');
  const file = env('REASONIX_TEST_FILE');
  const diagnostic = JSON.parse(env('REASONIX_TEST_DIAGNOSTIC'));
  const want = env('REASONIX_TEST_WANT');
  const fileUri = pathToFileURL(file).href;
  const rootUri = pathToFileURL(root).href;

  const { child, exited, conn } = startServer();
  server = child;
  const summary = { ok: false };
  conn.onError(([err]) => say(`connection error: ${err && err.message}`));

  conn.onRequest(ShowMessageRequest.type, (params) => {
    seen.dialogs.push({ message: params.message, actions: (params.actions || []).map((a) => a.title) });
    say(`dialog: ${params.message}`);
    return { title: 'Allow once' };
  });
  conn.onRequest(ApplyWorkspaceEditRequest.type, (params) => {
    try {
      return applyWorkspaceEdit(conn, docs, seen, params.edit);
    } catch (err) {
      return { applied: false, failureReason: err.message };
    }
  });
  conn.onRequest(SaveDocumentsRequest, (params) => {
    const saved = [];
    const failed = [];
    for (const uri of params.uris) {
      const doc = docs.get(uri);
      if (!doc) {
        failed.push({ uri, reason: 'not open' });
        continue;
      }
      fs.writeFileSync(doc.path, doc.text);
      if (!doc.hidden) conn.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri } });
      saved.push(uri);
    }
    seen.saves.push(saved);
    return { saved, failed };
  });
  conn.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    conn.onProgress(WorkDoneProgress.type, token, (value) => {
      seen.progress.push({ token, kind: value.kind, title: value.title, message: value.message, at: Date.now() });
    });
    return null;
  });
  conn.onUnhandledProgress(() => { seen.unhandledProgress++; });
  conn.onNotification(LogMessageNotification.type, (p) => seen.logs.push(p.message));
  conn.onNotification(ShowMessageNotification.type, (p) => {
    seen.messages.push(p);
    say(`message (type ${p.type}): ${p.message}`);
  });
  conn.onNotification(EventNotification, (e) => seen.events.push({ ...e, at: Date.now() }));
  conn.listen();

  const init = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    clientInfo: { name: 'reasonix-node-test', version: '0' },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      workspace: {
        applyEdit: true,
        workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] },
        workspaceFolders: true,
        executeCommand: {},
      },
      textDocument: {
        synchronization: { didSave: true },
        codeAction: {
          codeActionLiteralSupport: {
            codeActionKind: { valueSet: ['quickfix', 'refactor', 'refactor.rewrite', 'source'] },
          },
        },
      },
      window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: false } } },
      experimental: { reasonix: { events: true, saveDocuments: true } },
    },
  });
  check(init.capabilities.executeCommandProvider.commands.includes('reasonix.ask'), 'no reasonix.ask command');
  check(init.capabilities.experimental && init.capabilities.experimental.reasonix, 'no experimental.reasonix');
  summary.server = init.serverInfo;
  await conn.sendNotification(InitializedNotification.type, {});

  const text = fs.readFileSync(file, 'utf8');
  docs.set(fileUri, { path: file, version: 1, text, hidden: false });
  await conn.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri: fileUri, languageId: 'go', version: 1, text },
  });

  // Turn 1: the quick fix.
  const actions = await conn.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: fileUri },
    range: diagnostic.range,
    context: { diagnostics: [diagnostic] },
  });
  const fix = actions.find((a) => a.title.startsWith('Ask Reasonix to fix'));
  check(fix, `no "Ask Reasonix to fix" among ${JSON.stringify(actions)}`);
  check(fix.kind === 'quickfix' && fix.command, `bad quick fix ${JSON.stringify(fix)}`);
  const started = await within(conn.sendRequest(ExecuteCommandRequest.type, fix.command), 5000, 'reasonix.start');
  check(started && started.sessionId, `reasonix.start answered ${JSON.stringify(started)}`);
  const sessionId = started.sessionId;
  say(`session ${sessionId}`);
  const turnDone = (turn) => seen.events.find((e) => e.kind === 'turn_done' && e.sessionId === sessionId && e.turn === turn);
  await waitFor('the quick fix turn to end', () => turnDone(1));
  await waitFor('the progress of the quick fix to end', () => seen.progress.some((p) => p.kind === 'end'));
  check(docs.get(fileUri).text === want, `the document after the fix:\n${docs.get(fileUri).text}`);
  check(fs.readFileSync(file, 'utf8') === want, 'the fix was not saved before the command ran');
  check(seen.edits === 1, `${seen.edits} workspace edits, want 1`);
  check(seen.saves.length === 1 && seen.saves[0][0] === fileUri, `saves ${JSON.stringify(seen.saves)}`);
  check(seen.dialogs.length === 2, `${seen.dialogs.length} dialogs, want 2 (the edit, the command)`);
  for (const d of seen.dialogs) check(d.actions.join('|') === ACTIONS.join('|'), `dialog actions ${d.actions}`);
  const end1 = seen.progress.find((p) => p.kind === 'end');
  check(/^Done: 3 tool calls/.test(end1.message), `progress end "${end1.message}"`);
  check(seen.logs.some((l) => l.includes('go test')), `no log line for the command among ${JSON.stringify(seen.logs)}`);

  // Turn 2: a question, answered when the turn ends.
  const asked = await conn.sendRequest(ExecuteCommandRequest.type, {
    command: 'reasonix.ask',
    arguments: [{ prompt: QUESTION, uri: fileUri, sessionId }],
  });
  check(asked && asked.sessionId === sessionId, `reasonix.ask answered ${JSON.stringify(asked)}`);
  check(typeof asked.text === 'string' && asked.text.includes('Add'), `reasonix.ask text ${JSON.stringify(asked.text)}`);
  check(asked.stop === 'done' && asked.turn === 2, `reasonix.ask stop ${asked.stop}, turn ${asked.turn}`);
  summary.ask = { text: asked.text, turn: asked.turn, toolCalls: asked.toolCalls, cacheHitRatio: asked.cacheHitRatio };

  // Turn 3: a slow answer, cancelled once it has begun streaming.
  const slow = conn.sendRequest(ExecuteCommandRequest.type, {
    command: 'reasonix.ask',
    arguments: [{ prompt: SLOW, sessionId }],
  }).then((r) => ({ result: r, at: Date.now() }), (err) => ({ error: err, at: Date.now() }));
  await waitFor('the slow answer to stream', () =>
    seen.events.find((e) => e.kind === 'text' && e.sessionId === sessionId && e.turn === 3));
  const endsBefore = seen.progress.filter((p) => p.kind === 'end').length;
  const cancelAt = Date.now();
  const cancelled = await conn.sendRequest(ExecuteCommandRequest.type, {
    command: 'reasonix.cancel',
    arguments: [{ sessionId }],
  });
  check(cancelled && cancelled.cancelled === true, `reasonix.cancel answered ${JSON.stringify(cancelled)}`);
  const settled = await within(slow, CANCEL_WITHIN_MS, 'the cancelled reasonix.ask to settle');
  await waitFor('the cancelled turn\'s progress to end',
    () => seen.progress.filter((p) => p.kind === 'end').length > endsBefore, CANCEL_WITHIN_MS);
  const progressEnd = seen.progress.filter((p) => p.kind === 'end')[endsBefore];
  summary.cancel = {
    askSettledMs: settled.at - cancelAt,
    progressEndMs: progressEnd.at - cancelAt,
    progressEnd: progressEnd.message,
    ask: settled.error ? { error: settled.error.code, message: settled.error.message } : settled.result,
  };
  check(summary.cancel.askSettledMs <= CANCEL_WITHIN_MS, `the cancelled turn took ${summary.cancel.askSettledMs} ms`);
  check(summary.cancel.progressEndMs <= CANCEL_WITHIN_MS, `its progress ended after ${summary.cancel.progressEndMs} ms`);
  if (settled.result) {
    check(settled.result.stop !== 'done', `the cancelled turn reports stop "${settled.result.stop}"`);
  }

  const kinds = new Set(seen.events.map((e) => e.kind));
  for (const k of ['turn_start', 'tool_start', 'tool_result', 'usage', 'turn_done', 'approval', 'text']) {
    check(kinds.has(k), `no ${k} event among ${[...kinds]}`);
  }
  check(seen.unhandledProgress === 0, `${seen.unhandledProgress} $/progress without window/workDoneProgress/create`);

  await conn.sendRequest(ShutdownRequest.type);
  await conn.sendNotification(ExitNotification.type);
  const { code, signal } = await within(exited, 5000, 'the server\'s exit');
  check(code === 0, `the server exited with ${code} (signal ${signal})`);
  conn.dispose();
  server = undefined;

  Object.assign(summary, {
    ok: true,
    sessionId,
    dialogs: seen.dialogs.length,
    edits: seen.edits,
    saves: seen.saves.length,
    logs: seen.logs.length,
    progress: seen.progress.map((p) => p.kind).join(','),
    events: Object.fromEntries([...kinds].map((k) => [k, seen.events.filter((e) => e.kind === k).length])),
    serverExit: code,
  });
  return summary;
}

let server;
const guard = setTimeout(() => fail(new Error(`no result after ${TIMEOUT_MS + 10000} ms`)), TIMEOUT_MS + 10000);

function fail(err) {
  say(`FAIL: ${err.stack || err}`);
  console.log(JSON.stringify({ ok: false, error: String(err.message || err), seen: { ...seen, events: seen.events.map((e) => e.kind) } }));
  if (server) server.kill('SIGKILL');
  process.exit(1);
}

main().then((summary) => {
  clearTimeout(guard);
  console.log(JSON.stringify(summary));
  process.exit(0);
}, fail);
