-- Test helpers: a temporary Go module whose reasonix.toml points the
-- default model at a scripted model server (bin/scripted-model), trusted
-- with `reasonix trust --yes` as the user who wrote it would, the real
-- `reasonix lsp`, waits, and a stub for vim.ui.select.
--
-- Binaries: $REASONIX_BIN and $SCRIPTED_MODEL_BIN, else the repository's
-- bin/ (built by `make build`).
local H = {}

local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
H.plugin_dir = vim.fn.fnamemodify(here, ':p:h:h')
H.repo = vim.fn.fnamemodify(H.plugin_dir, ':h:h')

local function bin(env, name)
  local v = os.getenv(env)
  if v and v ~= '' then
    return vim.fn.fnamemodify(v, ':p')
  end
  return H.repo .. '/bin/' .. name
end

H.reasonix = bin('REASONIX_BIN', 'reasonix')
H.scripted_model = bin('SCRIPTED_MODEL_BIN', 'scripted-model')

--- libuv: vim.uv from 0.10 on, where vim.loop is its deprecated name.
H.uv = vim.uv or vim.loop

H.ACTIONS = { 'Allow once', 'Allow for session', 'Always allow', 'Deny' }

H.calc_go = [[
package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Sub returns a minus b.
func Sub(a, b int) int {
	return a - b
}
]]

H.calc_fixed = H.calc_go:gsub('return a %- b\n}\n\n// Sub', 'return a + b\n}\n\n// Sub', 1)

H.calc_test_go = [[
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestSub(t *testing.T) {
	if got := Sub(5, 3); got != 2 {
		t.Errorf("Sub(5, 3) = %d, want 2", got)
	}
}
]]

-- What cleanup undoes.
local jobs = {}
local stderr = {}
local original_select = vim.ui.select
local original_input = vim.ui.input

--- The Reasonix home ($REASONIX_HOME) of the case's workspaces, set by
--- the first H.workspace of a case; cleanup forgets it.
---@type string|nil
H.home = nil

--- Every vim.notify of the test, as {msg, level}.
H.notifications = {}
vim.notify = function(msg, level)
  table.insert(H.notifications, { msg = msg, level = level or vim.log.levels.INFO })
  if os.getenv('REASONIX_TEST_VERBOSE') then
    io.stderr:write('notify: ' .. tostring(msg) .. '\n')
  end
end

--- The first notification whose message contains s, or nil.
---@param s string
---@return {msg: string, level: integer}|nil
function H.notified(s)
  for _, n in ipairs(H.notifications) do
    if n.msg:find(s, 1, true) then
      return n
    end
  end
  return nil
end

--- Fails with what was awaited unless cond holds within ms (default 45 s:
--- a turn that edits a Go file waits for gopls to check the edit, which
--- takes seconds on a loaded machine).
function H.wait(what, cond, ms)
  if not vim.wait(ms or 45000, cond, 10) then
    error('timed out waiting for ' .. what, 2)
  end
end

function H.eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(string.format('%s:\n  want %s\n  got  %s', what or 'values differ', vim.inspect(want), vim.inspect(got)), 2)
  end
end

function H.truthy(v, what)
  if not v then
    error(what or 'expected a true value', 2)
  end
  return v
end

function H.write(path, text)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

function H.read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

function H.tmpdir()
  local d = vim.fn.tempname()
  vim.fn.mkdir(d, 'p')
  return H.uv.fs_realpath(d)
end

--- Stops job (a process the test started) at cleanup.
function H.track_job(job)
  table.insert(jobs, job)
end

--- Starts the scripted model server with script; returns its base URL.
---@param script string the script (agent/provider/scripted/doc.go)
---@return string
function H.model(script)
  local dir = H.tmpdir()
  local path, url_file = dir .. '/script.txt', dir .. '/url'
  H.write(path, script)
  local job = vim.fn.jobstart({ H.scripted_model, '-script', path, '-url-file', url_file, '-v' }, {
    on_stderr = function(_, data)
      for _, l in ipairs(data) do
        if l ~= '' then
          table.insert(stderr, 'model: ' .. l)
        end
      end
    end,
  })
  assert(job > 0, 'cannot run ' .. H.scripted_model)
  table.insert(jobs, job)
  H.wait('the scripted model server', function()
    return (vim.fn.getfsize(url_file) or 0) > 0
  end, 10000)
  return H.read(url_file)
end

--- Records the user's trust in the configuration of the workspace root,
--- in $REASONIX_HOME, as `reasonix trust --yes ROOT` in a terminal does.
---@param root string
function H.trust(root)
  local out = vim.fn.system({ H.reasonix, 'trust', '--yes', root })
  H.eq(0, vim.v.shell_error, 'reasonix trust --yes ' .. root .. ':\n' .. out)
end

