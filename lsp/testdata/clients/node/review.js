#!/usr/bin/env node
// vscode-languageserver-protocol reviews the agent's proposed changes with
// plain LSP (review = "propose"), as any editor without Reasonix's panel:
// the proposals are diagnostics, accepting and rejecting are code actions,
// and accepting applies one hunk as a versioned workspace edit.
//
//   node node/review.js
//
// lsp/clients_review_test.go runs it (review.txtar) with the environment:
//   REASONIX_LSP        the server command (`reasonix lsp`)
//   REASONIX_TEST_ROOT  the workspace folder
//   REASONIX_TEST_FILE  calc.go, which the agent changes in three hunks
// It exits 0 only if every check held.
'use strict';

const fs = require('node:fs');
const { pathToFileURL } = require('node:url');
const {
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  DidSaveTextDocumentNotification,
  ExecuteCommandRequest,
  ShowMessageRequest,
  ApplyWorkspaceEditRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  ExitNotification,
  RequestType,
} = require('vscode-languageserver-protocol/node');
const { TIMEOUT_MS, env, say, check, applyWorkspaceEdit, startServer, initializeReview, reviewActionsAt, checkReviewTitles, waitFor, within } = require('./common');

const ReviewRequest = new RequestType('reasonix/review');

const seen = { dialogs: [], edits: 0, editParams: [], diagnostics: new Map() };
const docs = new Map();

