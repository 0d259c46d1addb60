-- Neovim 0.7's built-in LSP client, plain LSP, remembers a preference in
-- one Reasonix process and finds it in the next, headless.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile neovim-memory.lua'
--
-- lsp/clients_memory_test.go runs it with REASONIX_LSP (the server
-- command), REASONIX_TEST_ROOT (the workspace folder) and REASONIX_HOME
-- (shared by both servers: the user's memory lives there). Every
-- window/showMessageRequest is answered here, as a user would: a
-- permission dialog "Allow once", the agent's question with one of its
-- options. Exits 0 only if every check held.

local T = dofile('reasonix_test.lua')
local say, wait, PERMISSION = T.say, T.wait, T.PERMISSION

local root = T.getenv('REASONIX_TEST_ROOT')
local server = T.getenv('REASONIX_LSP')

local dialogs = {}

vim.lsp.handlers['window/showMessageRequest'] = function(_, params)
  local titles = {}
  for _, a in ipairs(params.actions or {}) do
    table.insert(titles, a.title)
  end
  local actions = table.concat(titles, '|')
  table.insert(dialogs, { message = params.message, actions = actions })
  say('dialog: %s [%s]', params.message, actions)
  if actions == PERMISSION then
    return { title = 'Allow once' }
  end
  return { title = 'Not in YAML' }
end

--- Starts a Reasonix server (a new process) on the workspace, runs one
--- turn with reasonix.ask, stops the server, and returns the turn's result.
local function session(prompt)
  local exit_code
  local client = T.start({
    name = 'reasonix',
    cmd = { server },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = 'ws' } },
    on_exit = function(code)
      exit_code = code
    end,
  })
  local res = client.request_sync('workspace/executeCommand', {
    command = 'reasonix.ask',
    arguments = { { prompt = prompt } },
  }, T.TIMEOUT_MS)
  assert(res and not res.err and res.result, 'reasonix.ask failed: ' .. vim.inspect(res))
  say('turn: %s', res.result.text)
  client.stop()
  wait('the server to exit', function()
    return exit_code ~= nil
  end)
  assert(exit_code == 0, 'the server exited with ' .. tostring(exit_code))
  return res.result
end

local function main()
  local first = session('Remember: I indent with tabs.')
  assert(first.stop == 'done', 'the first turn: ' .. vim.inspect(first))
  assert(#dialogs == 2, #dialogs .. ' dialogs, want 2: ' .. vim.inspect(dialogs))
  local approval, question = dialogs[1], dialogs[2]
  assert(approval.actions == PERMISSION, 'the first dialog is not a permission question: ' .. approval.actions)
  for _, want in ipairs({ 'Save the note user/indent', 'Indent with tabs, never spaces.', 'asked each time' }) do
    assert(approval.message:find(want, 1, true), 'the permission dialog lacks ' .. want .. ':\n' .. approval.message)
  end
  assert(question.actions == 'Yes, everywhere|Not in YAML', 'the question offers ' .. question.actions)
  assert(question.message == 'Reasonix asks: Tabs in YAML files too?', 'the question reads ' .. question.message)

  local second = session('How should I indent hello.py?')
  assert(second.stop == 'done', 'the second turn: ' .. vim.inspect(second))
  assert(second.text:find('tabs', 1, true), 'the second answer: ' .. second.text)
  assert(#dialogs == 2, 'the second session asked: ' .. vim.inspect(dialogs[3]))
  say('ok: the note was saved with approval, the question answered, the note used by the next process')
end

T.run(main)
