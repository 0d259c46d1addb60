-- Records what the plugin (and the specs) call that the running Neovim
-- deprecates, so that the runner can fail the case that did:
--
--   * every call of vim.deprecate, which Neovim's deprecated functions make
--     (0.10: vim.lsp.get_active_clients, vim.health.report_*, ...; 0.11:
--     the `.` form of a client's methods, vim.lsp.start_client, the table
--     form of vim.validate), also those whose warning waits for a later
--     release and so shows nothing yet;
--   * from 0.10 on, any use of vim.loop, the deprecated name of vim.uv,
--     which warns nowhere.
--
-- Only a call with a file of the plugin's directory on the stack counts:
-- what Neovim's runtime does on its own is not the plugin's to fix.
local M = {}

local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/') or '.'
local plugin_dir = vim.fn.fnamemodify(here, ':p:h:h')

--- What was called, in the order first seen, and how often.
---@type string[]
local used = {}
---@type table<string, integer>
local count = {}

local function record(what)
  if not count[what] then
    table.insert(used, what)
  end
  count[what] = (count[what] or 0) + 1
end

--- The first frame at or above level (of the caller) in a file of the
--- plugin's directory, as "path:line", or nil.
local function plugin_frame(level)
  level = level + 1
  while true do
    local info = debug.getinfo(level, 'Sl')
    if not info then
      return nil
    end
    if info.source:sub(1, 1) == '@' and info.source:find(plugin_dir, 2, true) == 2 then
      return info.source:sub(2) .. ':' .. info.currentline
    end
    level = level + 1
  end
end

--- Starts recording. Call it once, before the plugin loads.
function M.watch()
  local deprecate = vim.deprecate
  vim.deprecate = function(name, alternative, ...)
    local at = plugin_frame(2)
    if at then
      record(string.format('%s (instead: %s) at %s', name, tostring(alternative), at))
    end
    return deprecate(name, alternative, ...)
  end
  if vim.uv then
    local uv = vim.uv
    vim.loop = setmetatable({}, {
      __index = function(_, key)
        local at = plugin_frame(2)
        if at then
          record(string.format('vim.loop.%s (instead: vim.uv) at %s', key, at))
        end
        return uv[key]
      end,
      __newindex = uv,
    })
  end
end

--- Returns what was recorded since the last call, each once with how
--- often, and forgets it.
---@return string[]
function M.take()
  local out = {}
  for _, what in ipairs(used) do
    table.insert(out, count[what] > 1 and string.format('%s (%d times)', what, count[what]) or what)
  end
  used, count = {}, {}
  return out
end

return M
