-- What the Neovim client programs share (neovim*.lua), loaded with
-- dofile from this directory, where lsp/clients*_test.go run them:
-- messages on stderr, waiting, the environment, dialogs answered as a
-- user would, the server started and stopped, and a run that exits 0 only
-- if every check held; anything else (an error, a timeout) exits 1 with
-- the reason on stderr.
local T = {}

T.TIMEOUT_MS = 45000

--- The actions of a permission dialog, as the server offers them.
T.PERMISSION = 'Allow once|Allow for session|Always allow|Deny'

function T.say(fmt, ...)
  io.stderr:write(string.format('neovim: ' .. fmt, ...) .. '\n')
end

function T.getenv(name)
  local v = os.getenv(name)
  assert(v and v ~= '', name .. ' is not set')
  return v
end

function T.wait(what, cond)
  if not vim.wait(T.TIMEOUT_MS, cond, 20) then
    error('timed out waiting for ' .. what, 0)
  end
end

--- Answers every window/showMessageRequest with the title
--- answer(message, actions) returns, actions being the dialog's titles
--- joined by |, as a user would: Neovim 0.7's own handler waits on
--- inputlist(), which blocks headless.
---@return table dialogs the dialogs asked so far, oldest first: { message, actions }
function T.answer_dialogs(answer)
  local dialogs = {}
  vim.lsp.handlers['window/showMessageRequest'] = function(_, params)
    local titles = {}
    for _, a in ipairs(params.actions or {}) do
      table.insert(titles, a.title)
    end
    local dialog = { message = params.message, actions = table.concat(titles, '|') }
    table.insert(dialogs, dialog)
    local title = answer(dialog.message, dialog.actions)
    T.say('dialog: %s [%s] -> %s', dialog.message, dialog.actions, title)
    return { title = title }
  end
  return dialogs
end

-- The servers' exit codes, by client id.
local exit_codes = {}

--- Starts a client with config and waits for it to be initialized.
---@return table client
function T.start(config)
  local on_exit = config.on_exit
  config.on_exit = function(code, signal, client_id)
    exit_codes[client_id] = code
    if on_exit then
      on_exit(code, signal, client_id)
    end
  end
  local client_id = vim.lsp.start_client(config)
  assert(client_id, 'the client did not start')
  local client = vim.lsp.get_client_by_id(client_id)
  T.wait('initialize', function()
    return client.initialized
  end)
  return client
end

--- Stops a client T.start started, as an editor does (shutdown, exit),
--- and fails unless its server exits 0.
function T.stop(client)
  client.stop()
  T.wait('the server to exit', function()
    return exit_codes[client.id] ~= nil
  end)
  assert(exit_codes[client.id] == 0, 'the server exited with ' .. tostring(exit_codes[client.id]))
end

--- Runs the command name with the argument arg, and returns its result.
function T.command(client, name, arg)
  local res = client.request_sync('workspace/executeCommand', { command = name, arguments = { arg } }, T.TIMEOUT_MS)
  assert(res and not res.err and res.result, name .. ' failed: ' .. vim.inspect(res))
  return res.result
end

--- Asks for the code actions on a line (0-based) of a document, with
--- the diagnostics Neovim has there.
function T.actions_at(client, bufnr, line, character)
  local uri = vim.uri_from_bufnr(bufnr)
  local res = client.request_sync('textDocument/codeAction', {
    textDocument = { uri = uri },
    range = { start = { line = line, character = character }, ['end'] = { line = line, character = character } },
    context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr, line) },
  }, 10000, bufnr)
  assert(res and not res.err, 'codeAction: ' .. vim.inspect(res))
  return res.result or {}
end

--- Returns the action titled title, if any.
function T.find_action(actions, title)
  for _, a in ipairs(actions) do
    if a.title == title then
      return a
    end
  end
end

--- Executes an action's command and returns its result.
function T.run_action(client, bufnr, action)
  local res = client.request_sync('workspace/executeCommand', action.command, 10000, bufnr)
  assert(res and not res.err, action.title .. ': ' .. vim.inspect(res))
  return res.result
end

--- A buffer's text as it would be written, with its final newline.
function T.buffer_text(bufnr)
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
  if vim.bo[bufnr].eol then
    text = text .. '\n'
  end
  return text
end

--- Runs main, then quits Neovim: 0 if it returned, else 1.
function T.run(main)
  local ok, err = xpcall(main, debug.traceback)
  if ok then
    vim.cmd('qall!')
  else
    T.say('FAIL: %s', tostring(err))
    vim.cmd('cquit 1')
  end
end

return T
