--- The Reasonix language client: one per workspace root, attached to every
--- file buffer under it (the agent works on any file).
---
--- Neovim 0.11+ gets the config through vim.lsp.config('reasonix', ...) and
--- vim.lsp.enable, on top of the plain data in lsp/reasonix.lua; 0.8–0.10
--- start it with vim.lsp.start; 0.7 with vim.lsp.start_client and
--- vim.lsp.buf_attach_client, keyed by root here.
local config = require('reasonix.config')
local state = require('reasonix.state')

-- vim.uv from 0.10 on, where vim.loop is its deprecated name.
local uv = vim.uv or vim.loop

local M = {}

M.name = 'reasonix'

local has = function(v)
  return vim.fn.has('nvim-' .. v) == 1
end

--- Root → client id, for Neovim 0.7 (vim.lsp.start keeps its own).
---@type table<string, integer>
local by_root = {}

-- Client methods are called with `:` from 0.11 on (the `.` form is
-- deprecated there) and with `.` before.
local colon = has('0.11')

---@param client table
function M.request(client, method, params, handler, bufnr)
  if colon then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

---@param client table
function M.request_sync(client, method, params, timeout, bufnr)
  if colon then
    return client:request_sync(method, params, timeout, bufnr)
  end
  return client.request_sync(method, params, timeout, bufnr)
end

---@param client table
---@return boolean
function M.is_stopped(client)
  if colon then
    return client:is_stopped()
  end
  return client.is_stopped()
end

---@param client table
function M.notify(client, method, params)
  if colon then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

--- The Reasonix clients, optionally only the one attached to bufnr.
---@param bufnr integer|nil
---@return table[]
function M.clients(bufnr)
  local out = {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
  end
  local all = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
  for _, c in pairs(all) do
    if c.name == M.name then
      table.insert(out, c)
    end
  end
  return out
end

--- The capabilities the plugin declares: Neovim's, plus the Reasonix
--- extensions it implements (docs/PROTOCOL.md).
---@return table
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  caps.experimental.reasonix = require('reasonix.protocol').client_features()
  -- Neovim 0.7 cannot open a document for a server; the plugin does
  -- (the diff of a proposal, reasonix.review.diff).
  caps.window = caps.window or {}
  caps.window.showDocument = { support = true }
  return caps
end

--- The settings as initializationOptions (nil when there are none).
---@param settings table
---@return table|nil
local function init_options(settings)
  if next(settings) == nil then
    return nil
  end
  return vim.deepcopy(settings)
end

--- Finds the nearest directory at or above path that holds a marker.
---@param path string an absolute file path
---@param markers string[]
---@return string|nil
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while dir and dir ~= '' do
    for _, marker in ipairs(markers) do
      if uv.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

--- The workspace root of a file buffer the client should attach to.
---@param bufnr integer
---@return string|nil
function M.root_for(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil -- unnamed, or not a file (fugitive://, reasonix://, ...)
  end
  local cfg = config.get()
  if cfg.filetypes and not vim.tbl_contains(cfg.filetypes, vim.bo[bufnr].filetype) then
    return nil
  end
  return M.find_root(name, cfg.root_markers)
end

--- The full client config for a root.
---@param root string|nil nil on 0.11, where root_dir is a function
---@return table
function M.client_config(root)
  local cfg = config.get()
  return {
    name = M.name,
    cmd = cfg.cmd,
    root_dir = root,
    capabilities = M.capabilities(),
    handlers = require('reasonix.handlers').table(),
    settings = vim.deepcopy(cfg.settings),
    init_options = init_options(cfg.settings),
    on_exit = function(_, _, client_id)
      for r, id in pairs(by_root) do
        if id == client_id then
          by_root[r] = nil
        end
      end
      if state.client_id == client_id then
        state.client_id, state.session, state.running = nil, nil, {}
      end
    end,
  }
end

--- Attaches the Reasonix client of bufnr's workspace to it, starting the
--- client if needed (Neovim < 0.11; 0.11 uses vim.lsp.enable).
---@param bufnr integer
---@return integer|nil client_id
function M.attach(bufnr)
  local root = M.root_for(bufnr)
  if not root then
    return nil
  end
  if vim.fn.executable(config.get().cmd[1]) ~= 1 then
    M.warn_missing()
    return nil
  end
  if has('0.8') then
    local id
    vim.api.nvim_buf_call(bufnr, function()
      id = vim.lsp.start(M.client_config(root), { bufnr = bufnr })
    end)
    return id
  end
  local id = by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or M.is_stopped(client) then
    id = vim.lsp.start_client(M.client_config(root))
    if not id then
      return nil
    end
    by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

local warned = false

--- Says once that the server command is missing.
function M.warn_missing()
  if warned then
    return
  end
  warned = true
  local msg = "reasonix: '%s' is not executable; set cmd in setup() or vim.g.reasonix (:checkhealth reasonix)"
  vim.notify(string.format(msg, config.get().cmd[1]), vim.log.levels.WARN)
end

--- Registers the config with vim.lsp.config and enables it (0.11+).
function M.enable()
  local cfg = M.client_config(nil)
  cfg.root_dir = function(bufnr, on_dir)
    local root = M.root_for(bufnr)
    if root then
      on_dir(root)
    end
  end
  cfg.filetypes = config.get().filetypes
  vim.lsp.config(M.name, cfg)
  if config.get().autostart then
    vim.lsp.enable(M.name)
  end
end

--- Sends changed settings to every running client.
---@param settings table
function M.push_settings(settings)
  for _, client in ipairs(M.clients()) do
    client.config.settings = vim.deepcopy(settings)
    if client.settings then
      client.settings = vim.deepcopy(settings) -- what 0.11 answers workspace/configuration with
    end
    M.notify(client, 'workspace/didChangeConfiguration', { settings = vim.deepcopy(settings) })
  end
end

--- The client a command should use: the one attached to the buffer, the
--- chat's, or the one of the last file buffer; starting it for the
--- current buffer if that is a file of a workspace.
---@param bufnr integer
---@return table|nil client
---@return string|nil err
function M.client_for(bufnr)
  local attached = M.clients(bufnr)[1]
  if attached then
    return attached
  end
  local chat = state.client_id and vim.lsp.get_client_by_id(state.client_id)
  if chat then
    return chat
  end
  local last = state.last_file_buf
  if last and vim.api.nvim_buf_is_valid(last) then
    local c = M.clients(last)[1]
    if c then
      return c
    end
  end
  local id = M.attach(bufnr)
  if id then
    return vim.lsp.get_client_by_id(id)
  end
  return nil,
    string.format(
      'no Reasonix server for this buffer: open a file in a workspace (one of %s marks its root)',
      table.concat(config.get().root_markers, ', ')
    )
end

--- Calls fn(client) once the client is initialized.
---@param client table
---@param fn fun(client: table)
function M.when_ready(client, fn)
  local deadline = uv.now() + 15000
  local function poll()
    if client.initialized then
      fn(client)
    elseif M.is_stopped(client) or uv.now() > deadline then
      vim.notify('reasonix: the server did not start (:checkhealth reasonix)', vim.log.levels.ERROR)
    else
      vim.defer_fn(poll, 20)
    end
  end
  poll()
end

return M
