-- Neovim's built-in LSP client runs Reasonix's quick fix, headless, the
-- same on 0.7 and 0.10 (lsp/clients_test.go runs both), whose clients
-- declare different capabilities.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile neovim.lua'
--
-- lsp/clients_test.go runs it with the environment:
--   REASONIX_LSP              the server command (`reasonix lsp`)
--   REASONIX_TEST_ROOT        the workspace folder
--   REASONIX_TEST_FILE        the file to open
--   REASONIX_TEST_DIAGNOSTIC  the diagnostic to report for it (JSON), as
--                             gopls would: the server computes none
--   REASONIX_TEST_WANT        the file's text once fixed
--
-- Neovim 0.7 has vim.lsp.start_client but not vim.lsp.start; 0.10 has
-- both. 0.7's default window/showMessageRequest handler waits on
-- inputlist(), which blocks headless, so permission dialogs are answered
-- here ("Allow once").
-- reasonix/saveDocuments is implemented as the Neovim plugin does, so the
-- agent's `go test` sees the fix. The script exits 0 only if every check
-- held; anything else (an error, a timeout) exits 1 with the reason on
-- stderr.

local T = dofile('reasonix_test.lua')
local say, getenv, wait = T.say, T.getenv, T.wait

local root = getenv('REASONIX_TEST_ROOT')
local file = getenv('REASONIX_TEST_FILE')
local diagnostic = vim.fn.json_decode(getenv('REASONIX_TEST_DIAGNOSTIC'))
local want = getenv('REASONIX_TEST_WANT')

-- What the server asked of the editor.
local seen = { saves = {}, messages = {}, progress_end = nil }
local dialogs = T.answer_dialogs(function()
  return 'Allow once'
end)

-- The server asks for the documents holding the agent's edits to be saved
-- before it runs a command.
vim.lsp.handlers['reasonix/saveDocuments'] = function(_, params)
  local saved, failed = {}, {}
  for _, uri in ipairs(params.uris or {}) do
    local bufnr = vim.uri_to_bufnr(uri)
    local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
      vim.cmd('silent write')
    end)
    if ok then
      table.insert(saved, uri)
    else
      table.insert(failed, { uri = uri, reason = tostring(err) })
    end
  end
  table.insert(seen.saves, saved)
  return { saved = saved, failed = failed }
end

local default_progress = vim.lsp.handlers['$/progress']
vim.lsp.handlers['$/progress'] = function(err, params, ctx, config)
  if type(params.value) == 'table' and params.value.kind == 'end' then
    seen.progress_end = params.value.message or ''
  end
  return default_progress(err, params, ctx, config)
end

vim.lsp.handlers['window/showMessage'] = function(_, params)
  table.insert(seen.messages, params.message)
  say('message: %s', params.message)
end

local function main()
  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()

  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.experimental = { reasonix = { saveDocuments = true } }
  local client = T.start({
    name = 'reasonix',
    cmd = { getenv('REASONIX_LSP') },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    capabilities = capabilities,
  })
  assert(vim.lsp.buf_attach_client(bufnr, client.id), 'cannot attach the buffer')

  local res = client.request_sync('textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = diagnostic.range,
    context = { diagnostics = { diagnostic } },
  }, 10000, bufnr)
  assert(res and not res.err, 'codeAction failed: ' .. vim.inspect(res))
  local fix
  for _, action in ipairs(res.result or {}) do
    if vim.startswith(action.title, 'Ask Reasonix to fix') then
      fix = action
    end
  end
  assert(fix, 'no "Ask Reasonix to fix" among ' .. vim.inspect(res.result))
  assert(fix.kind == 'quickfix', 'the fix is of kind ' .. tostring(fix.kind))
  say('code action: %s', fix.title)

  -- reasonix.start answers at once; the turn runs on, and its edit comes
  -- back as workspace/applyEdit, which Neovim's own handler applies.
  local started = client.request_sync('workspace/executeCommand', fix.command, 10000, bufnr)
  assert(started and not started.err and started.result and started.result.sessionId,
    'reasonix.start failed: ' .. vim.inspect(started))
  say('session %s', started.result.sessionId)

  -- The edit is applied while the turn runs, so by its end the buffer
  -- must hold the fix.
  wait('the end of the turn', function()
    return seen.progress_end ~= nil
  end)
  say('turn ended: %s', seen.progress_end)
  assert(vim.startswith(seen.progress_end, 'Done'), 'the turn did not succeed: ' .. seen.progress_end)
  local text = T.buffer_text(bufnr)
  assert(text == want, 'the buffer after the turn:\n' .. text)

  vim.cmd('silent write')
  assert(not vim.bo[bufnr].modified, 'the buffer is still modified after :write')

  -- Two dialogs: the edit and the command, each with exactly the four
  -- documented actions.
  assert(#dialogs == 2, #dialogs .. ' permission dialogs, want 2')
  for _, d in ipairs(dialogs) do
    assert(d.actions == T.PERMISSION, 'dialog actions ' .. d.actions)
  end
  assert(#seen.saves == 1 and #seen.saves[1] == 1, 'saveDocuments calls: ' .. vim.inspect(seen.saves))

  T.stop(client)
  say('ok: %d dialogs, %d saves, server exit 0', #dialogs, #seen.saves)
end

T.run(main)