--- A Go module with a failing test, whose reasonix.toml points the default
--- model at a scripted server playing script. REASONIX_HOME is a fresh
--- directory for each case (its workspaces share it), where the user
--- trusts that reasonix.toml unless opts.trust is false. With
--- opts.provider = 'user' the scripted provider is in the user's
--- $REASONIX_HOME/config.toml instead, which needs no trust. Returns the
--- module's root.
---@param script string
--- The agent's edits are applied at once unless opts.review says
--- "propose".
---@param opts {toml: string|nil, files: table<string,string>|nil, review: string|nil, trust: boolean|nil, provider: 'user'|nil}|nil
---@return string
function H.workspace(script, opts)
  opts = opts or {}
  local url = H.model(script)
  local root = H.tmpdir()
  -- One user: a case's workspaces share the Reasonix home.
  H.home = H.home or H.tmpdir()
  local home = H.home
  local provider = string.format(
    'default_model = "scripted"\n\n[[providers]]\nname = "scripted"\nbase_url = %q\nmodel = "deepseek-flash"\noptions = { retry_base_ms = 10 }\n',
    url
  )
  local project = string.format('review = %q\n', opts.review or 'apply')
  if opts.provider == 'user' then
    H.write(home .. '/config.toml', provider)
  else
    project = project .. provider
  end
  local files = {
    ['go.mod'] = 'module example.com/calc\n\ngo 1.21\n',
    ['calc.go'] = H.calc_go,
    ['calc_test.go'] = H.calc_test_go,
    ['reasonix.toml'] = project .. (opts.toml or ''),
  }
  for name, text in pairs(opts.files or {}) do
    files[name] = text
  end
  for name, text in pairs(files) do
    H.write(root .. '/' .. name, text)
  end
  vim.env.REASONIX_HOME = home
  vim.env.DEEPSEEK_API_KEY = ''
  if opts.trust ~= false then
    H.trust(root)
  end
  return root
end

--- setup() with the repository's binary.
function H.setup(opts)
  require('reasonix').setup(vim.tbl_deep_extend('force', { cmd = { H.reasonix, 'lsp' } }, opts or {}))
end

--- Opens a file of the workspace and waits for the client to be ready.
---@return integer bufnr
---@return table client
function H.open(root, name)
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. name))
  local bufnr = vim.api.nvim_get_current_buf()
  local client
  H.wait('the Reasonix client to attach to ' .. name, function()
    client = require('reasonix').client(bufnr)
    return client ~= nil and client.initialized
  end)
  return bufnr, client
end

--- Replaces vim.ui.select. answer(items, opts) returns the item to choose
--- (nil dismisses); a string answer chooses that item. With opts.delay_ms
--- the choice comes later, from a timer, as an asynchronous picker would.
--- Returns the list of calls, each {items, opts, answered}.
function H.stub_select(answer, opts)
  opts = opts or {}
  local calls = {}
  vim.ui.select = function(items, select_opts, on_choice)
    local call = { items = items, opts = select_opts, answered = false }
    table.insert(calls, call)
    local function answer_with(choice)
      call.answered = true
      on_choice(choice)
    end
    local choice
    if type(answer) == 'function' then
      choice = answer(items, select_opts)
    else
      choice = answer
    end
    if opts.delay_ms then
      vim.defer_fn(function()
        answer_with(choice)
      end, opts.delay_ms)
    else
      answer_with(choice)
    end
  end
  return calls
end

function H.stub_input(answer)
  vim.ui.input = function(_, on_confirm)
    on_confirm(answer)
  end
end

function H.chat_text()
  return table.concat(require('reasonix.chat').lines(), '\n')
end

function H.buffer_text(bufnr)
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
  if vim.bo[bufnr].eol then
    text = text .. '\n'
  end
  return text
end

--- Waits until the chat's session has no running turn and its last turn
--- closed with a cost line.
function H.wait_turn_done(ms)
  H.wait('the end of the turn', function()
    local state = require('reasonix.state')
    return state.session ~= nil and not state.running[state.session] and H.chat_text():find('\n— ', 1, true) ~= nil
  end, ms)
end

--- Prints what helps to understand a failure.
function H.dump()
  local lines = { '--- chat:' }
  if package.loaded['reasonix.chat'] then
    vim.list_extend(lines, require('reasonix.chat').lines())
  end
  table.insert(lines, '--- notifications:')
  for _, n in ipairs(H.notifications) do
    table.insert(lines, string.format('[%s] %s', n.level, n.msg))
  end
  table.insert(lines, '--- messages:')
  table.insert(lines, vim.fn.execute('messages'))
  table.insert(lines, '--- model server (last 30 lines):')
  for i = math.max(1, #stderr - 29), #stderr do
    table.insert(lines, stderr[i])
  end
  io.stdout:write(table.concat(lines, '\n'):gsub('\n', '\n        ') .. '\n')
end

--- Stops every client and model server, restores stubs, wipes buffers and
--- the plugin's state.
function H.cleanup()
  -- get_active_clients is deprecated from 0.10 on, the `.` call of a
  -- client's method from 0.11.
  local clients = vim.lsp.get_clients or vim.lsp.get_active_clients
  local function stop(c, force)
    if vim.fn.has('nvim-0.11') == 1 then
      c:stop(force)
    else
      c.stop(force)
    end
  end
  for _, c in ipairs(clients()) do
    stop(c)
  end
  vim.wait(5000, function()
    return #clients() == 0
  end, 10)
  for _, c in ipairs(clients()) do
    stop(c, true)
  end
  for _, job in ipairs(jobs) do
    vim.fn.jobstop(job)
  end
  vim.fn.jobwait(jobs, 2000)
  jobs, stderr = {}, {}
  H.home = nil
  vim.ui.select, vim.ui.input = original_select, original_input
  H.notifications = {}
  vim.cmd('silent! %bwipeout!')
  local state = require('reasonix.state')
  state.client_id, state.session, state.running, state.errors, state.last_file_buf = nil, nil, {}, {}, nil
end

return H
