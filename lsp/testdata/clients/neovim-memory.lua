-- Neovim 0.7's built-in LSP client, plain LSP, over two Reasonix
-- processes, headless: the first remembers a preference and asks a
-- question; the second finds the first's fact through history, delegates
-- two research tasks and an edit task, and follows the preference.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile neovim-memory.lua'
--
-- lsp/clients_memory_test.go runs it with REASONIX_LSP (the server
-- command), REASONIX_TEST_ROOT (the workspace folder) and REASONIX_HOME
-- (shared by both servers: the user's memory and sessions live there),
-- playing memory-delegation.txtar. Every window/showMessageRequest is
-- answered here, as a user would: a permission dialog "Allow once", the
-- agent's question with one of its options. Exits 0 only if every check
-- held.

local T = dofile('reasonix_test.lua')
local say, PERMISSION = T.say, T.PERMISSION

local root = T.getenv('REASONIX_TEST_ROOT')
local server = T.getenv('REASONIX_LSP')
local hello = root .. '/hello.py'

local edits = {}

local dialogs = T.answer_dialogs(function(_, actions)
  if actions == PERMISSION then
    return 'Allow once'
  end
  return 'Not in YAML'
end)

-- The agent's edits arrive as workspace/applyEdit, which Neovim's own
-- handler applies; they are counted on the way.
local apply_edit = vim.lsp.handlers['workspace/applyEdit']
vim.lsp.handlers['workspace/applyEdit'] = function(err, params, ctx, config)
  table.insert(edits, params.edit)
  return apply_edit(err, params, ctx, config)
end

--- Starts a Reasonix server (a new process) on the workspace with
--- hello.py open, runs one turn with reasonix.ask, stops the server, and
--- returns the turn's result.
local function session(prompt)
  vim.cmd('edit ' .. vim.fn.fnameescape(hello))
  local bufnr = vim.api.nvim_get_current_buf()
  local client = T.start({
    name = 'reasonix',
    cmd = { server },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = 'ws' } },
  })
  assert(vim.lsp.buf_attach_client(bufnr, client.id), 'cannot attach the buffer')
  local turn = T.command(client, 'reasonix.ask', { prompt = prompt })
  say('turn: %s', turn.text)
  T.stop(client)
  return turn, bufnr
end

local function main()
  local first = session('Remember: I indent with tabs. Staging listens on port 8443.')
  assert(first.stop == 'done', 'the first turn: ' .. vim.inspect(first))
  assert(#dialogs == 2, #dialogs .. ' dialogs, want 2: ' .. vim.inspect(dialogs))
  local approval, question = dialogs[1], dialogs[2]
  assert(approval.actions == PERMISSION, 'the first dialog is not a permission question: ' .. approval.actions)
  for _, want in ipairs({ 'Save the note user/indent', 'Indent with tabs, never spaces.', 'asked each time' }) do
    assert(approval.message:find(want, 1, true), 'the permission dialog lacks ' .. want .. ':\n' .. approval.message)
  end
  assert(question.actions == 'Yes, everywhere|Not in YAML', 'the question offers ' .. question.actions)
  assert(question.message == 'Reasonix asks: Tabs in YAML files too?', 'the question reads ' .. question.message)
  assert(#edits == 0, 'the first session edited: ' .. vim.inspect(edits))

  local second, bufnr = session('Which port does staging use? And indent hello.py my way.')
  assert(second.stop == 'done', 'the second turn: ' .. vim.inspect(second))
  assert(second.text:find('8443', 1, true), 'the second answer: ' .. second.text)
  -- One more dialog: the edit task's edit, under the parent's permissions.
  assert(#dialogs == 3, #dialogs .. ' dialogs, want 3: ' .. vim.inspect(dialogs))
  assert(dialogs[3].actions == PERMISSION, 'the third dialog is not a permission question: ' .. dialogs[3].actions)
  assert(dialogs[3].message:find('edit_file on hello.py', 1, true), 'the third dialog: ' .. dialogs[3].message)
  assert(#edits == 1, #edits .. ' workspace edits, want 1')
  local text = T.buffer_text(bufnr)
  assert(text == 'def hello():\n\treturn "hi"\n', 'the buffer after the turn:\n' .. text)
  vim.cmd('silent write')
  say('ok: the note saved with approval, the question answered; the next process found the fact, delegated, and edited with tabs')
end

T.run(main)
