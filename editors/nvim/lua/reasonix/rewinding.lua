--- :Reasonix rewind: puts the files a session's turns changed (by edits
--- and by shell commands) and its conversation back to before a turn.
---
--- The server does the work (the command reasonix.rewind): open buffers
--- change through one workspace/applyEdit, so `u` undoes the rewind, and
--- closed files change on disk. A file changed since by someone else is
--- left as it is and reported as a conflict, its earlier text saved aside.
--- This module picks the turn (reasonix.checkpoints and vim.ui.select),
--- tells the outcome once with vim.notify, and cuts the chat back.
local commands = require('reasonix.commands')
local lsp = require('reasonix.lsp')
local protocol = require('reasonix.protocol')
local state = require('reasonix.state')

local M = {}

--- The start of the summary the server shows (window/showMessage) after a
--- rewind. The plugin tells the outcome of a rewind it asked for itself,
--- so the server's summary of that one is not shown
--- (handlers.show_message asks M.told_by_plugin).
M.summary_prefix = 'Rewound to before turn '

--- The server's summaries still to come of rewinds the plugin told
--- itself, by client: the summary's start ("Rewound to before turn 3").
--- It may come before or after the command's answer.
---@type table<integer, table<string, boolean>>
local expected = {}

---@param n integer
---@param one string
---@param many string|nil one .. 's' when nil
---@return string
local function count(n, one, many)
  return string.format('%d %s', n, n == 1 and one or (many or one .. 's'))
end

