#!/usr/bin/env node
// vscode-languageserver-protocol reviews a file a shell command of the
// agent created and one it deleted (review = "propose"): each is one
// change with the proposals' code actions; rejecting them removes the new
// file and writes the deleted one back.
//
//   node node/review-shell-create.js
//
// lsp/clients_review_test.go runs it (review-shell-create.txtar) with
// the environment of review-shell.js, REASONIX_TEST_FILE being old.txt,
// which the agent's command deletes. It exits 0 only if every check held.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { ExecuteCommandRequest, RequestType } = require('vscode-languageserver-protocol/node');
const { env, check, startShellReview, reviewActionsAt, stopServer, runClient, waitFor } = require('./common');

const ReviewRequest = new RequestType('reasonix/review');

async function main() {
  const root = env('REASONIX_TEST_ROOT');
  const oldFile = env('REASONIX_TEST_FILE');
  const newFile = path.join(root, 'new.txt');
  const oldUri = pathToFileURL(oldFile).href;
  const newUri = pathToFileURL(newFile).href;
  const oldText = fs.readFileSync(oldFile, 'utf8');

  // No resource operations declared: the server removes and writes the
  // files itself.
  const { child, exited, conn, seen } = await startShellReview(root, 'reasonix-node-review-shell-create-test');
  server = child;

  const turn = await conn.sendRequest(ExecuteCommandRequest.type, {
    command: 'reasonix.ask',
    arguments: [{ prompt: 'Make new, drop old.' }],
  });
  check(turn.stop === 'done', `the turn ended with ${JSON.stringify(turn)}`);
  check(fs.readFileSync(newFile, 'utf8') === 'x\n', 'the command did not create new.txt');
  check(!fs.existsSync(oldFile), 'the command did not delete old.txt');

  const diags = (uri) => seen.diagnostics.get(uri) || [];
  await waitFor('a diagnostic of each file', () => diags(newUri).length === 1 && diags(oldUri).length === 1);
  const [made] = diags(newUri);
  const [gone] = diags(oldUri);
  check(made.code === 'reasonix.proposal' && made.message.startsWith('File created by a shell command') &&
    made.range.start.line === 0 && made.range.end.line === 1, `new.txt's diagnostic ${JSON.stringify(made)}`);
  check(gone.code === 'reasonix.proposal' && gone.message.startsWith('File deleted by a shell command') &&
    gone.message.endsWith(oldText) && gone.range.end.line === 0, `old.txt's diagnostic ${JSON.stringify(gone)}`);

  const listed = await conn.sendRequest(ReviewRequest, {});
  const kinds = Object.fromEntries(listed.files.map((f) => [f.uri, f]));
  const nf = kinds[newUri];
  const of = kinds[oldUri];
  check(listed.files.length === 2 && nf && of, `reasonix/review: ${JSON.stringify(listed)}`);
  check(nf.kind === 'create' && nf.hunks.length === 1 && nf.hunks[0].applied && nf.hunks[0].created && nf.hunks[0].newText === 'x\n',
    `new.txt listed as ${JSON.stringify(nf)}`);
  check(of.kind === 'delete' && of.hunks.length === 1 && of.hunks[0].applied && of.hunks[0].oldText === oldText,
    `old.txt listed as ${JSON.stringify(of)}`);

  const reject = async (uri, line) => {
    const actions = await reviewActionsAt(conn, uri, diags(uri), line);
    const action = actions.find((a) => a.title === 'Reject this change');
    check(action, `no "Reject this change" in ${JSON.stringify(actions.map((a) => a.title))}`);
    const res = await conn.sendRequest(ExecuteCommandRequest.type, action.command);
    check(res.hunks === 1 && res.pending === 0, `reject answered ${JSON.stringify(res)}`);
  };
  await reject(newUri, 0);
  check(!fs.existsSync(newFile), 'new.txt is still there after rejecting it');
  await reject(oldUri, 0);
  check(fs.readFileSync(oldFile, 'utf8') === oldText, 'old.txt was not written back with its text');

  await waitFor('no diagnostics', () => diags(newUri).length === 0 && diags(oldUri).length === 0);
  check(seen.edits === 0, `${seen.edits} workspace edits for a client without resource operations`);
  const after = await conn.sendRequest(ReviewRequest, {});
  check(after.files.length === 0, `still pending: ${JSON.stringify(after)}`);

  await stopServer(conn, exited);
  server = undefined;
  return { ok: true };
}

let server;
runClient(main, () => server);
