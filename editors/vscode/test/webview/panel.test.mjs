// The chat panel in headless Chromium, fed a turn recorded from the real
// server (fixtures/turn.jsonl, written by record.mjs). Run through
// scripts/test-webview.sh, which builds media/panel.js first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { artifacts, launchBrowser, openPanel, readJson, readJsonl, startServer } from './harness.mjs';

const ACTIONS = ['Allow once', 'Allow for session', 'Always allow', 'Deny'];
const turn = readJsonl('turn.jsonl');
const done = turn.find((m) => m.event?.kind === 'turn_done').event.done;
const sessionId = done.sessionId;
const firstApproval = turn.findIndex((m) => m.type === 'approval');
const ev = (kind, fields = {}) => ({ type: 'event', event: { kind, sessionId: 'S1', turn: 1, ...fields } });
// What the extension answers requestMcp with, shaped as the real server's
// reasonix/mcpServers for the example plugin and a broken one (test/mcp.test.ts).
const mcp = {
  type: 'mcp',
  servers: [
    { name: 'broken', transport: 'stdio', state: 'failed', error: 'the process exited with status 3; stderr: boom', tools: 0, prompts: 0, resources: 0 },
    { name: 'example', transport: 'stdio', state: 'connected', tools: 3, prompts: 1, resources: 1 },
  ],
  prompts: [
    {
      server: 'example',
      name: 'review',
      command: 'mcp__example__review',
      description: 'Ask for a code review with a given focus.',
      arguments: [
        { name: 'focus', description: 'what to look for, such as error handling or naming', required: true },
        { name: 'path', description: 'the file or directory to review (default: the current change)', required: false },
      ],
    },
  ],
  resources: [
    { server: 'example', uri: 'note://greeting', name: 'greeting', description: 'The greeting note (the lookup tool returns it too).', mimeType: 'text/plain' },
  ],
  text: [
    'SERVER   TRANSPORT  STATE      TOOLS  PROMPTS  RESOURCES',
    'broken   stdio      failed     0      0        0',
    'example  stdio      connected  3      1        1',
    'broken: the process exited with status 3; stderr: boom',
  ].join('\n'),
};

// What the extension answers requestCommands with, shaped as the real
// server's reasonix/listCommands (test/commands.test.ts): the built-ins,
// a project command and the example plugin's prompt.
const commands = {
  type: 'commands',
  commands: [
    { name: '/help', description: 'List the slash commands and @ references', argumentHint: '', source: 'builtin' },
    { name: '/new', description: 'Start a new session; this one stays saved', argumentHint: '', source: 'builtin' },
    { name: '/clear', description: 'Discard this conversation, after asking, and start afresh', argumentHint: '', source: 'builtin' },
    { name: '/compact', description: "Fold the conversation's older work into a summary", argumentHint: '', source: 'builtin' },
    { name: '/model', description: 'Show the model; switch the session to REF; or run one prompt on REF', argumentHint: '[REF [prompt]]', source: 'builtin' },
    { name: '/cost', description: "Show the session's tokens, cache hits and cost", argumentHint: '', source: 'builtin' },
    { name: '/mcp', description: 'Show the MCP servers and what they offer', argumentHint: '', source: 'builtin' },
    { name: '/review', description: 'Review a file for bugs', argumentHint: 'FILE', source: 'project' },
    { name: '/mcp__example__review', description: 'Ask for a code review with a given focus.', argumentHint: '<focus> [path]', source: 'mcp' },
  ],
};
const SERVER_NAMES = commands.commands.map((c) => c.name);

/** The index of the text event after which the answer's code block is open. */
function midCodeBlock() {
  let text = '';
  for (let i = 0; i < turn.length; i++) {
    if (turn[i].event?.kind !== 'text') continue;
    text += turn[i].event.text;
    if (text.includes('int {') && !text.includes('}\n```')) return i;
  }
  throw new Error('the fixture has no code block');
}

// The badge as the panel must word it, worked out here independently.
function badge(label, usage, cost) {
  const hit = Math.round((usage.cache_hit_tokens / (usage.cache_hit_tokens + usage.cache_miss_tokens)) * 100);
  return `${label} $${cost.toFixed(4)} · ${hit}% cache hit`;
}

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function panel(opts) {
  const p = await openPanel(browser.context, server.url, opts);
  p.expectClean = async () => {
    assert.deepEqual(p.errors.map(String), [], 'page errors');
    assert.deepEqual(await p.violations(), [], 'CSP violations');
  };
  return p;
}