--- What a rewind did, in a few lines: how many files each action
--- touched, then a line per conflict or file left as it was, with where
--- its earlier text was saved.
---@param plan table a RewindPlan
---@return string
function M.summary(plan)
  local by = {}
  local notes = {}
  for _, f in ipairs(plan.files or {}) do
    by[f.action] = (by[f.action] or 0) + 1
    local rel = vim.fn.fnamemodify(f.path or '', ':~:.')
    if f.action == 'conflict' then
      local line = '  ' .. rel .. ': conflict, left as it is'
      if f.note and f.note ~= '' then
        line = line .. ' (' .. f.note .. ')'
      end
      if f.saved and f.saved ~= '' then
        line = line .. '; its earlier text is in ' .. f.saved
      end
      table.insert(notes, line)
    elseif f.action == 'unknown' then
      local why = (f.note and f.note ~= '') and f.note or 'its earlier text was not kept'
      table.insert(notes, '  ' .. rel .. ': left as it is (' .. why .. ')')
    end
  end
  local parts = {}
  for _, a in ipairs({
    { 'restore', 'file restored', 'files restored' },
    { 'remove', 'file removed', 'files removed' },
    { 'recreate', 'file recreated', 'files recreated' },
    { 'merge', 'file merged', 'files merged' },
    { 'conflict', 'conflict' },
    { 'unknown', 'file not kept', 'files not kept' },
  }) do
    if by[a[1]] then
      table.insert(parts, count(by[a[1]], a[2], a[3]))
    end
  end
  if #parts == 0 then
    parts = { 'no file to change' }
  end
  local turns = plan.turns or { plan.turn }
  local head = string.format('%s%d (%s cut): %s', M.summary_prefix, plan.turn, count(#turns, 'turn'), table.concat(parts, ', '))
  if #notes == 0 then
    return head
  end
  return head .. '\n' .. table.concat(notes, '\n')
end

--- Whether a window/showMessage of the client is the server's summary of
--- a rewind the plugin is telling itself.
---@param client_id integer
---@param message string
---@return boolean
function M.told_by_plugin(client_id, message)
  -- The server's messages start with its name.
  message = (message or ''):gsub('^Reasonix: ', '')
  for start in pairs(expected[client_id] or {}) do
    if vim.startswith(message, start) and not (message:sub(#start + 1, #start + 1)):match('%d') then
      expected[client_id][start] = nil
      return true
    end
  end
  return false
end

--- The chat's client and session, or nil after saying why there is none.
---@return table|nil client
---@return string|nil session
local function chat_session()
  local client = state.client_id and vim.lsp.get_client_by_id(state.client_id)
  if not client or lsp.is_stopped(client) or not state.session then
    commands.notify('no session to rewind: ask something first, or resume a session', vim.log.levels.WARN)
    return nil, nil
  end
  return client, state.session
end

--- Rewinds the chat's session to before turn.
---@param client table
---@param session string
---@param turn integer
local function rewind(client, session, turn)
  local params = { command = protocol.commands.rewind, arguments = { { sessionId = session, turn = turn } } }
  -- Only this rewind's summary is awaited: one of an earlier rewind that
  -- never came is not.
  expected[client.id] = { [M.summary_prefix .. turn] = true }
  lsp.request(client, 'workspace/executeCommand', params, function(err, plan)
    if err or type(plan) ~= 'table' then
      expected[client.id] = nil
      commands.notify('cannot rewind to before turn ' .. turn .. ': ' .. commands.error_text(err), vim.log.levels.ERROR)
      return
    end
    local text = M.summary(plan)
    local conflicts = vim.tbl_filter(function(f)
      return f.action == 'conflict' or f.action == 'unknown'
    end, plan.files or {})
    commands.notify(text, #conflicts > 0 and vim.log.levels.WARN or vim.log.levels.INFO)
    if plan.sessionId == state.session then
      require('reasonix.chat').rewound(plan, text)
    end
  end)
end

--- How a checkpoint shows in the picker: "2  add a test  (3 files)".
---@param c table a Checkpoint
---@return string
function M.format_checkpoint(c)
  local prompt = vim.split(c.prompt or '', '\n', { plain = true })[1]
  return string.format('%d  %s  (%s)', c.turn, prompt, count(#(c.files or {}), 'file'))
end

--- Picks a turn of the chat's session with vim.ui.select, newest first,
--- and rewinds to before it.
---@param client table
---@param session string
local function pick(client, session)
  local params = { command = protocol.commands.checkpoints, arguments = { { sessionId = session } } }
  lsp.request(client, 'workspace/executeCommand', params, function(err, result)
    if err or type(result) ~= 'table' then
      commands.notify('cannot list the turns: ' .. commands.error_text(err), vim.log.levels.ERROR)
      return
    end
    local turns = {}
    for i = #(result.turns or {}), 1, -1 do
      table.insert(turns, result.turns[i])
    end
    if #turns == 0 then
      commands.notify('this session has no turn to rewind')
      return
    end
    vim.ui.select(turns, {
      prompt = 'Rewind to before which turn?',
      kind = 'reasonix.turn',
      format_item = M.format_checkpoint,
    }, function(c)
      if c then
        rewind(client, session, c.turn)
      end
    end)
  end)
end

--- :Reasonix rewind [N]: to before turn N, or a turn picked.
---@param arg string|nil
function M.run(arg)
  arg = vim.trim(arg or '')
  local turn
  if arg ~= '' then
    turn = tonumber(arg)
    if not turn or turn < 1 or turn % 1 ~= 0 then
      commands.notify("rewind takes a turn number, not '" .. arg .. "'", vim.log.levels.ERROR)
      return
    end
  end
  local client, session = chat_session()
  if not client then
    return
  end
  if turn then
    rewind(client, session, turn)
  else
    pick(client, session)
  end
end

--- The turn numbers of the chat's session, for completion; none when the
--- server is not ready.
---@return string[]
function M.turns()
  local client = state.client_id and vim.lsp.get_client_by_id(state.client_id)
  if not client or not client.initialized or not state.session then
    return {}
  end
  local params = { command = protocol.commands.checkpoints, arguments = { { sessionId = state.session } } }
  local res = lsp.request_sync(client, 'workspace/executeCommand', params, 1000)
  local out = {}
  for _, c in ipairs((res and res.result or {}).turns or {}) do
    table.insert(out, tostring(c.turn))
  end
  return out
end

return M
