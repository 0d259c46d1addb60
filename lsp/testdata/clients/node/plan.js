#!/usr/bin/env node
// vscode-languageserver-protocol, a plain LSP client that opens documents
// (window/showDocument), is asked to approve a planner's plan: the plan
// comes as a Markdown document first, then a dialog that says where it
// is.
//
//   node node/plan.js
//
// lsp/clients_plan_test.go runs it (plan.txtar) with the environment:
//   REASONIX_LSP        the server command (`reasonix lsp`)
//   REASONIX_TEST_ROOT  the workspace folder
// It exits 0 only if every check held.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { fileURLToPath, pathToFileURL } = require('node:url');
const { ExecuteCommandRequest, ShowMessageRequest, ShowDocumentRequest } = require('vscode-languageserver-protocol/node');
const { env, say, check, startServer, stopServer, runClient } = require('./common');

const PLAN_ACTIONS = 'Approve plan|Keep planning';

async function main() {
  const root = env('REASONIX_TEST_ROOT');
  const { child, exited, conn } = startServer();
  server = child;
  const seen = { dialogs: [], shown: [] };
  conn.onRequest(ShowDocumentRequest.type, (p) => {
    // The document is read when the editor opens it, as an editor would.
    const file = fileURLToPath(p.uri);
    seen.shown.push({ file, text: fs.readFileSync(file, 'utf8'), takeFocus: p.takeFocus });
    say(`shown: ${file}`);
    return { success: true };
  });
  conn.onRequest(ShowMessageRequest.type, (p) => {
    const actions = (p.actions || []).map((a) => a.title).join('|');
    seen.dialogs.push({ message: p.message, actions, shownBefore: seen.shown.length });
    say(`dialog: ${p.message} [${actions}]`);
    return actions === PLAN_ACTIONS ? { title: 'Approve plan' } : null;
  });
  conn.listen();

  const rootUri = pathToFileURL(root).href;
  await conn.sendRequest('initialize', {
    processId: process.pid,
    clientInfo: { name: 'reasonix-node-plan-test', version: '0' },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
    initializationOptions: { agent: { planner_model: 'scripted/planner-model' } },
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      window: { showDocument: { support: true } },
      workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, workspaceFolders: true, executeCommand: {} },
    },
  });
  await conn.sendNotification('initialized', {});

  const turn = await conn.sendRequest(ExecuteCommandRequest.type, {
    command: 'reasonix.ask',
    arguments: [{ prompt: 'Make hello.py greet the world.' }],
  });
  check(turn.stop === 'done' && turn.text === 'Done as planned.', `the turn ended with ${JSON.stringify(turn)}`);

  check(seen.shown.length === 1, `${seen.shown.length} documents shown, want the plan: ${JSON.stringify(seen.shown)}`);
  const doc = seen.shown[0];
  check(doc.file.endsWith('.md'), `the plan is not a Markdown file: ${doc.file}`);
  const plan = '1. In hello.py, return "hello, world" instead of "hi".\n2. Keep the function\'s name.';
  check(doc.text.includes(plan), `the plan document lacks the plan:\n${doc.text}`);
  check(seen.dialogs.length === 1, `${seen.dialogs.length} dialogs, want the plan's: ${JSON.stringify(seen.dialogs)}`);
  const dialog = seen.dialogs[0];
  check(dialog.actions === PLAN_ACTIONS, `the dialog offers ${dialog.actions}`);
  check(dialog.shownBefore === 1, 'the dialog was asked before the plan was shown');
  check(dialog.message.includes(`open in the editor (${path.basename(doc.file)})`), `the dialog does not say where the plan is: ${dialog.message}`);
  check(!dialog.message.includes('hello, world'), `the dialog holds the plan: ${dialog.message}`);

  await stopServer(conn, exited);
  server = undefined;
  check(!fs.existsSync(doc.file), `the plan document outlived the server: ${doc.file}`);
  return { ok: true, plan: doc.file };
}

let server;
runClient(main, () => server);
