-- Neovim 0.7's built-in LSP client reviews the agent's proposed changes
-- (review = "propose") with plain LSP, headless: the proposals are
-- diagnostics, accepting and rejecting are code actions, and an accepted
-- hunk arrives as a workspace edit Neovim's own handler applies.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile neovim-review.lua'
--
-- lsp/clients_review_test.go runs it (review.txtar) with the environment:
--   REASONIX_LSP        the server command (`reasonix lsp`)
--   REASONIX_TEST_ROOT  the workspace folder
--   REASONIX_TEST_FILE  calc.go, which the agent changes in three hunks

local T = dofile('reasonix_test.lua')
local say, getenv, wait = T.say, T.getenv, T.wait

local root = getenv('REASONIX_TEST_ROOT')
local file = getenv('REASONIX_TEST_FILE')

T.answer_dialogs(function()
  return 'Allow for session'
end)

local function lines(bufnr)
  return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

local function main()
  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local original = lines(bufnr)

  local client = T.start({
    name = 'reasonix',
    cmd = { getenv('REASONIX_LSP') },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    capabilities = vim.lsp.protocol.make_client_capabilities(),
    init_options = { review = 'propose' },
    flags = { debounce_text_changes = 0 },
  })
  assert(vim.lsp.buf_attach_client(bufnr, client.id), 'cannot attach the buffer')
  local uri = vim.uri_from_bufnr(bufnr)

  local turn = client.request_sync('workspace/executeCommand', {
    command = 'reasonix.ask',
    arguments = { { prompt = 'Review these fixes to calc.go.', uri = uri } },
  }, T.TIMEOUT_MS, bufnr)
  assert(turn and not turn.err and turn.result.stop == 'done', 'the turn: ' .. vim.inspect(turn))
  assert(vim.deep_equal(lines(bufnr), original), 'the buffer changed before any hunk was accepted')

  local function proposals()
    return vim.diagnostic.get(bufnr)
  end
  wait('three proposal diagnostics', function()
    return #proposals() == 3
  end)
  for _, d in ipairs(proposals()) do
    assert(d.source == 'reasonix' and d.severity == vim.diagnostic.severity.INFO, 'diagnostic ' .. vim.inspect(d))
  end

  local function actions_at(line)
    return T.actions_at(client, bufnr, line, 1)
  end
  local find = T.find_action
  local function run(action)
    return T.run_action(client, bufnr, action)
  end

  -- Accept the fix of Add (line 5): Neovim applies that hunk alone.
  local accept = find(actions_at(4), 'Accept this change')
  assert(accept, 'no "Accept this change" on line 5')
  local res = run(accept)
  assert(res.hunks == 1 and res.pending == 2, 'accept answered ' .. vim.inspect(res))
  assert(lines(bufnr)[5] == '\treturn a + b', 'line 5 after accepting: ' .. lines(bufnr)[5])
  assert(#lines(bufnr) == #original, 'accepting changed more than the hunk')
  say('accepted the first hunk')

  -- Reject the comment (an insertion before line 9).
  wait('two diagnostics', function()
    return #proposals() == 2
  end)
  local reject = find(actions_at(8), 'Reject this change')
  assert(reject, 'no "Reject this change" on line 9')
  res = run(reject)
  assert(res.hunks == 1 and res.pending == 1, 'reject answered ' .. vim.inspect(res))
  say('rejected the second hunk')

  -- The user edits the line of the third hunk: it goes stale.
  vim.api.nvim_buf_set_lines(bufnr, 14, 15, false, { '\treturn a * a // checked by hand' })
  wait('the stale diagnostic', function()
    local d = proposals()
    return #d == 1 and vim.startswith(d[1].message, 'Stale proposed change')
  end)
  local actions = actions_at(14)
  assert(not find(actions, 'Accept this change'), 'a stale hunk offers "Accept this change"')
  assert(find(actions, 'Reject this change'), 'a stale hunk offers no "Reject this change"')
  local pending = client.request_sync('reasonix/review', { uri = uri }, 10000, bufnr)
  assert(pending and not pending.err, 'reasonix/review: ' .. vim.inspect(pending))
  local hunk = pending.result.files[1].hunks[1]
  assert(hunk.stale, 'reasonix/review: ' .. vim.inspect(pending.result))
  local refused = client.request_sync('workspace/executeCommand', {
    command = 'reasonix.review.accept',
    arguments = { { uri = uri, hunk = hunk.id } },
  }, 10000, bufnr)
  assert(refused and refused.err and refused.err.message:find('edited since it was proposed', 1, true),
    'accepting the stale hunk: ' .. vim.inspect(refused))
  say('the stale hunk was refused: %s', refused.err.message)

  vim.cmd('silent write')
  T.stop(client)
  say('ok')
end

T.run(main)