describe('a recorded turn', () => {
  test('streams Markdown, reasoning, tool rows, an approval card and the cost', async () => {
    const p = await panel();
    const { page } = p;
    assert.deepEqual(await p.posted(), [{ type: 'ready' }]);
    await p.deliver({ type: 'state', model: 'scripted/deepseek-flash', running: false, sessionId: null });
    assert.equal(await p.text('.model'), 'scripted/deepseek-flash');

    // Up to the first permission question: the turn runs.
    await p.deliver(turn.slice(0, firstApproval + 1));
    assert.ok(await page.locator('button', { hasText: 'Stop' }).isVisible(), 'Stop shows while the turn runs');
    assert.equal(await page.locator('.transcript').getAttribute('aria-busy'), 'true');
    assert.ok(await page.locator('button', { hasText: 'Send' }).isDisabled());
    assert.equal(await p.count('.tool[data-status="running"]'), 1);

    const card = page.locator('.approval').first();
    assert.deepEqual(await card.locator('button').allInnerTexts(), ACTIONS);
    const req = turn[firstApproval].request;
    assert.equal(await card.locator('.approval-scope code').innerText(), req.scope);
    assert.equal(await card.locator('.approval-head code').innerText(), req.title);
    assert.equal(await card.locator('.approval-message').innerText(), req.message.replaceAll('`', ''));
    await card.getByRole('button', { name: 'Allow for session' }).click();
    assert.deepEqual((await p.posted()).at(-1), { type: 'approve', id: turn[firstApproval].id, action: 'Allow for session' });
    for (const b of await card.locator('button').all()) assert.ok(await b.isDisabled(), 'an answered card is disabled');
    assert.equal(await card.locator('.approval-choice').innerText(), 'You chose: Allow for session');
    assert.equal(await card.locator('button[aria-pressed="true"]').innerText(), 'Allow for session');

    // Streaming: the answer renders while its code block is still open,
    // and what was shown stays the same DOM node as the rest arrives.
    const mid = midCodeBlock();
    const second = turn.findIndex((m, i) => i > firstApproval && m.type === 'approval');
    await p.deliver(turn.slice(firstApproval + 1, second + 1));
    // The second question, answered from the keyboard.
    const card2 = page.locator('.approval').nth(1);
    await card2.getByRole('button', { name: 'Allow once' }).focus();
    await page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'approve', id: turn[second].id, action: 'Allow once' });

    await p.deliver(turn.slice(second + 1, mid + 1));
    assert.equal(await p.text('.answer h2'), 'What was wrong');
    assert.match(await p.text('.answer .code-block code'), /^func Add\(a, b int\) int \{\n\tretur/);
    await page.evaluate(() => {
      document.querySelector('.answer h2').dataset.mark = 'first';
    });
    await p.deliver(turn.slice(mid + 1));
    assert.equal(await page.locator('.answer h2').getAttribute('data-mark'), 'first', 'a finished block is not re-rendered');

    // The answer as Markdown.
    assert.equal(await p.text('.answer h3'), 'What I changed');
    assert.equal(await p.text('.answer pre > code.language-go'), 'func Add(a, b int) int {\n\treturn a + b\n}');
    assert.equal(await p.text('.answer .code-lang'), 'go');
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
    await page.getByRole('button', { name: 'Copy go code' }).click();
    await page.getByRole('button', { name: 'Copy go code' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'func Add(a, b int) int {\n\treturn a + b\n}');
    assert.equal(await p.count('.answer ol'), 2);
    assert.equal(await page.locator('.answer ol').nth(1).getAttribute('start'), '3');
    assert.deepEqual(await page.locator('.answer ul > li').allInnerTexts(), [
      'No other function used Add.',
      'For more cases, see the testing package and write a table-driven test.',
    ]);
    assert.equal(await p.text('.answer strong >> nth=0'), '-1');
    assert.equal(await p.text('.answer em >> nth=0'), '5');
    assert.equal(await page.locator('.answer a').getAttribute('href'), 'https://pkg.go.dev/testing');
    assert.equal(await p.count('.answer :not(pre) > code'), 10, 'inline code spans');

    // Reasoning: one folded block per step that reasoned.
    const steps = new Set(turn.filter((m) => m.event?.kind === 'reasoning').map((m) => m.event.step));
    assert.equal(await p.count('details.reasoning'), steps.size);
    assert.equal(await p.count('details.reasoning[open]'), 0);
    assert.match(await page.locator('details.reasoning .reasoning-body').first().textContent(), /Add probably subtracts/);

    // Tool calls: a row each, with status and duration; results folded.
    const tools = page.locator('details.tool');
    const results = turn.filter((m) => m.event?.kind === 'tool_result').map((m) => m.event.tool);
    assert.deepEqual(await tools.locator('.tool-title').allInnerTexts(), results.map((t) => t.title));
    const statuses = await tools.evaluateAll((els) => els.map((e) => e.dataset.status));
    assert.deepEqual(statuses, results.map((t) => (t.isError ? 'error' : 'ok')));
    assert.deepEqual(statuses, ['ok', 'error', 'error', 'ok', 'ok']);
    assert.deepEqual(await tools.locator('.tool-status').allInnerTexts(), ['✓', '✗', '✗', '✓', '✓']);
    const ms = results[2].durationMs;
    assert.equal(await tools.nth(2).locator('.tool-duration').innerText(), ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
    assert.equal(await tools.nth(2).locator('.tool-summary').innerText(), 'exit 1');
    assert.equal(await p.count('details.tool[open]'), 0);
    assert.match(await tools.nth(2).locator('.tool-result').textContent(), /--- FAIL: TestAdd/);
    await tools.nth(2).locator('summary').click();
    assert.ok(await tools.nth(2).locator('pre.tool-result').isVisible(), 'a row unfolds to its result');

    // The cost of the turn and the session, with the cache-hit share.
    assert.equal(await p.text('.badge-turn'), badge('Turn', done.usage, done.cost));
    assert.equal(await p.text('.badge-session'), badge('Session', done.sessionUsage, done.sessionCost));
    assert.equal(await p.text('.turn-done'), `Turn 1: 5 requests · 5 tool calls · $${done.cost.toFixed(4)}`);

    // turn_done ended the running state.
    assert.equal(await page.locator('button', { hasText: 'Stop' }).isVisible(), false);
    assert.equal(await page.locator('button', { hasText: 'Send' }).isDisabled(), false);
    assert.equal(await page.locator('.transcript').getAttribute('aria-busy'), 'false');

    // The screenshot, with the files the turn changed.
    await p.deliver({ type: 'changedFiles', files: [{ path: 'calc.go', status: 'modified' }] });
    fs.mkdirSync(artifacts, { recursive: true });
    await page.setViewportSize({ width: 420, height: 1500 });
    await page.locator('.transcript').evaluate((el) => (el.scrollTop = 0));
    await page.screenshot({ path: path.join(artifacts, 'panel.png') });
    await p.expectClean();
    await page.close();
  });

  test('survives the view being hidden (vscode.setState)', async () => {
    const p = await panel();
    await p.deliver({ type: 'state', model: 'scripted/deepseek-flash', running: false, sessionId });
    await p.deliver(turn);
    await p.page.locator('.composer textarea').fill('a draft');
    await p.page.waitForFunction(() => window.__harness.state?.draft === 'a draft' && window.__harness.state.entries.length > 0);
    const saved = await p.savedState();
    await p.page.close();

    const again = await panel({ state: saved });
    assert.equal(await again.count('details.tool'), 5);
    assert.equal(await again.text('.answer h2'), 'What was wrong');
    assert.equal(await again.count('.approval'), 2);
    assert.equal(await again.text('.badge-turn'), badge('Turn', done.usage, done.cost));
    assert.equal(await again.page.locator('.composer textarea').inputValue(), 'a draft');
    assert.equal(await again.text('.model'), 'scripted/deepseek-flash');
    await again.expectClean();
    await again.page.close();
  });
});

describe('the running state', () => {
  test('Stop posts stop while a turn runs and goes when it ends', async () => {
    const p = await panel();
    const stop = p.page.getByRole('button', { name: 'Stop the running turn' });
    assert.equal(await stop.isVisible(), false);
    await p.deliver(ev('turn_start', { text: 'Walk me through every test, slowly.' }), ev('text', { step: 1, text: 'TestAdd calls' }));
    assert.ok(await stop.isVisible());
    await stop.click();
    assert.deepEqual((await p.posted()).at(-1), { type: 'stop' });
    const usage = { prompt_tokens: 100, completion_tokens: 5, cache_hit_tokens: 0, cache_miss_tokens: 100 };
    await p.deliver(ev('turn_done', { done: { sessionId: 'S1', turn: 1, text: '', stop: 'cancelled', steps: 1, toolCalls: 0, usage, cost: 0, priced: false } }));
    assert.equal(await stop.isVisible(), false);
    assert.equal(await p.text('.notice-stop'), 'Stopped.');
    assert.equal(await p.text('.badge-turn'), 'Turn 105 tokens · 0% cache hit');
    await p.expectClean();
    await p.page.close();
  });

  test('the composer fits the default sidebar width (297 px) while a turn runs', async () => {
    const p = await panel();
    await p.page.setViewportSize({ width: 297, height: 600 });
    await p.deliver(ev('turn_start', { text: 'hi' }));
    const stop = p.page.getByRole('button', { name: 'Stop the running turn' });
    assert.ok(await stop.isVisible());
    const fits = await p.page.evaluate(() => {
      const bar = document.querySelector('.composer-bar').getBoundingClientRect();
      const right = [...document.querySelectorAll('.composer-bar button')]
        .filter((b) => !b.hidden)
        .map((b) => b.getBoundingClientRect().right);
      return { bar: bar.right, buttons: Math.max(...right), scroll: document.documentElement.scrollWidth, view: window.innerWidth };
    });
    assert.ok(fits.buttons <= fits.bar, `the buttons end at ${fits.buttons} px, past the bar's ${fits.bar} px`);
    assert.ok(fits.scroll <= fits.view, `the panel scrolls sideways: ${fits.scroll} px in ${fits.view} px`);
    // Send and Stop share the bar's line, Send last.
    const send = await p.page.locator('.composer-bar button', { hasText: 'Send' }).boundingBox();
    const stopBox = await stop.boundingBox();
    assert.equal(Math.round(send.y), Math.round(stopBox.y));
    fs.mkdirSync(artifacts, { recursive: true });
    await p.page.screenshot({ path: path.join(artifacts, 'composer-297.png') });
    await p.expectClean();
    await p.page.close();
  });

  test('a retry voids what the step streamed; errors and notices are lines', async () => {
    const p = await panel();
    await p.deliver(
      ev('turn_start', { text: 'hi' }),
      ev('reasoning', { step: 1, text: 'thinking' }),
      ev('text', { step: 1, text: 'Half an ans' }),
      ev('retry', { step: 1, text: 'The model request failed (502); retrying in 1s.' }),
      ev('text', { step: 1, text: 'A whole answer.' }),
      ev('notice', { text: 'the answer was cut off at the model\'s output limit (max_tokens)' }),
      ev('compaction', { text: 'compacted: 41k → 6.2k tokens, 38 messages archived', compaction: { reason: 'threshold', before: 41210, after: 6230, archived: 38, kept: 19, requests: 1, pieces: 1 } }),
      ev('error', { error: 'provider: 401 Unauthorized' }),
    );
    assert.deepEqual(await p.page.locator('.answer').allInnerTexts(), ['A whole answer.']);
    assert.equal(await p.count('details.reasoning'), 0);
    assert.equal(await p.text('.notice-retry'), 'The model request failed (502); retrying in 1s.');
    assert.deepEqual(await p.page.locator('.notice-info').allInnerTexts(), [
      "the answer was cut off at the model's output limit (max_tokens)",
      'compacted: 41k → 6.2k tokens, 38 messages archived',
    ]);
    assert.equal(await p.text('.notice-error'), 'provider: 401 Unauthorized');
    assert.equal(await p.page.locator('.notice-error').getAttribute('role'), 'alert');
    await p.page.close();
  });

  test('a question answered in a dialog, and one left open when the turn ends', async () => {
    const p = await panel();
    const request = turn.find((m) => m.type === 'approval').request;
    await p.deliver(ev('turn_start', { text: 'q' }), { type: 'approval', id: 'a1', request }, { type: 'approval', id: 'a1', request });
    assert.equal(await p.count('.approval'), 1, 'a question is shown once');
    await p.deliver({ type: 'approvalDone', id: 'a1', action: 'Deny' });
    assert.equal(await p.text('.approval-choice'), 'You chose: Deny');
    assert.equal(await p.count('.approval button:disabled'), 4);
    await p.deliver({ type: 'approval', id: 'a2', request });
    const usage = { prompt_tokens: 1, completion_tokens: 1, cache_hit_tokens: 0, cache_miss_tokens: 1 };
    await p.deliver(ev('turn_done', { done: { sessionId: 'S1', turn: 1, text: '', stop: 'cancelled', steps: 1, toolCalls: 1, usage, cost: 0, priced: true } }));
    assert.equal(await p.page.locator('.approval').nth(1).locator('.approval-choice').innerText(), 'No answer, which counts as Deny.');
    assert.equal(await p.count('.approval button:disabled'), 8);
    assert.deepEqual((await p.posted()).filter((m) => m.type === 'approve'), [], 'nothing was answered from the panel');
    await p.expectClean();
    await p.page.close();
  });

  test("the agent's question: an option, an answer of one's own, one answered in a picker, one left open", async () => {
    const p = await panel();
    const request = { sessionId: 'S1', question: 'Keep /v1 for one more release?', options: ['Keep it, deprecated', 'Remove it now'], allowText: true };
    await p.deliver(ev('turn_start', { text: 'q' }), { type: 'question', id: 'q1', request }, { type: 'question', id: 'q1', request });
    assert.equal(await p.count('.question'), 1, 'a question is shown once');
    const card = p.page.getByRole('group', { name: 'Question from Reasonix' });
    assert.equal(await card.locator('.approval-message').innerText(), request.question);
    assert.deepEqual(await card.locator('.approval-actions button').allInnerTexts(), request.options);
    await card.getByRole('button', { name: 'Remove it now' }).click();
    assert.equal(await card.locator('.approval-choice').innerText(), 'You answered: Remove it now');
    assert.equal(await card.locator('.approval-actions button:disabled').count(), 2);
    assert.equal(await card.locator('.question-input').count(), 0, 'an answered card takes no more text');

    // In the user's own words, sent with Enter.
    await p.deliver({ type: 'question', id: 'q2', request: { ...request, question: 'Until when?' } });
    const second = p.page.locator('.question').nth(1);
    await second.getByRole('textbox', { name: 'Your answer' }).fill('until the 2.0 release');
    await second.getByRole('textbox', { name: 'Your answer' }).press('Enter');
    assert.equal(await second.locator('.approval-choice').innerText(), 'You answered: until the 2.0 release');

    // Answered in a picker, then one the turn ends without.
    await p.deliver({ type: 'question', id: 'q3', request }, { type: 'questionDone', id: 'q3', answer: 'Keep it, deprecated' });
    assert.equal(await p.page.locator('.question').nth(2).locator('.approval-choice').innerText(), 'You answered: Keep it, deprecated');
    await p.deliver({ type: 'question', id: 'q4', request });
    const usage = { prompt_tokens: 1, completion_tokens: 1, cache_hit_tokens: 0, cache_miss_tokens: 1 };
    await p.deliver(ev('turn_done', { done: { sessionId: 'S1', turn: 1, text: '', stop: 'cancelled', steps: 1, toolCalls: 1, usage, cost: 0, priced: true } }));
    assert.equal(await p.page.locator('.question').nth(3).locator('.approval-choice').innerText(), 'No answer: the agent goes on with an assumption.');
    assert.deepEqual(
      (await p.posted()).filter((m) => m.type === 'answer'),
      [
        { type: 'answer', id: 'q1', answer: 'Remove it now' },
        { type: 'answer', id: 'q2', answer: 'until the 2.0 release' },
      ],
    );
    await p.expectClean();
    await p.page.close();
  });

  test('a running tool row shows its latest progress, a finished one none', async () => {
    const p = await panel();
    const name = 'mcp__everything__trigger-long-running-operation';
    const tool = { callId: 'call_1', name, title: name };
    const row = p.page.locator('details.tool');
    const progress = row.locator('.tool-progress');
    await p.deliver(ev('turn_start', { text: 'q' }), ev('tool_start', { step: 1, tool }), ev('tool_progress', { step: 1, tool, text: '1/3' }));
    assert.equal(await progress.innerText(), '1/3');
    await p.deliver(ev('tool_progress', { step: 1, tool, text: '2/3' }));
    assert.equal(await row.getAttribute('data-status'), 'running');
    assert.deepEqual(await progress.allInnerTexts(), ['2/3'], 'the latest progress replaces the one before');
    assert.deepEqual(await row.locator('.tool-row > span').evaluateAll((els) => els.map((e) => e.className)), [
      'tool-status',
      'tool-title',
      'tool-progress',
      'tool-duration',
    ]);
    // After the title, behind a dash, dimmed.
    assert.equal(await progress.evaluate((el) => getComputedStyle(el, '::before').content), '"\u2014\u00a0"');
    assert.equal(await progress.evaluate((el) => getComputedStyle(el).color), 'rgb(157, 157, 157)');

    await p.deliver(ev('tool_result', { step: 1, tool: { ...tool, summary: 'done', result: 'Long running operation completed.', durationMs: 3000 } }));
    assert.equal(await row.getAttribute('data-status'), 'ok');
    assert.equal(await progress.count(), 0, 'a finished row shows no progress');
    assert.equal(await row.locator('.tool-summary').innerText(), 'done');

    // Progress that arrives after the result changes nothing, not even the element.
    await row.evaluate((el) => (el.dataset.mark = 'finished'));
    await p.deliver(ev('tool_progress', { step: 1, tool, text: '3/3' }));
    assert.equal(await row.getAttribute('data-mark'), 'finished');
    assert.equal(await progress.count(), 0);
    assert.equal(await row.getAttribute('data-status'), 'ok');

    // A call the turn's end stopped is finished too.
    const call2 = { ...tool, callId: 'call_2' };
    await p.deliver(ev('tool_start', { step: 2, tool: call2 }), ev('tool_progress', { step: 2, tool: call2, text: 'Compiling (2/10)' }));
    assert.equal(await row.nth(1).locator('.tool-progress').innerText(), 'Compiling (2/10)');
    const usage = { prompt_tokens: 1, completion_tokens: 1, cache_hit_tokens: 0, cache_miss_tokens: 1 };
    await p.deliver(ev('turn_done', { done: { sessionId: 'S1', turn: 1, text: '', stop: 'cancelled', steps: 2, toolCalls: 2, usage, cost: 0, priced: false } }));
    assert.equal(await row.nth(1).getAttribute('data-status'), 'stopped');
    assert.equal(await progress.count(), 0);
    await p.expectClean();
    await p.page.close();
  });

  test("a sub-task's calls are rows nested under its task, told apart by task", async () => {
    const p = await panel();
    const task = (id) => ({ callId: id, name: 'task', title: `task look ${id}`, readOnly: true });
    const read = { callId: 'call_0', name: 'read_file', title: 'read_file main.go', readOnly: true };
    await p.deliver(
      ev('turn_start', { text: 'q' }),
      ev('tool_start', { step: 1, tool: task('t1') }),
      ev('tool_start', { step: 1, tool: task('t2') }),
      ev('tool_start', { step: 1, parent: 't1', tool: read }),
      ev('tool_start', { step: 1, parent: 't2', tool: read }),
      ev('tool_result', { step: 1, parent: 't2', tool: { ...read, summary: '3 lines' } }),
    );
    const nested = p.page.locator('details.tool-nested');
    assert.equal(await nested.count(), 2);
    assert.deepEqual(await nested.evaluateAll((els) => els.map((e) => [e.dataset.parent, e.dataset.status])), [
      ['t1', 'running'],
      ['t2', 'ok'],
    ]);
    assert.equal(await p.page.locator('details.tool:not(.tool-nested)').count(), 2);
    const indent = await nested.first().evaluate((el) => getComputedStyle(el).marginLeft);
    assert.equal(indent, '16px');
    await p.expectClean();
    await p.page.close();
  });

  test('usage without a price shows tokens', async () => {
    const p = await panel();
    const u = (hit, miss, out) => ({ prompt_tokens: hit + miss, completion_tokens: out, cache_hit_tokens: hit, cache_miss_tokens: miss });
    await p.deliver(ev('usage', {
      step: 1,
      usage: { model: 'local-model', request: u(12000, 100, 200), turn: u(12000, 100, 200), session: u(40000, 10000, 900), requestCost: 0, turnCost: 0, sessionCost: 0, priced: false },
    }));
    assert.equal(await p.text('.badge-turn'), 'Turn 12k tokens · 99% cache hit');
    assert.equal(await p.text('.badge-session'), 'Session 51k tokens · 80% cache hit');
    assert.equal(await p.text('.model'), 'local-model');
    await p.page.close();
  });

  test('the header says how full the context window is; a sub-task\'s requests leave it be', async () => {
    const p = await panel();
    const u = { prompt_tokens: 100, completion_tokens: 10, cache_hit_tokens: 0, cache_miss_tokens: 100 };
    const usage = (fields) => ({ model: 'm', request: u, turn: u, session: u, requestCost: 0, turnCost: 0, sessionCost: 0, priced: false, ...fields });
    await p.deliver(ev('turn_start', { text: 'q' }), ev('usage', { step: 1, usage: usage({}) }));
    assert.equal(await p.page.locator('.badge-context').isHidden(), true, 'no meter while the window is unknown');
    await p.deliver(ev('usage', { step: 1, usage: usage({ contextWindow: 128000, contextTokens: 53760 }) }));
    assert.equal(await p.text('.badge-context'), '42% of context');
    assert.equal(await p.page.locator('.context-meter').evaluate((m) => m.value), 42);
    assert.match(await p.page.locator('.badge-context').getAttribute('title'), /^53,760 of 128,000 tokens/);
    await p.deliver(ev('usage', { step: 2, parent: 'call_1', usage: usage({ contextWindow: 128000, contextTokens: 1000 }) }));
    assert.equal(await p.text('.badge-context'), '42% of context');
    await p.deliver(ev('turn_done', { done: { sessionId: 'S1', turn: 1, text: '', stop: 'done', steps: 2, toolCalls: 0, usage: u, cost: 0, priced: false, contextWindow: 128000, contextTokens: 140000 } }));
    assert.equal(await p.text('.badge-context'), '100% of context');
    await p.expectClean();
    await p.page.close();
  });

  test('the todo list is a checklist updated in place, the item in hand in its active form', async () => {
    const p = await panel();
    const todo = { callId: 'call_1', name: 'todo_write', title: 'todo_write', readOnly: true };
    await p.deliver(
      ev('turn_start', { text: 'fix Add' }),
      ev('tool_start', { step: 1, tool: todo }),
      ev('todo', { step: 1, todos: [{ content: 'Read calc.go', status: 'in_progress', activeForm: 'Reading calc.go' }, { content: 'Fix Add', status: 'pending' }] }),
      ev('tool_result', { step: 1, tool: { ...todo, summary: '0 of 2 completed, 1 in progress' } }),
    );
    const items = () => p.page.locator('.todo').evaluateAll((els) => els.map((e) => [e.dataset.status, e.querySelector('input').checked, e.textContent]));
    assert.deepEqual(await items(), [['in_progress', false, 'Reading calc.go'], ['pending', false, 'Fix Add']]);
    assert.equal(await p.text('.todos-head'), 'Todo 0/2');
    assert.equal(await p.page.locator('details.tool').count(), 0, 'todo_write has no row of its own');
    await p.deliver(ev('todo', { step: 2, todos: [{ content: 'Read calc.go', status: 'completed' }, { content: 'Fix Add', status: 'completed' }] }));
    assert.equal(await p.page.locator('.todos').count(), 1, 'one list a turn');
    assert.deepEqual(await items(), [['completed', true, 'Read calc.go'], ['completed', true, 'Fix Add']]);
    assert.equal(await p.text('.todos-head'), 'Todo 2/2');
    // A failed call is a row: the model has something to fix.
    await p.deliver(ev('tool_result', { step: 3, tool: { ...todo, callId: 'call_2', isError: true, summary: 'item 1 has no content' } }));
    assert.equal(await p.page.locator('details.tool').count(), 1);
    await p.expectClean();
    await p.page.close();
  });
});

describe('the composer', () => {
  test('Enter sends, Shift+Enter is a new line, attachments go with the next message', async () => {
    const p = await panel();
    const input = p.page.locator('.composer textarea');
    await input.click();
    await p.page.keyboard.type('hello');
    await p.page.keyboard.press('Shift+Enter');
    await p.page.keyboard.type('world');
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'ask', prompt: 'hello\nworld', attach: null });
    assert.equal(await input.inputValue(), '');
    assert.equal(await p.text('.user'), 'hello\nworld');
    assert.ok(await p.page.getByRole('button', { name: 'Stop the running turn' }).isVisible(), 'Stop shows at once');
    await p.deliver({ type: 'state', model: 'm', running: false, sessionId: 'S1' });

    const attach = p.page.getByRole('button', { name: 'Attach the current selection' });
    await attach.click();
    assert.equal(await attach.getAttribute('aria-pressed'), 'true');
    assert.equal(await p.page.locator('.chip').textContent(), 'Selection×');
    await input.click();
    await p.page.keyboard.type('explain this');
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'ask', prompt: 'explain this', attach: 'selection' });
    assert.equal(await p.count('.chip'), 0, 'the chip goes with the message');
    assert.equal(await attach.getAttribute('aria-pressed'), 'false');

    await p.deliver({ type: 'state', model: 'm', running: false, sessionId: 'S1' });
    await p.page.getByRole('button', { name: 'Attach the current file' }).click();
    await p.page.getByRole('button', { name: 'Remove current file attachment' }).click();
    await input.fill('no attachment');
    await input.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'ask', prompt: 'no attachment', attach: null });
    await p.expectClean();
    await p.page.close();
  });

  test('/ completes the panel\'s commands and the server\'s', async () => {
    const p = await panel();
    const input = p.page.locator('.composer textarea');
    const options = p.page.locator('#composer-menu [role="option"]');
    const labels = () => options.locator('.menu-label').allInnerTexts();
    await input.click();
    await p.page.keyboard.type('/');
    assert.deepEqual((await p.posted()).at(-1), { type: 'requestCommands' }, 'the menu asks for the server\'s commands');
    assert.deepEqual(await labels(), ['/sessions', '/stop']);
    assert.equal(await input.getAttribute('aria-expanded'), 'true');
    // The answer arrives while the menu is open: the commands join it, and
    // the highlighted one stays highlighted.
    await p.page.keyboard.press('ArrowDown');
    await p.deliver(commands);
    assert.deepEqual(await labels(), ['/sessions', '/stop', ...SERVER_NAMES]);
    assert.equal(await p.text('#composer-menu [aria-selected="true"] .menu-label'), '/stop');
    assert.equal(await options.nth(6).locator('.menu-detail').innerText(), '[REF [prompt]] · Show the model; switch the session to REF; or run one prompt on REF');
    assert.equal(await options.nth(9).locator('.menu-detail').innerText(), 'FILE · Review a file for bugs (project)');
    assert.equal(await options.last().locator('.menu-detail').innerText(), '<focus> [path] · Ask for a code review with a given focus.');
    await p.page.keyboard.type('se');
    assert.deepEqual(await labels(), ['/sessions']);
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'listSessions' });
    assert.ok(await p.page.locator('.sessions').isVisible());
    assert.equal(await p.text('.sessions-status'), 'Loading…');
    await p.page.getByRole('button', { name: 'Back to the conversation' }).click();

    // /help by arrow keys: a built-in without arguments goes to the server at once.
    await input.click();
    await p.page.keyboard.type('/');
    await p.deliver(commands);
    for (let i = 0; i < 2; i++) await p.page.keyboard.press('ArrowDown');
    assert.equal(await p.text('#composer-menu [aria-selected="true"] .menu-label'), '/help');
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'ask', prompt: '/help', attach: null });
    assert.equal(await input.inputValue(), '');
    // Its answer is a notice in a fixed-width font, without a turn's footer.
    const table = 'Commands:\n  /help  List the slash commands and @ references';
    await p.deliver(
      ev('turn_start', { turn: 0, text: '/help' }),
      ev('text', { turn: 0, text: table }),
      ev('turn_done', { turn: 0, done: { ...done, turn: 0, text: table, steps: 0, toolCalls: 0, action: { kind: 'help' } } }),
    );
    assert.equal(await p.text('.user'), '/help');
    const notice = p.page.locator('.notice-mono');
    assert.equal(await notice.textContent(), table);
    assert.equal(await notice.evaluate((el) => getComputedStyle(el).whiteSpace), 'pre');
    assert.match(await notice.evaluate((el) => getComputedStyle(el).fontFamily), /mono/i);
    assert.equal(await p.count('.turn-done'), 0);
    assert.equal(await p.count('.answer'), 0);
    // /cost's line is no table: it wraps in the panel's width.
    const cost = 'Session S1: 1 turn · 14k tokens in (93.5% cache hit: 13k hit, 896 miss) + 5 out · $0.0219';
    await p.deliver(
      ev('turn_start', { turn: 0, text: '/cost' }),
      ev('text', { turn: 0, text: cost }),
      ev('turn_done', { turn: 0, done: { ...done, turn: 0, text: cost, steps: 0, toolCalls: 0, action: { kind: 'cost' } } }),
    );
    const costNotice = p.page.locator('.notice-info').last();
    assert.equal(await costNotice.textContent(), cost);
    assert.equal(await costNotice.evaluate((el) => el.classList.contains('notice-mono')), false);
    assert.ok(await costNotice.evaluate((el) => el.scrollWidth <= el.clientWidth), 'the /cost line is not cut');

    // /new goes to the server, which switches the chat to a new session.
    await p.page.keyboard.type('/new');
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'ask', prompt: '/new', attach: null });
    await p.deliver({ type: 'sessionStarted', sessionId: 'S2', model: 'm', text: 'Started session S2; session S1 stays saved.' });
    assert.equal(await p.count('.transcript > *'), 1);
    assert.equal(await p.text('.notice-info'), 'Started session S2; session S1 stays saved.');
    await p.deliver({ type: 'state', model: 'm', running: false, sessionId: 'S2' });

    // A command with arguments is left in the input for them.
    await p.page.keyboard.type('/rev');
    await p.page.keyboard.press('Enter');
    assert.equal(await input.inputValue(), '/review ');
    await p.page.keyboard.type('@calc.go');
    await p.page.keyboard.press('Escape');
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'ask', prompt: '/review @calc.go', attach: null });
    await p.deliver({ type: 'state', model: 'm', running: false, sessionId: 'S2' });

    await p.page.keyboard.type('/st');
    await p.page.keyboard.press('Tab');
    assert.deepEqual((await p.posted()).at(-1), { type: 'stop' });
    // Escape closes the menu; a path is not a command.
    await p.page.keyboard.type('/usr/bin');
    assert.equal(await p.text('.menu-empty'), 'No such command');
    await p.page.keyboard.press('Escape');
    assert.ok(await p.page.locator('#composer-menu').isHidden());
    await p.expectClean();
    await p.page.close();
  });

  test('/ asks once per menu; without the server\'s list, the panel\'s commands remain', async () => {
    const p = await panel();
    const input = p.page.locator('.composer textarea');
    const options = p.page.locator('#composer-menu [role="option"]');
    const labels = () => options.locator('.menu-label').allInnerTexts();
    const asked = async () => (await p.posted()).filter((m) => m.type === 'requestCommands').length;
    await input.click();
    await p.page.keyboard.type('/');
    await p.deliver(commands);
    const once = await asked();
    await p.page.keyboard.type('mcp_');
    assert.deepEqual(await labels(), ['/mcp__example__review']);
    assert.equal(await asked(), once, 'asked once per menu');

    // Picking a prompt leaves it in the input for its arguments; Enter sends it as typed.
    await p.page.keyboard.press('Enter');
    assert.equal(await input.inputValue(), '/mcp__example__review ');
    assert.ok(await p.page.locator('#composer-menu').isHidden());
    await p.page.keyboard.type('naming calc.go');
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'ask', prompt: '/mcp__example__review naming calc.go', attach: null });
    assert.equal(await p.text('.user'), '/mcp__example__review naming calc.go');
    await p.deliver({ type: 'state', model: 'm', running: false, sessionId: 'S1' });

    // When the server cannot list its commands, the menu has the panel's own.
    await p.page.keyboard.type('/');
    await p.deliver({ type: 'commands', commands: [], error: 'The Reasonix server is not running.' });
    assert.deepEqual(await labels(), ['/sessions', '/stop']);
    await p.page.keyboard.type('mcp');
    assert.equal(await p.text('.menu-empty'), 'No such command');
    await p.page.keyboard.press('Escape');
    assert.deepEqual(await p.count('.notice-error'), 0, 'a failed list is no error message');
    await p.expectClean();
    await p.page.close();
  });

  test('a question with answers of its own (/clear) shows them on its card', async () => {
    const p = await panel();
    const request = {
      sessionId: 'S1', tool: '/clear', title: '/clear', scope: '',
      message: 'Clear this conversation? It is deleted and cannot be resumed.', actions: ['Clear conversation', 'Keep it'],
    };
    await p.deliver(ev('turn_start', { turn: 0, text: '/clear' }), { type: 'approval', id: 'q1', request });
    const card = p.page.locator('.approval');
    assert.deepEqual(await card.locator('.approval-actions button').allInnerTexts(), ['Clear conversation', 'Keep it']);
    await card.getByRole('button', { name: 'Keep it' }).click();
    assert.deepEqual((await p.posted()).at(-1), { type: 'approve', id: 'q1', action: 'Keep it' });
    assert.equal(await card.locator('.approval-choice').innerText(), 'You chose: Keep it');
    await p.deliver({ type: 'notice', text: 'The conversation was kept.' });
    assert.equal(await p.text('.notice-info'), 'The conversation was kept.');
    await p.expectClean();
    await p.page.close();
  });

  test("the planner's plan is shown once, on its card, rendered", async () => {
    const p = await panel();
    const plan = '1. Read calc.go.\n2. Run `go test ./...`.';
    const request = { sessionId: 'S1', tool: 'exit_plan_mode', title: 'exit_plan_mode', scope: '', message: plan, actions: ['Approve plan', 'Keep planning'] };
    await p.deliver(
      ev('turn_start', { text: 'add Sub' }),
      ev('notice', { text: `plan by scripted/planner-model (2 model requests, 13.6k tokens):\n\n${plan}` }),
      { type: 'approval', id: 'p1', request },
    );
    // The notice keeps its heading; the card has the plan, its code rendered.
    assert.equal(await p.text('.notice-info'), 'plan by scripted/planner-model (2 model requests, 13.6k tokens)');
    const card = p.page.locator('.approval');
    assert.equal(await card.locator('.approval-head code').innerText(), 'Plan');
    assert.equal(await card.locator('.approval-message code').innerText(), 'go test ./...');
    // Unanswered when the turn ends: no answer, which denies nothing.
    await p.deliver(ev('turn_done', { done: { ...done, sessionId: 'S1', turn: 1, stop: 'done', steps: 0, toolCalls: 0 } }));
    assert.equal(await card.locator('.approval-choice').innerText(), 'No answer.');
    await p.expectClean();
    await p.page.close();
  });

  test('@ completes files from the extension', async () => {
    const p = await panel();
    const input = p.page.locator('.composer textarea');
    await input.click();
    await p.page.keyboard.type('look at @ca');
    await p.page.waitForFunction(() => window.__harness.posted.some((m) => m.type === 'requestFiles' && m.prefix === 'ca'));
    await p.deliver({ type: 'files', items: [{ path: 'calc.go' }, { path: 'calc_test.go' }] });
    const options = p.page.locator('#composer-menu [role="option"]');
    assert.deepEqual(await options.allInnerTexts(), ['calc.go', 'calc_test.go']);
    await p.page.keyboard.press('ArrowDown');
    await p.page.keyboard.press('Enter');
    assert.equal(await input.inputValue(), 'look at @calc_test.go ');
    assert.ok(await p.page.locator('#composer-menu').isHidden());

    // Plain strings work too, and a click picks.
    await p.page.keyboard.type('and @');
    await p.page.waitForFunction(() => window.__harness.posted.some((m) => m.type === 'requestFiles' && m.prefix === ''));
    await p.deliver({ type: 'files', items: ['go.mod', 'pkg/util/strings.go'] });
    await options.nth(1).click();
    assert.equal(await input.inputValue(), 'look at @calc_test.go and @pkg/util/strings.go ');
    await p.page.keyboard.type('x');
    assert.ok(await p.page.locator('#composer-menu').isHidden(), 'typing past the mention closes the menu');
    await p.expectClean();
    await p.page.close();
  });

  test('@ offers the MCP servers\' resources after the files', async () => {
    const p = await panel();
    const input = p.page.locator('.composer textarea');
    const options = p.page.locator('#composer-menu [role="option"]');
    const labels = () => options.locator('.menu-label').allInnerTexts();
    const asked = async () => (await p.posted()).filter((m) => m.type === 'requestMcp').length;
    const filesFor = (prefix) => p.page.waitForFunction((q) => window.__harness.posted.some((m) => m.type === 'requestFiles' && m.prefix === q), prefix);
    await input.click();
    await p.page.keyboard.type('summarize @');
    assert.equal(await asked(), 1, 'the menu asks for the resources');
    await filesFor('');
    await p.deliver({ type: 'files', items: ['calc.go', 'go.mod'] });
    assert.deepEqual(await labels(), ['calc.go', 'go.mod']);
    // The answer arrives while the menu is open: the resources join it
    // after the files, and the highlighted file stays highlighted.
    await p.page.keyboard.press('ArrowDown');
    await p.deliver(mcp);
    assert.deepEqual(await labels(), ['calc.go', 'go.mod', '@example:note://greeting']);
    assert.equal(await p.text('#composer-menu [aria-selected="true"] .menu-label'), 'go.mod');
    assert.equal(await options.last().locator('.menu-detail').innerText(), 'greeting · The greeting note (the lookup tool returns it too).');

    // What follows the @ filters them, by server:uri or by name; asked once per menu.
    const more = {
      ...mcp,
      resources: [...mcp.resources, { server: 'docs', uri: 'file:///srv/docs/arch.md', name: 'architecture', description: 'How the parts fit' }],
    };
    await p.deliver(more);
    await p.page.keyboard.type('archit');
    await filesFor('archit');
    await p.deliver({ type: 'files', items: [] });
    assert.deepEqual(await labels(), ['@docs:file:///srv/docs/arch.md']);
    await p.page.keyboard.type('zz');
    await filesFor('architzz');
    await p.deliver({ type: 'files', items: [] });
    assert.equal(await p.text('.menu-empty'), 'No matching files or resources');
    for (let i = 0; i < 'architzz'.length; i++) await p.page.keyboard.press('Backspace');
    await p.page.keyboard.type('example:no');
    await filesFor('example:no');
    await p.deliver({ type: 'files', items: [] });
    assert.deepEqual(await labels(), ['@example:note://greeting']);
    assert.equal(await asked(), 1, 'asked once per menu');

    // Picking one replaces the @word, as a file does; the prompt goes as typed.
    await p.page.keyboard.press('Enter');
    assert.equal(await input.inputValue(), 'summarize @example:note://greeting ');
    assert.ok(await p.page.locator('#composer-menu').isHidden());
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.posted()).at(-1), { type: 'ask', prompt: 'summarize @example:note://greeting', attach: null });
    await p.deliver({ type: 'state', model: 'm', running: false, sessionId: 'S1' });

    // A new menu asks again; a click picks a resource too.
    await p.clearPosted();
    await p.page.keyboard.type('and @');
    assert.equal(await asked(), 1, 'each menu asks');
    await filesFor('');
    await p.deliver(mcp, { type: 'files', items: ['calc.go'] });
    assert.deepEqual(await labels(), ['calc.go', '@example:note://greeting']);
    await options.nth(1).click();
    assert.equal(await input.inputValue(), 'and @example:note://greeting ');
    await p.expectClean();
    await p.page.close();
  });
});

