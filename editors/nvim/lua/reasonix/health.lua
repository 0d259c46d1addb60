--- :checkhealth reasonix — the binary, its version, the configuration the
--- server will load, and the client of the current buffer.
local M = {}

-- 0.10+: vim.health.start/ok/...; 0.8–0.9: vim.health.report_*; 0.7: the
-- `health` module (which wraps health#report_*).
local h = vim.health or require('health')
local start = h.start or h.report_start
local ok = h.ok or h.report_ok
local info = h.info or h.report_info
local warn = h.warn or h.report_warn
local err = h.error or h.report_error

--- Reasonix's home directory, as the server computes it.
---@return string
local function reasonix_home()
  if vim.env.REASONIX_HOME and vim.env.REASONIX_HOME ~= '' then
    return (vim.fn.fnamemodify(vim.env.REASONIX_HOME, ':p'):gsub('/$', ''))
  end
  if vim.fn.has('win32') == 1 and vim.env.AppData then
    return vim.env.AppData .. '/reasonix'
  end
  return vim.fn.expand('~/.reasonix')
end

--- The values of `key = "..."` lines in a TOML file. A line scan, not a
--- TOML parser: enough to name the environment variables a config uses.
---@return string[]
local function toml_values(path, key)
  local out = {}
  if vim.fn.filereadable(path) ~= 1 then
    return out
  end
  for _, line in ipairs(vim.fn.readfile(path)) do
    local v = line:match('^%s*' .. key .. '%s*=%s*"([^"]*)"') or line:match('^%s*' .. key .. "%s*=%s*'([^']*)'")
    if v then
      table.insert(out, v)
    end
  end
  return out
end

--- The buffer :checkhealth was run from.
---@return integer|nil
local function user_buffer()
  local alt = vim.fn.bufnr('#')
  if alt > 0 and vim.bo[alt].buftype == '' and vim.api.nvim_buf_get_name(alt) ~= '' then
    return alt
  end
  local last = require('reasonix.state').last_file_buf
  if last and vim.api.nvim_buf_is_valid(last) then
    return last
  end
  return nil
end

local function check_neovim()
  start('Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') ~= 1 then
    err('Neovim ' .. version .. ' is too old: reasonix.nvim needs 0.7 or later')
    return
  end
  ok('Neovim ' .. version)
  local async = require('reasonix.async')
  if vim.fn.has('nvim-0.9') == 1 then
    ok('server requests run in coroutines: approval pickers are asynchronous')
  elseif async.requests_yieldable() then
    ok('server requests run in coroutines (request_coroutines): approval pickers are asynchronous')
  else
    info('approval pickers wait with vim.wait (request_coroutines is off or not yet applied): '
      .. 'an asynchronous vim.ui.select gets no keys until it returns')
  end
end

---@return boolean found
local function check_binary(cfg)
  start('reasonix binary')
  local exe = cfg.cmd[1]
  local path = vim.fn.exepath(exe)
  if path == '' then
    err(string.format("'%s' is not executable or not on PATH", exe), {
      'Install Reasonix and put it on PATH, or set cmd:',
      'require("reasonix").setup({ cmd = { "/path/to/reasonix", "lsp" } })',
    })
    return false
  end
  ok(string.format('%s (%s)', table.concat(cfg.cmd, ' '), path))
  local out = vim.fn.system({ path, 'version' })
  if vim.v.shell_error ~= 0 then
    err('`' .. exe .. ' version` failed: ' .. vim.trim(out))
    return false
  end
  ok('version: ' .. vim.trim(out))
  local help = vim.fn.system({ path, '--help' })
  if help:find('reasonix lsp', 1, true) then
    ok('it serves the Language Server Protocol (`reasonix lsp`)')
  else
    err('this reasonix has no `lsp` command: upgrade it')
    return false
  end
  return true
end

local function check_config(cfg, root)
  start('configuration')
  local files = {}
  local user_file = reasonix_home() .. '/config.toml'
  if vim.fn.filereadable(user_file) == 1 then
    ok('user config: ' .. user_file)
    table.insert(files, user_file)
  else
    info('no user config (' .. user_file .. '); `reasonix setup` writes a commented one')
  end
  if root then
    local project = root .. '/reasonix.toml'
    if vim.fn.filereadable(project) == 1 then
      ok('project config: ' .. project)
      table.insert(files, project)
    else
      info('no project config in ' .. root)
    end
  end
  if next(cfg.settings) then
    ok('settings from setup() are sent to the server: ' .. vim.inspect(cfg.settings, { newline = ' ', indent = '' }))
  end

  -- The keys a configuration can use: the built-in DeepSeek provider's,
  -- and every api_key_env the files and settings name.
  local default_model
  for _, f in ipairs(files) do
    default_model = toml_values(f, 'default_model')[1] or default_model
  end
  default_model = cfg.settings.default_model or default_model
  local envs = { DEEPSEEK_API_KEY = 'the built-in deepseek provider' }
  for _, f in ipairs(files) do
    for _, e in ipairs(toml_values(f, 'api_key_env')) do
      envs[e] = vim.fn.fnamemodify(f, ':~')
    end
  end
  for _, p in ipairs(cfg.settings.providers or {}) do
    if type(p) == 'table' and p.api_key_env then
      envs[p.api_key_env] = 'settings'
    end
  end
  info('default model: ' .. (default_model or 'deepseek (built in)'))
  for name, where in pairs(envs) do
    local set = vim.env[name] and vim.trim(vim.env[name]) ~= ''
    if set then
      ok(name .. ' is set (' .. where .. ')')
    elseif name == 'DEEPSEEK_API_KEY' and (default_model == nil or default_model:match('^deepseek')) then
      warn(name .. ' is not set: the default model needs it', { 'export DEEPSEEK_API_KEY=... before starting Neovim' })
    else
      info(name .. ' is not set (' .. where .. '); only providers that use it need it')
    end
  end
  info('the server reads the whole configuration when a turn starts and shows any error as a message')
end

local function check_client(bufnr)
  start('client')
  local lsp = require('reasonix.lsp')
  local state = require('reasonix.state')
  if not bufnr then
    info('no file buffer to check: open a file of a workspace and run :checkhealth reasonix again')
  else
    local client = lsp.clients(bufnr)[1]
    local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':~:.')
    if client then
      local exp = (client.server_capabilities or {}).experimental or {}
      local version = exp.reasonix and exp.reasonix.version or '?'
      ok(string.format('client %d (server %s) is attached to %s', client.id, version, name))
    elseif lsp.root_for(bufnr) then
      warn('no Reasonix client is attached to ' .. name, {
        'is autostart off? run :Reasonix chat, or check the binary above',
      })
    else
      local markers = table.concat(require('reasonix.config').get().root_markers, ', ')
      info(name .. ' is in no workspace (no root marker: ' .. markers .. ')')
    end
  end
  for _, c in ipairs(lsp.clients()) do
    local root = c.workspace_folders and c.workspace_folders[1] and vim.uri_to_fname(c.workspace_folders[1].uri) or '?'
    info(string.format('running: client %d for %s', c.id, root))
    if state.errors[c.id] then
      warn('its server last reported: ' .. state.errors[c.id])
    end
  end
end

function M.check()
  local cfg = require('reasonix.config').get()
  check_neovim()
  check_binary(cfg)
  local bufnr = user_buffer()
  local lsp = require('reasonix.lsp')
  local root = bufnr and lsp.root_for(bufnr) or lsp.find_root(vim.fn.getcwd() .. '/x', cfg.root_markers)
  check_config(cfg, root)
  check_client(bufnr)
end

return M
