-- What the Neovim client programs share (neovim.lua, neovim-memory.lua),
-- loaded with dofile from this directory, where lsp/clients_test.go runs
-- them: messages on stderr, waiting, the environment, and a run that
-- exits 0 only if every check held; anything else (an error, a timeout)
-- exits 1 with the reason on stderr.
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

--- Starts a client with config and waits for it to be initialized.
---@return table client
function T.start(config)
  local client_id = vim.lsp.start_client(config)
  assert(client_id, 'the client did not start')
  local client = vim.lsp.get_client_by_id(client_id)
  T.wait('initialize', function()
    return client.initialized
  end)
  return client
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
