--- The Reasonix client's handlers. They are the client's own (its
--- `handlers` config), so vim.lsp.handlers — and other plugins that wrap
--- it — stay untouched; where the plugin only adds to the standard
--- behaviour ($/progress, window/showMessage) it calls whatever global
--- handler is installed when the message arrives.
local async = require('reasonix.async')
local protocol = require('reasonix.protocol')
local state = require('reasonix.state')

-- vim.uv from 0.10 on, where vim.loop is its deprecated name.
local uv = vim.uv or vim.loop

local M = {}

--- The permission answers, in the order the server offers them.
M.actions = { 'Allow once', 'Allow for session', 'Always allow', 'Deny' }

local function chat()
  return require('reasonix.chat')
end

--- Questions waiting for the one open picker, oldest first.
---@type fun()[]
local queue = {}
local asking = false

--- Opens the next queued question when none is open: parallel tool calls
--- can ask at once, and two pickers must not fight over the screen.
local function next_question()
  if asking or #queue == 0 then
    return
  end
  asking = true
  table.remove(queue, 1)()
end

--- Waits for the answer of a question that open shows, in its turn:
--- open(answered) opens it and calls answered(value) when the user is
--- done. See reasonix.async for how this waits.
---@param open fun(answered: fun(value: any))
---@return any
local function queued(open)
  return async.await(function(done)
    table.insert(queue, function()
      open(function(value)
        asking = false
        done(value)
        next_question()
      end)
    end)
    next_question()
  end)
end

--- Asks the user to pick one of titles with vim.ui.select, so telescope,
--- fzf-lua, snacks or dressing show it when installed, and returns the
--- chosen title or nil. kind is the picker's kind (default
--- 'reasonix.approval').
---@param message string
---@param titles string[]
---@param kind string|nil
---@return string|nil
function M.pick(message, titles, kind)
  return queued(function(answered)
    vim.ui.select(titles, { prompt = message, kind = kind or 'reasonix.approval' }, answered)
  end)
end

--- The picker item for an answer typed in the user's own words.
M.own_answer = 'Answer in my own words…'

--- Asks for text with vim.ui.input (dressing or snacks show it when
--- installed) and returns it, or nil when the user cancelled. Waits as
--- M.pick does, and takes its turn among the questions.
---@param prompt string
---@return string|nil
function M.input(prompt)
  return queued(function(answered)
    vim.ui.input({ prompt = prompt }, answered)
  end)
end

--- reasonix/ask: the agent's question (the ask tool). The suggested
--- answers are picked with vim.ui.select, whose last item lets the user
--- type one; the answer is the text, or null when dismissed.
function M.ask(_, params)
  params = params or {}
  local titles = vim.deepcopy(params.options or {})
  if params.allowText then
    table.insert(titles, M.own_answer)
  end
  local question = params.question or ''
  local choice = M.pick('Reasonix asks: ' .. question, titles)
  if choice == M.own_answer then
    choice = M.input(question .. ' ')
  end
  if choice == nil or vim.trim(choice) == '' then
    return { answer = vim.NIL }
  end
  return { answer = vim.trim(choice) }
end

--- reasonix/approve: a permission question; the answer is one of actions,
--- or null (Deny).
function M.approve(_, params, ctx)
  params = params or {}
  local actions = params.actions or M.actions
  local choice = M.pick(params.message or 'Reasonix asks for permission', actions)
  if package.loaded['reasonix.chat'] then
    chat().approval_answered(ctx.client_id, params.sessionId, choice)
  end
  if choice == nil then
    return vim.NIL
  end
  return { action = choice }
end

--- window/showMessageRequest: the same question for servers (or Reasonix
--- versions) that ask it the standard way, and the question whether to
--- trust a workspace's own configuration, which only this way asks (the
--- kind is the command's name, reasonix.trust; dismissing it keeps that
--- configuration off).
function M.show_message_request(_, params, ctx)
  params = params or {}
  local titles = {}
  for _, a in ipairs(params.actions or {}) do
    table.insert(titles, a.title)
  end
  if #titles == 0 then
    return vim.NIL
  end
  local trust = vim.deep_equal(titles, protocol.trust_actions)
  local choice = M.pick(params.message or '', titles, trust and protocol.commands.trust or nil)
  if not trust and package.loaded['reasonix.chat'] then
    chat().approval_answered(ctx.client_id, nil, choice)
  end
  for _, a in ipairs(params.actions) do
    if a.title == choice then
      return a
    end
  end
  return vim.NIL
end

--- The loaded buffer of a file, without creating one.
---@param fname string
---@return integer|nil
local function buffer_of(fname)
  local real = uv.fs_realpath(fname) or fname
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      local name = vim.api.nvim_buf_get_name(b)
      if name == fname or (name ~= '' and (uv.fs_realpath(name) or name) == real) then
        return b
      end
    end
  end
  return nil
end