describe('sessions', () => {
  test('lists saved sessions and resumes one with its transcript', async () => {
    const p = await panel();
    await p.page.getByRole('button', { name: 'Show sessions' }).click();
    assert.deepEqual((await p.posted()).at(-1), { type: 'listSessions' });
    const sessions = readJson('sessions.json');
    await p.deliver(sessions, { type: 'sessions', list: [] });
    assert.equal(await p.text('.sessions-status'), 'No saved sessions yet.');
    await p.deliver(sessions);
    const item = p.page.getByRole('button', { name: `Resume session: ${sessions.list[0].title}` });
    assert.match(await item.innerText(), /scripted\/deepseek-flash · 1 turn · \$0\.0033/);
    await item.click();
    assert.deepEqual((await p.posted()).at(-1), { type: 'resumeSession', sessionId: sessions.list[0].id });
    assert.ok(await p.page.locator('.sessions').isHidden());

    const resumed = readJson('resumed.json');
    await p.deliver(resumed);
    assert.equal(await p.text('.user'), resumed.messages[0].content);
    assert.deepEqual(await p.page.locator('details.tool .tool-title').allInnerTexts(), [
      'read_file calc.go',
      'read_file calc_tests.go',
      'bash go test ./...',
      'edit_file calc.go',
      'bash go test ./...',
    ]);
    assert.deepEqual(await p.page.locator('details.tool').evaluateAll((els) => els.map((e) => e.dataset.status)), ['ok', 'error', 'error', 'ok', 'ok']);
    assert.equal(await p.text('.answer h2'), 'What was wrong');
    assert.equal(await p.count('.answer pre > code'), 1);
    assert.equal(await p.count('details.reasoning'), 3);
    assert.equal(await p.text('.model'), resumed.model);
    assert.equal(await p.text('.badge-session'), badge('Session', resumed.usage, resumed.cost));
    assert.ok(await p.page.locator('.badge-turn').isHidden());

    // The next turn of the resumed session streams below its history.
    await p.deliver(ev('turn_start', { sessionId: resumed.sessionId, turn: 2, text: 'And Sub?' }), ev('text', { sessionId: resumed.sessionId, turn: 2, step: 1, text: 'Sub is right.' }));
    assert.deepEqual(await p.page.locator('.user').allInnerTexts(), [resumed.messages[0].content, 'And Sub?']);
    assert.equal(await p.page.locator('.answer').last().innerText(), 'Sub is right.');
    await p.expectClean();
    await p.page.close();
  });
});

