#!/usr/bin/env node
// vscode-languageserver-protocol rewinds a session's two turns
// (rewind.txtar): the first turn edits the open calc.go and changes
// user.txt with a command, the second's command makes made.txt, removes
// gone.txt and changes shared.txt; the user then writes user.txt. The
// client lists the turns (reasonix.checkpoints), previews the rewind to
// turn 1, rewinds (reasonix.rewind): calc.go comes back through one
// versioned workspace edit, the closed files on disk, user.txt is left as
// a conflict, and a summary is shown. Bad arguments are refused with
// -32602, and a third turn runs in the session.
//
//   node node/rewind.js
//
// lsp/clients_rewind_test.go runs it with REASONIX_LSP,
// REASONIX_TEST_ROOT and REASONIX_TEST_FILE (calc.go). It exits 0 only
// if every check held.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const {
  ExecuteCommandRequest,
  DidOpenTextDocumentNotification,
  ShowMessageRequest,
  ShowMessageNotification,
  ApplyWorkspaceEditRequest,
} = require('vscode-languageserver-protocol/node');
const { env, say, check, applyWorkspaceEdit, startServer, stopServer, runClient } = require('./common');

async function main() {
  const root = env('REASONIX_TEST_ROOT');
  const file = env('REASONIX_TEST_FILE');
  const fileUri = pathToFileURL(file).href;
  const rootUri = pathToFileURL(root).href;
  const at = (name) => path.join(root, name);

  const { child, exited, conn } = startServer();
  server = child;
  const docs = new Map();
  const seen = { edits: 0, versions: [], messages: [] };
  conn.onRequest(ShowMessageRequest.type, () => ({ title: 'Allow once' }));
  conn.onRequest(ApplyWorkspaceEditRequest.type, (params) => {
    for (const dc of params.edit.documentChanges || []) {
      if (dc.textDocument) seen.versions.push(dc.textDocument.version);
    }
    try {
      return applyWorkspaceEdit(conn, docs, seen, params.edit);
    } catch (err) {
      return { applied: false, failureReason: err.message };
    }
  });
  conn.onNotification(ShowMessageNotification.type, (p) => {
    seen.messages.push(p);
    say(`message (type ${p.type}): ${p.message}`);
  });
  conn.listen();

  // A plain editor: versioned edits, no resource operations, so the
  // server changes the closed files on disk itself.
  const init = await conn.sendRequest('initialize', {
    processId: process.pid,
    clientInfo: { name: 'reasonix-node-rewind-test', version: '0' },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, workspaceFolders: true, executeCommand: {} },
      window: { showMessage: { messageActionItem: { additionalPropertiesSupport: false } } },
    },
  });
  const commands = init.capabilities.executeCommandProvider.commands;
  check(commands.includes('reasonix.rewind') && commands.includes('reasonix.checkpoints'), `commands ${JSON.stringify(commands)}`);
  await conn.sendNotification('initialized', {});

  const original = fs.readFileSync(file, 'utf8');
  docs.set(fileUri, { path: file, version: 1, text: original, hidden: false });
  await conn.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri: fileUri, languageId: 'go', version: 1, text: original },
  });

  const exec = (command, arg) => conn.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] });
  const ask = async (prompt, sessionId) => {
    const turn = await exec('reasonix.ask', sessionId ? { prompt, sessionId } : { prompt });
    check(turn.stop === 'done', `the turn "${prompt}" answered ${JSON.stringify(turn)}`);
    return turn;
  };

  const first = await ask('First turn: fix Add, and user.txt.');
  const sessionId = first.sessionId;
  check(docs.get(fileUri).text.includes('return a + b'), `calc.go after the first turn:\n${docs.get(fileUri).text}`);
  await ask('Second turn: the other files.', sessionId);
  check(fs.existsSync(at('made.txt')) && !fs.existsSync(at('gone.txt')), 'the second turn\'s command did not run');
  say(`two turns ran in session ${sessionId}`);

  // The user changes user.txt over the agent's change.
  fs.writeFileSync(at('user.txt'), 'gamma\n');

  const listed = await exec('reasonix.checkpoints', { sessionId });
  check(listed.sessionId === sessionId && listed.turns.map((c) => c.turn).join() === '1,2' &&
    listed.turns[0].prompt.startsWith('First turn') && listed.turns[1].files.length === 3,
  `reasonix.checkpoints answered ${JSON.stringify(listed)}`);

  const actionOf = (plan, name) => (plan.files.find((f) => f.path === at(name)) || {}).action;
  const preview = await exec('reasonix.rewind', { sessionId, turn: 1, preview: true });
  check(preview.done === false && actionOf(preview, 'calc.go') === 'restore' && fs.existsSync(at('made.txt')) &&
    docs.get(fileUri).text.includes('return a + b'), `the preview ${JSON.stringify(preview)}, or it changed something`);

  const editsBefore = seen.edits;
  const versionBefore = docs.get(fileUri).version;
  const versionsBefore = seen.versions.length;
  const plan = await exec('reasonix.rewind', { sessionId, turn: 1 });
  check(plan.done === true && plan.turns.join() === '1,2' && plan.messages > 0, `reasonix.rewind answered ${JSON.stringify(plan)}`);
  const want = { 'calc.go': 'restore', 'made.txt': 'remove', 'gone.txt': 'recreate', 'shared.txt': 'restore', 'user.txt': 'conflict' };
  for (const [name, action] of Object.entries(want)) {
    check(actionOf(plan, name) === action, `${name}: ${actionOf(plan, name)}, want ${action}, in ${JSON.stringify(plan.files)}`);
  }
  check(seen.edits === editsBefore + 1, `${seen.edits - editsBefore} workspace edits for the rewind, want 1`);
  check(seen.versions.length === versionsBefore + 1 && seen.versions[versionsBefore] === versionBefore,
    `the rewind's edit is for versions ${JSON.stringify(seen.versions.slice(versionsBefore))}, the document is at ${versionBefore}`);
  check(docs.get(fileUri).text === original, `calc.go after the rewind:\n${docs.get(fileUri).text}`);
  check(!fs.existsSync(at('made.txt')), 'made.txt is still there');
  check(fs.readFileSync(at('gone.txt'), 'utf8') === 'keep me\n', 'gone.txt was not written back');
  check(fs.readFileSync(at('shared.txt'), 'utf8') === 'one\ntwo\n', 'shared.txt was not put back');
  check(fs.readFileSync(at('user.txt'), 'utf8') === 'gamma\n', 'the user\'s user.txt was changed');
  const summary = seen.messages.find((m) => m.message.startsWith('Reasonix: Rewound to before turn 1'));
  check(summary && summary.type === 3 && summary.message.includes('1 conflict') && summary.message.includes('user.txt'),
    `the summary ${JSON.stringify(seen.messages)}`);

  for (const bad of [{ sessionId, turn: 7 }, { sessionId, turn: '1' }, { sessionId: 'no-such-session', turn: 1 }, { turn: 1 }]) {
    let failed;
    try {
      await exec('reasonix.rewind', bad);
    } catch (err) {
      failed = err;
    }
    check(failed && failed.code === -32602, `reasonix.rewind ${JSON.stringify(bad)}: ${failed ? failed.code + ' ' + failed.message : 'succeeded'}`);
  }
  const after = await exec('reasonix.checkpoints', { sessionId });
  check(after.turns.length === 0, `turns left after the rewind: ${JSON.stringify(after.turns)}`);

  const third = await ask('Third turn: start again.', sessionId);
  check(third.text === 'Third turn done.' && third.turn === 3, `the third turn answered ${JSON.stringify(third)}`);

  await stopServer(conn, exited);
  server = undefined;
  return { ok: true, summary: summary.message };
}

let server;
runClient(main, () => server);
