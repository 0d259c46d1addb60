--- reasonix.nvim: the Reasonix coding agent in Neovim, through its language
--- server (`reasonix lsp`). This module is the public API; the work is in
--- modules required when first needed.
---
---   require('reasonix').setup({ chat = { position = 'bottom' } })
---   require('reasonix').ask('why does TestAdd fail?')
local config = require('reasonix.config')

local M = {}

local function commands()
  return require('reasonix.commands')
end

--- Keymaps set by the last setup, to remove on the next.
---@type {mode: string, lhs: string}[]
local mapped = {}

local rhs = {
  ask = ':Reasonix ask ',
  fix = '<Cmd>Reasonix fix<CR>',
  chat = '<Cmd>Reasonix chat<CR>',
  cancel = '<Cmd>Reasonix cancel<CR>',
  sessions = '<Cmd>Reasonix sessions<CR>',
  new = '<Cmd>Reasonix new<CR>',
  accept = '<Cmd>Reasonix accept<CR>',
  reject = '<Cmd>Reasonix reject<CR>',
  accept_file = '<Cmd>Reasonix accept file<CR>',
  reject_file = '<Cmd>Reasonix reject file<CR>',
  review = '<Cmd>Reasonix review<CR>',
}

local function apply_keymaps(keymaps)
  for _, m in ipairs(mapped) do
    pcall(vim.keymap.del, m.mode, m.lhs)
  end
  mapped = {}
  for action, lhs in pairs(keymaps) do
    for _, mode in ipairs(config.actions[action]) do
      vim.keymap.set(mode, lhs, rhs[action], { desc = 'Reasonix: ' .. action })
      table.insert(mapped, { mode = mode, lhs = lhs })
    end
  end
end

--- Attaches the client to the file buffers that are already loaded.
local function attach_loaded()
  local lsp = require('reasonix.lsp')
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and lsp.root_for(b) then
      lsp.attach(b)
    end
  end
end

local function apply(cfg)
  local group = vim.api.nvim_create_augroup('reasonix', { clear = true })
  vim.api.nvim_create_autocmd('BufEnter', {
    group = group,
    desc = 'Reasonix: remember the last file buffer',
    callback = function(a)
      if vim.bo[a.buf].buftype == '' and vim.api.nvim_buf_get_name(a.buf) ~= '' then
        require('reasonix.state').last_file_buf = a.buf
      end
    end,
  })
  if vim.fn.has('nvim-0.11') == 1 then
    require('reasonix.lsp').enable()
  elseif cfg.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'FileType', 'BufEnter' }, {
      group = group,
      desc = 'Reasonix: attach the language client to file buffers',
      callback = function(a)
        local lsp = require('reasonix.lsp')
        if lsp.clients(a.buf)[1] == nil and lsp.root_for(a.buf) then
          lsp.attach(a.buf)
        end
      end,
    })
    attach_loaded()
  end
  apply_keymaps(cfg.keymaps)
end

local initialized = false

--- Configures the plugin (see |reasonix-config|). Errors name the bad option.
---@param opts reasonix.Config|table|nil
function M.setup(opts)
  local old = vim.deepcopy(config.get().settings)
  local cfg = config.set(opts)
  initialized = true
  apply(cfg)
  if not vim.deep_equal(old, cfg.settings) and package.loaded['reasonix.lsp'] then
    require('reasonix.lsp').push_settings(cfg.settings)
  end
end

--- Called by plugin/reasonix.lua: configures from vim.g.reasonix unless
--- setup() already ran. A bad vim.g.reasonix is reported, and nothing starts.
--- It waits a tick, so that a plugin manager calling setup() right after
--- loading the plugin (lazy.nvim's `opts`) is not preceded by a start with
--- the defaults.
function M._load()
  vim.schedule(function()
    if initialized then
      return
    end
    local ok, err = pcall(config.set, vim.g.reasonix or {})
    if not ok then
      vim.notify(tostring(err) .. ' (in vim.g.reasonix)', vim.log.levels.ERROR)
      return
    end
    initialized = true
    apply(config.get())
  end)
end

--- The current configuration.
---@return reasonix.Config
function M.config()
  return config.get()
end

--- The Reasonix client attached to a buffer (default: current), if any.
---@param bufnr integer|nil
---@return table|nil
function M.client(bufnr)
  return require('reasonix.lsp').clients(bufnr or vim.api.nvim_get_current_buf())[1]
end

--- Asks in the chat's session. opts.range = {line1, line2} attaches those
--- lines of the current buffer.
---@param prompt string|nil nil asks with vim.ui.input
---@param opts {range: integer[]|nil}|nil
function M.ask(prompt, opts)
  commands().ask(prompt, opts)
end

--- Fixes the diagnostic under the cursor.
---@param extra string|nil more instructions
function M.fix(extra)
  commands().fix(extra)
end

--- Opens the chat.
function M.chat()
  commands().chat()
end

--- Cancels the chat session's running turn.
function M.cancel()
  commands().cancel()
end

--- Picks a saved session to resume.
function M.sessions()
  commands().sessions()
end

--- Resumes a saved session by id.
---@param id string
function M.resume(id)
  commands().resume(id)
end

--- Starts a new chat session.
function M.new_session()
  commands().new()
end

--- Shows the workspace's MCP servers.
function M.mcp()
  commands().mcp()
end

--- Lists what the agent remembers and opens the note picked.
function M.memory()
  commands().memory()
end

--- Reviews the trust in the workspace's own configuration (asks again
--- when some of it is off), or with 'revoke' forgets it.
---@param action 'review'|'revoke'|nil
function M.trust(action)
  commands().trust(action)
end

--- A statusline component for the chat's session: how full its context
--- window is ("42% of context") and, while a turn runs, the step of the
--- todo list in hand ("→ Running the tests"); '' before anything is known.
---
---   vim.o.statusline = "%f %=%{v:lua.require'reasonix'.statusline()}"
---@return string
function M.statusline()
  local state = require('reasonix.state')
  local sid = state.session
  if not sid then
    return ''
  end
  local parts = {}
  if state.running[sid] then
    for _, t in ipairs(state.todos[sid] or {}) do
      if t.status == 'in_progress' then
        table.insert(parts, '→ ' .. (t.activeForm or t.content):gsub('%s+', ' '))
        break
      end
    end
  end
  local c = state.context[sid]
  if c and c.window > 0 then
    table.insert(parts, string.format('%d%% of context', math.min(math.floor(100 * c.tokens / c.window), 100)))
  end
  return table.concat(parts, ' · ')
end

--- Puts the chat session's files and conversation back to before a turn;
--- without one, picks it with vim.ui.select.
---@param turn integer|nil
function M.rewind(turn)
  require('reasonix.rewinding').run(turn and tostring(turn) or nil)
end

return M