describe('changed files', () => {
  test('each file offers diff, keep and revert', async () => {
    const p = await panel();
    assert.ok(await p.page.locator('.changes').isHidden());
    await p.deliver({ type: 'changedFiles', files: [{ path: 'calc.go', status: 'modified' }, { path: 'pkg/util/new.go', status: 'created' }] });
    assert.equal(await p.page.locator('.changes h2').textContent(), 'Changed files (2)');
    assert.equal(await p.count('.change'), 2);
    await p.page.getByRole('button', { name: 'View the diff of calc.go' }).click();
    await p.page.getByRole('button', { name: 'Keep the changes to calc.go' }).click();
    await p.page.getByRole('button', { name: 'Revert the changes to pkg/util/new.go' }).click();
    assert.deepEqual((await p.posted()).slice(-3), [
      { type: 'openDiff', path: 'calc.go' },
      { type: 'acceptFile', path: 'calc.go' },
      { type: 'rejectFile', path: 'pkg/util/new.go' },
    ]);
    assert.deepEqual(await p.page.locator('.change-status').allInnerTexts(), ['M', 'A']);
    await p.deliver({ type: 'changedFiles', files: [] });
    assert.ok(await p.page.locator('.changes').isHidden());
    await p.expectClean();
    await p.page.close();
  });
});

