#!/usr/bin/env node
// vscode-languageserver-protocol opens a hostile repository's folder: the
// server asks whether to trust its configuration, which starts nothing
// until the user does; a revoke turns it off again without asking back.
//
//   node node/trust.js
//
// lsp/clients_trust_test.go runs it with the environment:
//   REASONIX_LSP            the server command (`reasonix lsp`)
//   REASONIX_TEST_ROOT      the workspace folder
//   REASONIX_TEST_MARKS     where the repository's programs and servers
//                           leave a file when they act: empty until trusted
//   REASONIX_TEST_STARTED   the marks to wait for once trusted, |-separated
//   REASONIX_TEST_ENTRIES   what the trust question must list, |-separated
// It exits 0 only if every check held.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { ExecuteCommandRequest, ShowMessageRequest } = require('vscode-languageserver-protocol/node');
const { env, say, check, startServer, stopServer, runClient, waitFor } = require('./common');

const TRUST_ACTIONS = 'Trust and enable|Keep disabled';

async function main() {
  const root = env('REASONIX_TEST_ROOT');
  const marks = env('REASONIX_TEST_MARKS');
  const acted = () => fs.readdirSync(marks).sort();
  const { child, exited, conn } = startServer();
  server = child;
  const dialogs = [];
  let answer = 'Keep disabled';
  conn.onRequest(ShowMessageRequest.type, (p) => {
    const actions = (p.actions || []).map((a) => a.title).join('|');
    dialogs.push({ message: p.message, actions });
    say(`dialog: ${p.message} [${actions}] → ${answer}`);
    return { title: answer };
  });
  conn.listen();

  const rootUri = pathToFileURL(root).href;
  await conn.sendRequest('initialize', {
    processId: process.pid,
    clientInfo: { name: 'reasonix-node-trust-test', version: '0' },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
    // It answers dialogs, and says so, as a client that shows them does.
    capabilities: { workspace: { workspaceFolders: true, executeCommand: {} }, window: { showMessage: { messageActionItem: { additionalPropertiesSupport: false } } } },
  });
  await conn.sendNotification('initialized', {});

  // Opening the folder asks; nothing of the repository's has acted.
  await waitFor('the trust question', () => dialogs.length > 0 || acted().length > 0);
  check(acted().length === 0, `the repository's configuration acted before it was trusted: ${acted()}`);
  const question = dialogs[0];
  check(question.actions === TRUST_ACTIONS, `the trust question offers ${question.actions}`);
  for (const entry of env('REASONIX_TEST_ENTRIES').split('|')) {
    check(question.message.includes(entry), `the trust question does not list ${entry}:\n${question.message}`);
  }

  // Kept disabled, everything else works.
  const ask = (prompt) => conn.sendRequest(ExecuteCommandRequest.type, { command: 'reasonix.ask', arguments: [{ prompt }] });
  const turn = await ask('Say hello');
  check(turn.text === 'Hello from your own model.', `the turn ended with ${JSON.stringify(turn)}`);
  const mcp = await ask('/mcp');
  check(mcp.text.includes('No MCP servers are configured'), `/mcp lists ${mcp.text}`);
  check(acted().length === 0, `the repository's configuration acted though kept disabled: ${acted()}`);
  check(dialogs.length === 1, `${dialogs.length} dialogs: ${JSON.stringify(dialogs)}`);

  // Asked again and trusted: its servers start.
  answer = 'Trust and enable';
  const trust = await conn.sendRequest(ExecuteCommandRequest.type, { command: 'reasonix.trust', arguments: [{ action: 'review' }] });
  check(trust.trusted && trust.granted, `reasonix.trust answered ${JSON.stringify(trust)}`);
  check(dialogs.length === 2 && dialogs[1].actions === TRUST_ACTIONS, `the dialogs: ${JSON.stringify(dialogs)}`);
  const started = env('REASONIX_TEST_STARTED').split('|');
  await waitFor(`the marks ${started}`, () => started.every((m) => acted().includes(m)));

  // Revoked: off again from the next turn, and not asked straight back
  // (a question the rebuild asked would have come before the answer to
  // shutdown).
  answer = 'Keep disabled';
  const revoked = await conn.sendRequest(ExecuteCommandRequest.type, { command: 'reasonix.trust', arguments: [{ action: 'revoke' }] });
  check(!revoked.trusted && !revoked.granted, `the revoke answered ${JSON.stringify(revoked)}`);
  const after = await ask('/mcp');
  check(after.text.includes('No MCP servers are configured'), `after the revoke, /mcp lists ${after.text}`);

  await stopServer(conn, exited);
  server = undefined;
  check(dialogs.length === 2, `after the revoke, ${dialogs.length} dialogs: ${JSON.stringify(dialogs.map((d) => d.actions))}`);
  return { ok: true, acted: acted() };
}

let server;
runClient(main, () => server);
