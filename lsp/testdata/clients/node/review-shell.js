#!/usr/bin/env node
// vscode-languageserver-protocol reviews the changes a shell command of
// the agent made (review = "propose"): they are on disk already, yet they
// are diagnostics with the same code actions as proposals; rejecting one
// writes that hunk back, accepting one keeps it.
//
//   node node/review-shell.js
//
// lsp/clients_review_test.go runs it (review-shell.txtar) with the
// environment:
//   REASONIX_LSP        the server command (`reasonix lsp`)
//   REASONIX_TEST_ROOT  the workspace folder
//   REASONIX_TEST_FILE  notes.txt, which the agent's command changes twice
// It exits 0 only if every check held.
'use strict';

const fs = require('node:fs');
const { pathToFileURL } = require('node:url');
const { ExecuteCommandRequest, RequestType } = require('vscode-languageserver-protocol/node');
const { env, check, startShellReview, reviewActionsAt, checkReviewTitles, stopServer, runClient, waitFor } = require('./common');

const ReviewRequest = new RequestType('reasonix/review');

async function main() {
  const root = env('REASONIX_TEST_ROOT');
  const file = env('REASONIX_TEST_FILE');
  const fileUri = pathToFileURL(file).href;

  // The file is not open: undoing a command's change is the server's own
  // write to disk, never an edit of a buffer the client lacks.
  const { child, exited, conn, seen } = await startShellReview(root, 'reasonix-node-review-shell-test');
  server = child;

  const turn = await conn.sendRequest(ExecuteCommandRequest.type, {
    command: 'reasonix.ask',
    arguments: [{ prompt: 'Shout two words in notes.txt.' }],
  });
  check(turn.stop === 'done', `the turn ended with ${JSON.stringify(turn)}`);
  const shouted = fs.readFileSync(file, 'utf8');
  check(shouted === 'title\nALPHA\nbeta\ngamma\nDELTA\nend\n', `the command did not change the file on disk:\n${shouted}`);

  const diags = () => seen.diagnostics.get(fileUri) || [];
  await waitFor('two diagnostics of the command\'s changes', () => diags().length === 2);
  const [first, second] = diags();
  for (const d of diags()) {
    check(d.source === 'reasonix' && d.code === 'reasonix.proposal' && d.severity === 3, `diagnostic ${JSON.stringify(d)}`);
    check(d.message.includes('already on disk'), `the message does not say the change is made: ${d.message}`);
    check(!d.tags, `an applied change is tagged: ${JSON.stringify(d.tags)}`);
  }
  check(first.range.start.line === 1 && first.message.endsWith('alpha\n'), `the first hunk ${JSON.stringify(first)}`);
  check(second.range.start.line === 4 && second.message.endsWith('delta\n'), `the second hunk ${JSON.stringify(second)}`);

  const listed = await conn.sendRequest(ReviewRequest, {});
  const hunks = listed.files.length === 1 ? listed.files[0].hunks : [];
  check(hunks.length === 2 && hunks.every((h) => h.applied && !h.stale), `reasonix/review: ${JSON.stringify(listed)}`);
  check(hunks[0].oldText === 'alpha\n' && hunks[0].newText === 'ALPHA\n', `the first hunk's texts: ${JSON.stringify(hunks[0])}`);

  const actionsAt = (line) => reviewActionsAt(conn, fileUri, diags(), line);
  const run = (action) => conn.sendRequest(ExecuteCommandRequest.type, action.command);

  let actions = await actionsAt(1);
  checkReviewTitles(actions, 2);
  const rejected = await run(actions.find((a) => a.title === 'Reject this change'));
  check(rejected.hunks === 1 && rejected.pending === 1, `reject answered ${JSON.stringify(rejected)}`);
  const undone = fs.readFileSync(file, 'utf8');
  check(undone === 'title\nalpha\nbeta\ngamma\nDELTA\nend\n', `after rejecting the first change:\n${undone}`);

  await waitFor('one diagnostic', () => diags().length === 1);
  actions = await actionsAt(4);
  const accepted = await run(actions.find((a) => a.title === 'Accept this change'));
  check(accepted.hunks === 1 && accepted.pending === 0, `accept answered ${JSON.stringify(accepted)}`);
  await waitFor('no diagnostics', () => diags().length === 0);
  check(seen.edits === 0, `${seen.edits} workspace edits for a file that is not open`);
  const after = await conn.sendRequest(ReviewRequest, {});
  check(after.files.length === 0, `still pending: ${JSON.stringify(after)}`);

  await stopServer(conn, exited);
  server = undefined;
  return { ok: true };
}

let server;
runClient(main, () => server);