describe('Markdown', () => {
  // Each answer alone in its own turn, and the HTML the panel made of it.
  const link = (url, text = url) => `<a href="${url}" title="${url}">${text}</a>`;
  const cases = [
    ['- a\n  - b\n- c', '<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>'],
    ['- a\n\n- b', '<ul><li><p>a</p></li><li><p>b</p></li></ul>'],
    ['1) one\n2) two', '<ol><li>one</li><li>two</li></ol>'],
    ['1. one\n\n   more of one\n2. two', '<ol><li><p>one</p><p>more of one</p></li><li><p>two</p></li></ol>'],
    ['para\n- item\n\ntext after', '<p>para</p><ul><li>item</li></ul><p>text after</p>'],
    [
      '| a | b |\n|:-|-:|\n| 1 | 2 |',
      '<div class="md-table"><table><thead><tr><th class="align-left">a</th><th class="align-right">b</th></tr></thead>' +
        '<tbody><tr><td class="align-left">1</td><td class="align-right">2</td></tr></tbody></table></div>',
    ],
    ['> quote *x*', '<blockquote><p>quote <em>x</em></p></blockquote>'],
    ['Title\n===', '<h1>Title</h1>'],
    ['## Heading with `code` ##', '<h2>Heading with <code>code</code></h2>'],
    ['***both*** ~~gone~~ **bold**: _em_', '<p><strong><em>both</em></strong> <del>gone</del> <strong>bold</strong>: <em>em</em></p>'],
    ['snake_case_name and 2 * 3 * 4, x_y_', '<p>snake_case_name and 2 * 3 * 4, x_y_</p>'],
    ['**bo', '<p>**bo</p>'],
    ['\\*not em\\*', '<p>*not em*</p>'],
    ['`` a ` b `` and `<b>`', '<p><code>a ` b</code> and <code>&lt;b&gt;</code></p>'],
    ['a  \nb', '<p>a<br>b</p>'],
    [
      'see https://go.dev/doc. and <https://a.b/c>',
      `<p>see ${link('https://go.dev/doc')}. and ${link('https://a.b/c')}</p>`,
    ],
    ['[a `code` link](https://x.y/z_(1))', `<p>${link('https://x.y/z_(1)', 'a <code>code</code> link')}</p>`],
    ['[file](calc.go) [js](javascript:alert(1))', '<p>file js</p>'],
  ];
  test('renders what models write', async () => {
    const p = await panel();
    await p.deliver(
      cases.flatMap(([md], i) => [
        ev('turn_start', { turn: i + 1, text: 'q' }),
        ev('text', { turn: i + 1, step: 1, text: md }),
      ]),
    );
    const html = await p.page.locator('.answer').evaluateAll((els) => els.map((e) => e.innerHTML));
    for (const [i, [md, want]] of cases.entries()) assert.equal(html[i], want, JSON.stringify(md));
    await p.page.close();
  });

  test('a fenced block keeps its fences and shows its language', async () => {
    const p = await panel();
    await p.deliver(ev('turn_start', { text: 'q' }), ev('text', { step: 1, text: '````md\n```go\nx\n```\n````\n\n```\nplain\n```' }));
    assert.deepEqual(await p.page.locator('.answer .code-lang').allInnerTexts(), ['md', 'text']);
    assert.deepEqual(await p.page.locator('.answer pre code').allTextContents(), ['```go\nx\n```', 'plain']);
    assert.deepEqual(
      await p.page.locator('.answer button.copy').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))),
      ['Copy md code', 'Copy code'],
    );
    await p.page.close();
  });
});

