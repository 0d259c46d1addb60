-- Neovim 0.7's built-in LSP client reviews what the agent's shell command
-- changed (review = "propose"): the command changes a file on disk, the
-- user opens it, and the changes are diagnostics with the proposals' code
-- actions. Rejecting one arrives as a versioned workspace edit of the
-- buffer; accepting the other changes nothing; the user saves.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile neovim-review-shell.lua'
--
-- lsp/clients_review_test.go runs it (review-shell.txtar) with the
-- environment:
--   REASONIX_LSP        the server command (`reasonix lsp`)
--   REASONIX_TEST_ROOT  the workspace folder
--   REASONIX_TEST_FILE  notes.txt, which the agent's command changes twice

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
  local client = T.start({
    name = 'reasonix',
    cmd = { getenv('REASONIX_LSP') },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    capabilities = vim.lsp.protocol.make_client_capabilities(),
    init_options = { review = 'propose' },
    flags = { debounce_text_changes = 0 },
  })
  local turn = client.request_sync('workspace/executeCommand', {
    command = 'reasonix.ask',
    arguments = { { prompt = 'Shout two words in notes.txt.' } },
  }, T.TIMEOUT_MS)
  assert(turn and not turn.err and turn.result.stop == 'done', 'the turn: ' .. vim.inspect(turn))

  -- The command changed the file on disk; the user opens it now.
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.lsp.buf_attach_client(bufnr, client.id), 'cannot attach the buffer')
  local uri = vim.uri_from_bufnr(bufnr)
  assert(lines(bufnr)[2] == 'ALPHA' and lines(bufnr)[5] == 'DELTA', 'the buffer: ' .. vim.inspect(lines(bufnr)))
  local function changes()
    return vim.diagnostic.get(bufnr)
  end
  wait('two diagnostics of the command\'s changes, found in the buffer', function()
    local d = changes()
    return #d == 2 and not d[1].message:find('Stale', 1, true) and not d[2].message:find('Stale', 1, true)
  end)
  for _, d in ipairs(changes()) do
    assert(d.source == 'reasonix' and d.message:find('already on disk', 1, true), 'diagnostic ' .. vim.inspect(d))
  end

  local function actions_at(line)
    return T.actions_at(client, bufnr, line, 0)
  end
  local find = T.find_action
  local function run(action)
    return T.run_action(client, bufnr, action)
  end

  -- Reject the first change (line 2): Neovim's own handler undoes it in
  -- the buffer.
  local reject = find(actions_at(1), 'Reject this change')
  assert(reject, 'no "Reject this change" on line 2')
  local res = run(reject)
  assert(res.hunks == 1 and res.pending == 1, 'reject answered ' .. vim.inspect(res))
  assert(lines(bufnr)[2] == 'alpha' and lines(bufnr)[5] == 'DELTA', 'the buffer after rejecting: ' .. vim.inspect(lines(bufnr)))
  say('rejected the first change')

  wait('one diagnostic', function()
    return #changes() == 1
  end)
  local accept = find(actions_at(4), 'Accept this change')
  assert(accept, 'no "Accept this change" on line 5')
  res = run(accept)
  assert(res.hunks == 1 and res.pending == 0, 'accept answered ' .. vim.inspect(res))
  assert(lines(bufnr)[5] == 'DELTA', 'accepting changed the buffer')
  wait('no diagnostics', function()
    return #changes() == 0
  end)
  say('accepted the second change')

  vim.cmd('silent write')
  T.stop(client)
  say('ok')
end

T.run(main)
