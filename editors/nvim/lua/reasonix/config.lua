--- The plugin's options: defaults, validation, and the merged result.
---
--- Options come from `vim.g.reasonix` (read when the plugin loads) and from
--- `require('reasonix').setup(opts)`; setup wins. Every key is validated, and
--- an unknown key is an error naming the valid ones, so a typo never passes
--- silently.
local M = {}

---@alias reasonix.ChatPosition 'right'|'bottom'
---@alias reasonix.Reasoning 'hide'|'fold'|'show'

---@class reasonix.ChatConfig
---@field position reasonix.ChatPosition Where the chat split opens.
---@field width integer Columns of a chat split on the right.
---@field height integer Lines of a chat split at the bottom.
---@field reasoning reasonix.Reasoning What the chat does with the model's reasoning.
---@field auto_open boolean Open the chat when `:Reasonix ask` or `:Reasonix fix` runs.

---@class reasonix.Config
---@field cmd string[] The server command.
---@field root_markers string[] Files or directories that mark a workspace root.
---@field filetypes string[]|nil Filetypes to attach to; nil attaches to every file buffer.
---@field settings table Reasonix config keys (as in reasonix.toml) sent to the server.
---@field autostart boolean Start the server when a file in a workspace opens.
---@field chat reasonix.ChatConfig
---@field keymaps table<string, string> Action name → left-hand side; none by default.
---@field progress boolean Announce a turn's start and end with vim.notify.
---@field request_coroutines boolean On Neovim 0.7–0.8, run server requests in coroutines, as 0.9+ does.

---@type reasonix.Config
M.defaults = {
  cmd = { 'reasonix', 'lsp' },
  root_markers = { 'reasonix.toml', '.git', '.hg', 'go.mod', 'package.json', 'Cargo.toml', 'pyproject.toml' },
  filetypes = nil,
  settings = {},
  autostart = true,
  chat = { position = 'right', width = 70, height = 15, reasoning = 'hide', auto_open = true },
  keymaps = {},
  progress = true,
  request_coroutines = true,
}

--- The actions a keymap can name, with the modes they are mapped in.
M.actions = {
  ask = { 'n', 'x' },
  fix = { 'n' },
  chat = { 'n' },
  cancel = { 'n' },
  sessions = { 'n' },
  new = { 'n' },
  accept = { 'n' },
  reject = { 'n' },
  accept_file = { 'n' },
  reject_file = { 'n' },
  review = { 'n' },
}

local top_keys = vim.tbl_keys(M.defaults)
table.insert(top_keys, 'filetypes') -- nil by default, so tbl_keys misses it
table.sort(top_keys)

local function list_of_strings(v, allow_empty)
  if type(v) ~= 'table' or (not allow_empty and #v == 0) then
    return false
  end
  for k, s in pairs(v) do
    if type(k) ~= 'number' or type(s) ~= 'string' then
      return false
    end
  end
  return true
end

local function non_empty_strings(v)
  return list_of_strings(v, false)
end

local function strings(v)
  return list_of_strings(v, true)
end

--- The predicate f that also accepts nil (an option left unset).
local function maybe(f)
  return function(v)
    return v == nil or f(v)
  end
end

local function one_of(...)
  local allowed = { ... }
  return function(v)
    return vim.tbl_contains(allowed, v)
  end, table.concat(
    vim.tbl_map(function(s)
      return string.format('%q', s)
    end, allowed),
    ' or '
  )
end

local function positive_integer(v)
  return type(v) == 'number' and v >= 1 and math.floor(v) == v
end

--- Fails with a message naming the option and what it must be.
local function fail(msg)
  error('reasonix: ' .. msg, 0)
end

-- Neovim 0.11 validates one argument per call, vim.validate(name, value,
-- validator, optional_or_msg), and deprecates the table form; 0.7–0.10
-- have only the table form.
local per_argument = vim.fn.has('nvim-0.11') == 1

--- Checks one option with vim.validate, in the form this Neovim has, and
--- rewords its error without the source position.
---@param name string the option, as the user writes it
---@param value any
---@param validator string|fun(v: any): boolean a type name or a predicate
---@param optional_or_msg boolean|string|nil true: nil is fine; a string: what the value must be
local function check(name, value, validator, optional_or_msg)
  local ok, err
  if per_argument then
    ok, err = pcall(vim.validate, name, value, validator, optional_or_msg)
  else
    ok, err = pcall(vim.validate, { [name] = { value, validator, optional_or_msg } })
  end
  if not ok then
    fail((tostring(err):gsub('^[^\n]-:%d+: ', '')))
  end
end

local function unknown_keys(t, known, prefix)
  known = vim.deepcopy(known)
  table.sort(known)
  for k in pairs(t) do
    if not vim.tbl_contains(known, k) then
      fail(string.format("unknown option '%s%s' (valid: %s)", prefix, tostring(k), table.concat(known, ', ')))
    end
  end
end

--- Checks user options; errors with a clear message on the first problem.
---@param opts table
function M.validate(opts)
  if type(opts) ~= 'table' then
    fail('options must be a table, got ' .. type(opts))
  end
  unknown_keys(opts, top_keys, '')
  check('cmd', opts.cmd, maybe(non_empty_strings), 'a non-empty list of strings, such as {"reasonix", "lsp"}')
  check('root_markers', opts.root_markers, maybe(non_empty_strings), 'a non-empty list of file names')
  check('filetypes', opts.filetypes, maybe(strings), 'nil (every filetype) or a list of filetypes')
  check('settings', opts.settings, 'table', true)
  check('autostart', opts.autostart, 'boolean', true)
  check('chat', opts.chat, 'table', true)
  check('keymaps', opts.keymaps, 'table', true)
  check('progress', opts.progress, 'boolean', true)
  check('request_coroutines', opts.request_coroutines, 'boolean', true)
  if opts.chat then
    unknown_keys(opts.chat, vim.tbl_keys(M.defaults.chat), 'chat.')
    local position, position_msg = one_of('right', 'bottom')
    local reasoning, reasoning_msg = one_of('hide', 'fold', 'show')
    check('chat.position', opts.chat.position, maybe(position), position_msg)
    check('chat.width', opts.chat.width, maybe(positive_integer), 'a positive integer')
    check('chat.height', opts.chat.height, maybe(positive_integer), 'a positive integer')
    check('chat.reasoning', opts.chat.reasoning, maybe(reasoning), reasoning_msg)
    check('chat.auto_open', opts.chat.auto_open, 'boolean', true)
  end
  if opts.keymaps then
    local actions = vim.tbl_keys(M.actions)
    table.sort(actions)
    unknown_keys(opts.keymaps, actions, 'keymaps.')
    for name, lhs in pairs(opts.keymaps) do
      check('keymaps.' .. name, lhs, 'string')
    end
  end
end

---@type reasonix.Config
local current = vim.deepcopy(M.defaults)

--- Validates opts and makes them the configuration, over the defaults.
---@param opts table|nil
---@return reasonix.Config
function M.set(opts)
  opts = opts or {}
  M.validate(opts)
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  -- Lists replace, never merge index by index.
  for _, k in ipairs({ 'cmd', 'root_markers', 'filetypes' }) do
    if opts[k] ~= nil then
      merged[k] = vim.deepcopy(opts[k])
    end
  end
  if opts.settings ~= nil then
    merged.settings = vim.deepcopy(opts.settings)
  end
  current = merged
  return current
end

---@return reasonix.Config
function M.get()
  return current
end

return M