describe('safety', () => {
  test('HTML from the model, tools and prompts is shown as text', async () => {
    const p = await panel();
    const evil = '<script>window.__xss = 1</script>';
    const img = '<img src=x onerror="window.__xss = 2">';
    const answer = [
      `# Title ${img}`,
      '',
      evil,
      '',
      `${img} and <b>bold?</b> and [click](javascript:window.__xss=3) and <a href="javascript:alert(1)">a</a>`,
      '',
      `- item ${evil}`,
      '',
      '```html',
      evil,
      '```',
      '',
      '![pic](https://example.com/x.png)',
    ].join('\n');
    await p.deliver(
      ev('turn_start', { text: `why ${img}` }),
      ev('reasoning', { step: 1, text: evil }),
      ev('tool_start', { step: 1, tool: { callId: 'c1', name: 'bash', title: `bash echo ${img}` } }),
      ev('tool_result', { step: 1, tool: { callId: 'c1', name: 'bash', title: `bash echo ${img}`, summary: img, result: evil, isError: true } }),
      { type: 'approval', id: 'a1', request: { sessionId: 'S1', tool: 'bash', title: img, scope: evil, message: `run \`${img}\` ${evil}`, actions: ACTIONS } },
      ...[...answer].reduce((chunks, ch, i) => (i % 7 ? (chunks[chunks.length - 1] += ch) : chunks.push(ch), chunks), []).map((t) => ev('text', { step: 2, text: t })),
      ev('error', { error: evil }),
      { type: 'sessions', list: [] },
      { type: 'changedFiles', files: [{ path: `${img}.go`, status: 'modified' }] },
    );
    const made = await p.page.evaluate(() =>
      [...document.querySelectorAll('.panel script, .panel img, .panel b, .panel iframe, .panel [onerror]')].map((e) => e.outerHTML),
    );
    assert.deepEqual(made, []);
    assert.equal(await p.page.evaluate(() => window.__xss), undefined);
    assert.equal(await p.count('a[href^="javascript:"]'), 0);
    assert.equal(await p.text('.answer h1'), `Title ${img}`);
    assert.equal(await p.page.locator('.answer p').first().innerText(), evil);
    assert.match(await p.text('.answer'), /and <b>bold\?<\/b> and click and <a href="javascript:alert\(1\)">a<\/a>/);
    assert.equal(await p.text('.answer pre code'), evil);
    assert.equal(await p.page.locator('.answer a').last().getAttribute('href'), 'https://example.com/x.png');
    assert.equal(await p.text('.user'), `why ${img}`);
    assert.equal(await p.text('.tool-title'), `bash echo ${img}`);
    assert.equal(await p.page.locator('.tool-result').textContent(), evil);
    assert.equal(await p.text('.approval-scope code'), evil);
    assert.equal(await p.text('.notice-error'), evil);
    assert.equal(await p.text('.change-name'), `${img}.go`.split('/').pop());
    await p.expectClean();
    await p.page.close();
  });
});