async function main() {
  const root = env('REASONIX_TEST_ROOT');
  const file = env('REASONIX_TEST_FILE');
  const fileUri = pathToFileURL(file).href;

  const { child, exited, conn } = startServer();
  server = child;
  conn.onRequest(ShowMessageRequest.type, (params) => {
    seen.dialogs.push(params.message);
    return { title: 'Allow for session' };
  });
  conn.onRequest(ApplyWorkspaceEditRequest.type, (params) => {
    seen.editParams.push(params.edit);
    try {
      return applyWorkspaceEdit(conn, docs, seen, params.edit);
    } catch (err) {
      return { applied: false, failureReason: err.message };
    }
  });
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => seen.diagnostics.set(p.uri, p.diagnostics));
  conn.listen();

  await initializeReview(conn, root, 'reasonix-node-review-test');

  const original = fs.readFileSync(file, 'utf8');
  docs.set(fileUri, { path: file, version: 1, text: original, hidden: false });
  await conn.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri: fileUri, languageId: 'go', version: 1, text: original },
  });

  const turn = await conn.sendRequest(ExecuteCommandRequest.type, {
    command: 'reasonix.ask',
    arguments: [{ prompt: 'Review these fixes to calc.go.', uri: fileUri }],
  });
  check(turn.stop === 'done', `the turn ended with ${JSON.stringify(turn)}`);
  check(seen.edits === 0, `${seen.edits} edits reached the editor before any was accepted`);
  check(docs.get(fileUri).text === original, 'the document changed before any hunk was accepted');

  const diags = () => seen.diagnostics.get(fileUri) || [];
  await waitFor('three proposal diagnostics', () => diags().length === 3);
  for (const d of diags()) {
    check(d.source === 'reasonix' && d.code === 'reasonix.proposal' && d.severity === 3, `diagnostic ${JSON.stringify(d)}`);
  }
  const [fix, comment, mul] = diags();
  check(fix.range.start.line === 4 && fix.range.end.line === 5, `the first hunk at ${JSON.stringify(fix.range)}`);
  check(fix.message.includes('\treturn a + b'), `the first hunk's message: ${fix.message}`);
  check(JSON.stringify(fix.tags) === '[1]', `the replaced text is not tagged Unnecessary: ${JSON.stringify(fix.tags)}`);
  check(comment.range.start.line === 8 && comment.message.includes('// It is the inverse of Add.'), `the second hunk ${JSON.stringify(comment)}`);
  check(mul.range.start.line === 14, `the third hunk at ${JSON.stringify(mul.range)}`);

  const actionsAt = (line) => reviewActionsAt(conn, fileUri, diags(), line, 1);
  const run = (action) => conn.sendRequest(ExecuteCommandRequest.type, action.command);

  // Accept the fix of Add: one versioned edit of that hunk alone.
  let actions = await actionsAt(4);
  const titles = checkReviewTitles(actions, 3);
  check(!titles.some((t) => t.startsWith('Ask Reasonix to fix')), 'a proposal is offered as a problem to fix');
  const accept = actions.find((a) => a.title === 'Accept this change');
  check(accept.kind === 'quickfix.reasonix.review', `the action's kind is ${accept.kind}`);
  const accepted = await run(accept);
  check(accepted.hunks === 1 && accepted.pending === 2, `accept answered ${JSON.stringify(accepted)}`);
  check(seen.edits === 1, `${seen.edits} edits after accepting one hunk`);
  const edit = seen.editParams[0].documentChanges[0];
  check(edit.textDocument.version === 1 && edit.edits.length === 1, `the edit: ${JSON.stringify(edit)}`);
  check(edit.edits[0].range.start.line === 4 && edit.edits[0].newText === '\treturn a + b\n', `the edit: ${JSON.stringify(edit.edits)}`);

  // Reject the comment.
  await waitFor('two diagnostics', () => diags().length === 2);
  actions = await actionsAt(8);
  const rejected = await run(actions.find((a) => a.title === 'Reject this change'));
  check(rejected.hunks === 1 && rejected.pending === 1, `reject answered ${JSON.stringify(rejected)}`);
  check(seen.edits === 1, 'rejecting edited the document');

  // The user edits the line of the third hunk: it is stale.
  const doc = docs.get(fileUri);
  doc.text = doc.text.replace('\treturn a * a\n', '\treturn a * a // checked by hand\n');
  doc.version++;
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: fileUri, version: doc.version },
    contentChanges: [{ text: doc.text }],
  });
  await waitFor('the stale diagnostic', () => diags().length === 1 && diags()[0].message.startsWith('Stale proposed change'));
  actions = await actionsAt(14);
  check(!actions.some((a) => a.title === 'Accept this change'), 'a stale hunk offers "Accept this change"');
  check(actions.some((a) => a.title === 'Reject this change'), 'a stale hunk offers no "Reject this change"');
  const pending = await conn.sendRequest(ReviewRequest, { uri: fileUri });
  check(pending.files.length === 1 && pending.files[0].hunks.length === 1 && pending.files[0].hunks[0].stale, `reasonix/review: ${JSON.stringify(pending)}`);
  const refused = await conn.sendRequest(ExecuteCommandRequest.type, {
    command: 'reasonix.review.accept',
    arguments: [{ uri: fileUri, hunk: pending.files[0].hunks[0].id }],
  }).then(() => null, (err) => err);
  check(refused && /edited since it was proposed/.test(refused.message), `accepting the stale hunk: ${refused && refused.message}`);
  check(seen.edits === 1, 'the stale hunk was applied');

  // Save, as the user would.
  fs.writeFileSync(file, doc.text);
  await conn.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: fileUri } });

  await conn.sendRequest(ShutdownRequest.type);
  await conn.sendNotification(ExitNotification.type);
  const { code } = await within(exited, 5000, 'the server\'s exit');
  check(code === 0, `the server exited with ${code}`);
  conn.dispose();
  server = undefined;
  return { ok: true, edits: seen.edits, dialogs: seen.dialogs.length };
}

let server;
const guard = setTimeout(() => fail(new Error(`no result after ${TIMEOUT_MS + 10000} ms`)), TIMEOUT_MS + 10000);

function fail(err) {
  say(`FAIL: ${err.stack || err}`);
  if (server) server.kill('SIGKILL');
  process.exit(1);
}

main().then((summary) => {
  clearTimeout(guard);
  console.log(JSON.stringify(summary));
  process.exit(0);
}, fail);