--- Saves one buffer the way :write does, so Neovim records the new
--- modification time and no W11/W12 "changed since editing started"
--- warning follows.
---@param uri string
---@return string|nil err
local function save(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return 'not a file URI'
  end
  local bufnr = buffer_of(fname)
  if not bufnr then
    return 'not open in Neovim'
  end
  if vim.bo[bufnr].buftype ~= '' then
    return 'not a file buffer'
  end
  if not vim.bo[bufnr].modified then
    return nil -- already on disk
  end
  local wrote, err = pcall(vim.api.nvim_buf_call, bufnr, function()
    vim.cmd('silent keepalt write')
  end)
  if not wrote then
    return (tostring(err):gsub('^Vim%(%a+%):', ''))
  end
  if vim.bo[bufnr].modified then
    return 'still modified after :write'
  end
  return nil
end

--- reasonix/saveDocuments: write the buffers holding the agent's edits
--- before a command runs.
function M.save_documents(_, params)
  local saved, failed = {}, {}
  for _, uri in ipairs((params or {}).uris or {}) do
    local err = save(uri)
    if err then
      table.insert(failed, { uri = uri, reason = err })
    else
      table.insert(saved, uri)
    end
  end
  local result = { saved = saved }
  if #failed > 0 then
    result.failed = failed
  end
  return result
end

--- reasonix/event: one event of the agent loop, for the chat.
function M.event(_, params, ctx)
  if type(params) ~= 'table' then
    return
  end
  if params.kind == 'turn_start' and params.sessionId then
    state.running[params.sessionId] = true
  elseif params.kind == 'turn_done' and params.sessionId then
    state.running[params.sessionId] = nil
  end
  if params.sessionId and not params.parent and M.remember(params) then
    -- The statusline component shows it (reasonix.statusline).
    vim.cmd('redrawstatus')
  end
  chat().on_event(ctx.client_id, params)
end

--- Keeps what the statusline shows of a session: how full its context
--- window is (usage events and the turn's result carry it) and its todo
--- list. A sub-task's events (with `parent`) are not the session's.
---@return boolean changed
function M.remember(ev)
  local fill = (ev.kind == 'usage' and ev.usage) or (ev.kind == 'turn_done' and ev.done) or nil
  if type(fill) == 'table' and type(fill.contextWindow) == 'number' and fill.contextWindow > 0 then
    state.context[ev.sessionId] = { window = fill.contextWindow, tokens = fill.contextTokens or 0 }
    return true
  elseif ev.kind == 'todo' then
    state.todos[ev.sessionId] = type(ev.todos) == 'table' and ev.todos or {}
    return true
  end
  return ev.kind == 'turn_done'
end

--- $/progress: whatever handler is installed (Neovim's, fidget's...), then
--- a notification when a turn starts and ends.
function M.progress(err, result, ctx, cfg)
  local global = vim.lsp.handlers['$/progress']
  local ret
  if global then
    ret = global(err, result, ctx, cfg)
  end
  local value = type(result) == 'table' and result.value
  if type(value) == 'table' and require('reasonix.config').get().progress then
    if value.kind == 'begin' then
      local msg = 'Reasonix: ' .. (value.message or value.title or 'working')
      vim.notify(msg, vim.log.levels.INFO, { title = 'Reasonix' })
    elseif value.kind == 'end' then
      vim.notify('Reasonix: ' .. (value.message or 'done'), vim.log.levels.INFO, { title = 'Reasonix' })
    end
  end
  return ret
end

--- window/showMessage: remember the last error (for :checkhealth), then
--- show it through the installed handler; the server's summary of a
--- rewind the plugin tells itself (reasonix.rewind) is not shown twice.
function M.show_message(err, result, ctx, cfg)
  if type(result) == 'table' and result.type == 1 then
    state.errors[ctx.client_id] = result.message
  end
  if type(result) == 'table' and package.loaded['reasonix.rewinding'] and require('reasonix.rewinding').told_by_plugin(ctx.client_id, result.message) then
    return result
  end
  local global = vim.lsp.handlers['window/showMessage']
  if global then
    return global(err, result, ctx, cfg)
  end
  return result
end

--- textDocument/publishDiagnostics: Neovim's own handler, then the
--- proposed changes shown in the buffer (reasonix.review).
function M.publish_diagnostics(err, result, ctx, cfg)
  local global = vim.lsp.handlers['textDocument/publishDiagnostics']
  local out = global(err, result, ctx, cfg)
  if not err and type(result) == 'table' then
    require('reasonix.review').on_diagnostics(result, ctx)
  end
  return out
end

--- window/showDocument: Neovim's own handler where it has one (0.8 and
--- later), else the file opened in the current window.
function M.show_document(err, result, ctx, cfg)
  local global = vim.lsp.handlers['window/showDocument']
  if global then
    return global(err, result, ctx, cfg)
  end
  if err or type(result) ~= 'table' or result.external then
    return { success = false }
  end
  local ok = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(vim.uri_to_fname(result.uri)))
  return { success = ok }
end

--- The handlers table for the client config.
---@return table<string, function>
function M.table()
  if require('reasonix.config').get().request_coroutines then
    async.enable_request_coroutines()
  end
  return {
    [protocol.to_client.approve] = M.approve,
    [protocol.to_client.ask] = M.ask,
    [protocol.to_client.saveDocuments] = M.save_documents,
    [protocol.to_client.event] = M.event,
    ['window/showMessageRequest'] = M.show_message_request,
    ['$/progress'] = M.progress,
    ['window/showMessage'] = M.show_message,
    ['textDocument/publishDiagnostics'] = M.publish_diagnostics,
    ['window/showDocument'] = M.show_document,
  }
end

return M