describe('restore to before a turn', () => {
  // Two turns as the server streams them: the first edits calc.go, the
  // second creates notes.txt with a shell command.
  const turnOf = (n, prompt, answer) => [
    ev('turn_start', { turn: n, text: prompt }),
    ev('text', { turn: n, step: 1, text: answer }),
    ev('turn_done', { turn: n, done: { sessionId: 'S1', text: answer, stop: 'done', steps: 2, toolCalls: 1, usage: { prompt_tokens: 10, completion_tokens: 5 }, cost: 0, priced: false } }),
  ];
  const plan = {
    sessionId: 'S1',
    turn: 1,
    turns: [1, 2],
    messages: 8,
    done: false,
    files: [
      { path: 'calc.go', action: 'restore', before: 'package calc\n', now: 'package calc // edited\n' },
      { path: 'notes.txt', action: 'remove', now: 'remember the sign\n' },
      { path: 'old.txt', action: 'recreate', before: 'kept\n' },
      { path: 'docs/guide.md', action: 'merge', before: 'a\n', now: 'b\n' },
      { path: 'main.go', action: 'conflict', note: 'changed since, overlapping', saved: '/home/ana/.reasonix/rewind/main.go' },
      { path: 'data/big.bin', action: 'unknown', note: 'too large to keep' },
    ],
  };

  test('previews the files, confirms, and drops the rewound turns', async () => {
    const p = await panel();
    const { page } = p;
    await p.deliver({ type: 'state', model: 'scripted/deepseek-flash', running: false, sessionId: 'S1' });
    await p.deliver(turnOf(1, 'fix Add', 'Add adds now.'), turnOf(2, 'write notes', 'Wrote notes.txt.'));
    assert.deepEqual(await page.locator('button.turn-restore').evaluateAll((bs) => bs.map((b) => b.dataset.turn)), ['1', '2']);

    await p.clearPosted();
    await page.locator('.turn-head', { hasText: 'fix Add' }).hover();
    await page.locator('button.turn-restore[data-turn="1"]').click();
    assert.deepEqual(await p.posted(), [{ type: 'rewindPreview', turn: 1 }]);
    const card = page.locator('section.rewind');
    assert.ok(await card.isVisible(), 'the card shows while the preview comes');
    assert.equal(await card.locator('h2').innerText(), 'Restore to before turn 1');
    assert.equal(await card.locator('.rewind-prompt').innerText(), 'fix Add');
    assert.ok(await card.getByRole('button', { name: 'Confirm' }).isDisabled(), 'nothing to confirm before the preview');

    await p.deliver({ type: 'rewindPreview', plan });
    const rows = await card.locator('.rewind-file').evaluateAll((ls) =>
      ls.map((l) => [l.querySelector('.rewind-action').textContent, l.querySelector('.rewind-path').textContent, l.querySelector('.rewind-says').textContent]),
    );
    assert.deepEqual(rows, [
      ['restore', 'calc.go', 'gets its earlier text back'],
      ['remove', 'notes.txt', 'created by these turns: removed'],
      ['recreate', 'old.txt', 'deleted by these turns: put back'],
      ['merge', 'docs/guide.md', 'changed since: their changes are taken out, the later ones kept'],
      ['conflict', 'main.go', 'changed since, overlapping: left as it is'],
      ['unknown', 'data/big.bin', 'too large to keep: left as it is'],
    ]);
    assert.match(await card.locator('.rewind-conversation').innerText(), /this turn and 1 later one leave the model's context/);
    fs.mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, 'rewind-preview.png') });

    // Cancel closes it and changes nothing; a second look, then Confirm.
    await card.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await card.isVisible(), false);
    await page.locator('button.turn-restore[data-turn="1"]').click();
    await p.deliver({ type: 'rewindPreview', plan });
    await p.clearPosted();
    await card.getByRole('button', { name: 'Confirm' }).click();
    assert.deepEqual(await p.posted(), [{ type: 'rewind', turn: 1 }]);
    assert.ok(await card.getByRole('button', { name: 'Restoring…' }).isDisabled(), 'no second click while it runs');

    await p.deliver({ type: 'rewound', plan: { ...plan, done: true } });
    assert.equal(await card.isVisible(), false);
    assert.equal(await p.count('.user'), 0, 'both turns dropped');
    assert.equal(await p.count('.answer'), 0);
    assert.equal(await p.count('.turn-done'), 0);
    assert.equal(
      await p.text('.notice-info'),
      [
        'Restored to before turn 1: 1 file restored, 1 file removed, 1 file recreated, 1 file merged, 1 conflict, 1 file left as it is.',
        'main.go: changed since, overlapping, left as it is; its earlier text is in /home/ana/.reasonix/rewind/main.go.',
        'data/big.bin: too large to keep, left as it is.',
      ].join('\n'),
    );
    await p.expectClean();
    await page.close();
  });

  test('rewinding a later turn keeps the earlier ones; a failure shows on the card', async () => {
    const p = await panel();
    const { page } = p;
    await p.deliver({ type: 'state', model: 'scripted/deepseek-flash', running: false, sessionId: 'S1' });
    await p.deliver(turnOf(1, 'fix Add', 'Add adds now.'), turnOf(2, 'write notes', 'Wrote notes.txt.'));
    const card = page.locator('section.rewind');

    await page.locator('button.turn-restore[data-turn="2"]').click();
    await p.deliver({ type: 'rewindFailed', turn: 2, message: 'a turn is running in this session' });
    assert.equal(await card.locator('.rewind-error').innerText(), 'a turn is running in this session');
    await card.getByRole('button', { name: 'Close' }).click();

    await page.locator('button.turn-restore[data-turn="2"]').click();
    await p.deliver({ type: 'rewindPreview', plan: { ...plan, turn: 2, turns: [2], files: [{ path: 'notes.txt', action: 'remove' }] } });
    assert.match(await card.locator('.rewind-conversation').innerText(), /: this turn leaves the model's context/);
    await card.getByRole('button', { name: 'Confirm' }).click();
    await p.deliver({ type: 'rewound', plan: { ...plan, turn: 2, turns: [2], done: true, files: [{ path: 'notes.txt', action: 'remove' }] } });
    assert.deepEqual(await page.locator('.user').allInnerTexts(), ['fix Add']);
    assert.equal(await p.text('.answer'), 'Add adds now.');
    assert.equal(await p.text('.notice-info'), 'Restored to before turn 2: 1 file removed.');

    // A resumed session's prompts take the server's turn numbers.
    await p.deliver({
      type: 'resumed',
      sessionId: 'S2',
      model: 'scripted/deepseek-flash',
      usage: { prompt_tokens: 0, completion_tokens: 0, cache_hit_tokens: 0, cache_miss_tokens: 0 },
      cost: 0,
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'one' },
        { role: 'user', content: 'after a rewind' },
        { role: 'assistant', content: 'two' },
      ],
      turns: [1, 4],
    });
    assert.deepEqual(await page.locator('button.turn-restore').evaluateAll((bs) => bs.map((b) => b.dataset.turn)), ['1', '4']);
    await p.expectClean();
    await page.close();
  });

  test("/rewind N typed in the composer: the rewind event drops the turns, the command's answer stays", async () => {
    const p = await panel();
    await p.deliver({ type: 'state', model: 'scripted/deepseek-flash', running: false, sessionId: 'S1' });
    await p.deliver(turnOf(1, 'fix Add', 'Add adds now.'), turnOf(2, 'write notes', 'Wrote notes.txt.'));
    await p.deliver(
      ev('turn_start', { turn: 3, text: '/rewind 2' }),
      ev('rewind', { turn: 3, rewind: { ...plan, turn: 2, turns: [2], done: true, files: [{ path: '/w/notes.txt', action: 'remove' }] } }),
      ev('text', { turn: 3, step: 0, text: 'Rewound to before turn 2: 1 file removed.' }),
      ev('turn_done', { turn: 3, done: { sessionId: 'S1', text: '', stop: 'done', steps: 0, toolCalls: 0, usage: { prompt_tokens: 0, completion_tokens: 0 }, cost: 0, priced: false, action: { kind: 'rewind' } } }),
    );
    assert.deepEqual(await p.page.locator('.user').allInnerTexts(), ['fix Add', '/rewind 2']);
    assert.deepEqual(await p.page.locator('.answer').allInnerTexts(), ['Add adds now.']);
    assert.equal(await p.text('.notice-info'), 'Rewound to before turn 2: 1 file removed.');
    await p.expectClean();
    await p.page.close();
  });
});
