--- The :Reasonix command and the actions behind the public API.
local config = require('reasonix.config')
local lsp = require('reasonix.lsp')
local protocol = require('reasonix.protocol')
local state = require('reasonix.state')

local api = vim.api
local M = {}

local function chat()
  return require('reasonix.chat')
end

local function notify(msg, level)
  vim.notify('Reasonix: ' .. msg, level or vim.log.levels.INFO, { title = 'Reasonix' })
end

local function error_text(err)
  if type(err) == 'table' then
    return err.message or vim.inspect(err)
  end
  return tostring(err)
end

--- For the other modules of the plugin.
M.notify, M.error_text = notify, error_text

--- The workspace folder URI of a client.
---@param client table
---@return string|nil
local function folder_of(client)
  local wf = client.workspace_folders and client.workspace_folders[1]
  if wf then
    return wf.uri
  end
  local root = client.root_dir or client.config.root_dir
  if type(root) == 'string' then
    return vim.uri_from_fname(root)
  end
  return nil
end

--- The buffer a command is about: the current one, or the last file
--- buffer when the command runs from the chat.
---@return integer
local function target_buffer()
  local cur = api.nvim_get_current_buf()
  if api.nvim_buf_get_name(cur) == require('reasonix.chat').name and state.last_file_buf then
    if api.nvim_buf_is_valid(state.last_file_buf) then
      return state.last_file_buf
    end
  end
  return cur
end

--- Runs fn(client) with the client for bufnr once it is ready, or says
--- why there is none.
---@param bufnr integer
---@param fn fun(client: table)
local function with_client(bufnr, fn)
  local client, err = lsp.client_for(bufnr)
  if not client then
    notify(err, vim.log.levels.WARN)
    return
  end
  lsp.when_ready(client, fn)
end

--- Makes session the chat's session and empties the chat for it.
---@param client table
---@param session string
local function adopt(client, session)
  state.client_id, state.session = client.id, session
  chat().reset(session)
end

--- Calls fn(session) with the chat's session, creating one first when the
--- chat has none on this client.
local function with_session(client, fn)
  if state.session and state.client_id == client.id then
    fn(state.session)
    return
  end
  M.new_session(client, fn)
end

--- Starts an empty session and makes it the chat's.
---@param client table
---@param fn fun(session: string)|nil
function M.new_session(client, fn)
  lsp.request(client, protocol.to_server.newSession, { folder = folder_of(client) }, function(err, result)
    if err or type(result) ~= 'table' then
      notify('cannot start a session: ' .. error_text(err), vim.log.levels.ERROR)
      return
    end
    adopt(client, result.sessionId)
    if fn then
      fn(result.sessionId)
    end
  end)
end

--- A byte column as a character offset in the client's position encoding.
---@return integer
local function lsp_col(bufnr, row, col, encoding)
  local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  col = math.max(0, math.min(col, #line))
  if encoding == 'utf-8' then
    return col
  end
  local n = 0
  for _, cp in ipairs(vim.fn.str2list(line:sub(1, col))) do
    n = n + ((encoding ~= 'utf-32' and cp > 0xFFFF) and 2 or 1)
  end
  return n
end

local function encoding_of(client)
  return client.offset_encoding or 'utf-16'
end

--- The LSP range of lines line1..line2 (1-based), or of the last visual
--- selection when it covers exactly those lines characterwise.
local function selection_range(bufnr, line1, line2, encoding)
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  local srow, scol, erow, ecol = line1 - 1, 0, line2 - 1, math.huge
  if vim.fn.visualmode() == 'v' and vs[2] == line1 and ve[2] == line2 then
    scol = vs[3] - 1
    local last = api.nvim_buf_get_lines(bufnr, erow, erow + 1, false)[1] or ''
    -- '> is the first byte of the last character; the range ends after it.
    local char = vim.fn.strpart(last, ve[3] - 1, 1, true)
    ecol = ve[3] - 1 + #char
  end
  return {
    start = { line = srow, character = lsp_col(bufnr, srow, scol, encoding) },
    ['end'] = { line = erow, character = lsp_col(bufnr, erow, ecol, encoding) },
  }
end

local function is_file_buffer(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  return vim.bo[bufnr].buftype == '' and name ~= '' and not name:match('^%a[%w+.-]*://')
end

--- Follows up a built-in command the server ran (result.action): /new and
--- /clear moved the chat to another session, the answer's; /model REF
--- switched the model; a kept /clear changed nothing. Each says so.
---@param client table
---@param result table reasonix.ask's result
local function performed(client, result)
  local action = result.action
  if type(action) ~= 'table' then
    return
  end
  if (action.kind == 'new' or action.kind == 'clear') and not action.cancelled then
    adopt(client, result.sessionId)
    chat().note('_' .. (result.text or '') .. '_')
    notify(result.text or 'new session')
  elseif action.kind == 'clear' or (action.kind == 'model' and action.model) then
    notify(result.text or '')
  end
end

--- Asks in the chat's session (reasonix.ask). With opts.range = {line1,
--- line2} the selection is attached; from a file buffer the file is
--- mentioned. A prompt may start with a slash command and refer to files
--- with @path: the server runs it through its prompt pipeline. Without a
--- prompt, asks for one with vim.ui.input, which completes the commands.
---@param prompt string|nil
---@param opts {range: integer[]|nil}|nil
function M.ask(prompt, opts)
  opts = opts or {}
  if not prompt or vim.trim(prompt) == '' then
    -- input()'s completion takes a function by name: a global one.
    _G.reasonix_complete_prompt = M.complete_prompt
    vim.ui.input({ prompt = 'Ask Reasonix: ', completion = 'customlist,v:lua.reasonix_complete_prompt' }, function(input)
      if input and vim.trim(input) ~= '' then
        M.ask(input, opts)
      end
    end)
    return
  end
  local bufnr = target_buffer()
  with_client(bufnr, function(client)
    local args = { prompt = prompt }
    if is_file_buffer(bufnr) and lsp.clients(bufnr)[1] then
      args.uri = vim.uri_from_bufnr(bufnr)
      if opts.range then
        args.range = selection_range(bufnr, opts.range[1], opts.range[2], encoding_of(client))
      end
    end
    with_session(client, function(session)
      args.sessionId = session
      if config.get().chat.auto_open then
        chat().open()
      end
      local params = { command = protocol.commands.ask, arguments = { args } }
      lsp.request(client, 'workspace/executeCommand', params, function(err, result)
        if err then
          chat().note('**Error:** ' .. error_text(err))
          notify(error_text(err), vim.log.levels.ERROR)
        elseif type(result) == 'table' and result.stop == 'error' then
          -- The server has shown the turn's error (window/showMessage) and
          -- the chat has it from the event stream: told once is enough.
          return
        elseif type(result) == 'table' then
          performed(client, result)
        end
      end, bufnr)
    end)
  end)
end

local severity_names = { 'Error', 'Warning', 'Info', 'Hint' }

--- A vim.diagnostic as an LSP Diagnostic.
---@param d table
---@return table
function M.to_lsp_diagnostic(bufnr, d, encoding)
  local end_lnum = d.end_lnum or d.lnum
  local end_col = d.end_col or d.col
  local out = {
    range = {
      start = { line = d.lnum, character = lsp_col(bufnr, d.lnum, d.col or 0, encoding) },
      ['end'] = { line = end_lnum, character = lsp_col(bufnr, end_lnum, end_col or 0, encoding) },
    },
    severity = d.severity,
    message = d.message,
    source = d.source,
    code = d.code,
  }
  local orig = type(d.user_data) == 'table' and d.user_data.lsp
  if type(orig) == 'table' then
    out.code = out.code or orig.code
    out.codeDescription = orig.codeDescription
    out.tags = orig.tags
    out.data = orig.data
  end
  return out
end

--- The diagnostics under the cursor: those whose range covers it, else
--- all on its line, else quickfix and location list entries for the line
--- (so `:make` output can be fixed too).
---@return table[]
function M.diagnostics_at_cursor(bufnr, win)
  local row, col = unpack(api.nvim_win_get_cursor(win))
  row = row - 1
  local on_line = vim.diagnostic.get(bufnr, { lnum = row })
  -- end_col is exclusive; an empty range covers its one position.
  local under = vim.tbl_filter(function(d)
    local from, last_row = d.col or 0, d.end_lnum or d.lnum
    local to = d.end_col or from
    local starts_before = d.lnum < row or from <= col
    local ends_after = last_row > row or col < to or (to == from and last_row == d.lnum and col == from)
    return starts_before and ends_after
  end, on_line)
  if #under > 0 then
    return under
  end
  if #on_line > 0 then
    return on_line
  end
  local out = {}
  local items = vim.list_extend(vim.fn.getloclist(win), vim.fn.getqflist())
  local severity = { E = 1, W = 2, I = 3, N = 4, H = 4 }
  for _, item in ipairs(items) do
    if item.valid == 1 and item.bufnr == bufnr and item.lnum == row + 1 then
      local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
      table.insert(out, {
        lnum = row,
        col = item.col > 0 and item.col - 1 or 0,
        end_lnum = row,
        end_col = #line,
        severity = severity[item.type] or 1,
        message = vim.trim(item.text),
        source = 'quickfix',
      })
    end
  end
  return out
end

--- Fixes the diagnostic under the cursor (reasonix.start in a new session,
--- as the "Ask Reasonix to fix" code action does). extra is added to the
--- request.
---@param extra string|nil
function M.fix(extra)
  local bufnr, win = api.nvim_get_current_buf(), api.nvim_get_current_win()
  if not is_file_buffer(bufnr) then
    notify('put the cursor on a diagnostic in a file buffer', vim.log.levels.WARN)
    return
  end
  local diags = M.diagnostics_at_cursor(bufnr, win)
  if #diags == 0 then
    notify('no diagnostic (or quickfix entry) on this line', vim.log.levels.WARN)
    return
  end
  local function start(d)
    with_client(bufnr, function(client)
      M.new_session(client, function(session)
        if config.get().chat.auto_open then
          chat().open()
        end
        local args = {
          uri = vim.uri_from_bufnr(bufnr),
          diagnostic = M.to_lsp_diagnostic(bufnr, d, encoding_of(client)),
          sessionId = session,
        }
        if extra and vim.trim(extra) ~= '' then
          args.prompt = extra
        end
        local params = { command = protocol.commands.start, arguments = { args } }
        lsp.request(client, 'workspace/executeCommand', params, function(err)
          if err then
            notify(error_text(err), vim.log.levels.ERROR)
          end
        end, bufnr)
      end)
    end)
  end
  if #diags == 1 then
    start(diags[1])
    return
  end
  vim.ui.select(diags, {
    prompt = 'Fix which diagnostic?',
    kind = 'reasonix.diagnostic',
    format_item = function(d)
      return (severity_names[d.severity] or 'Error') .. ': ' .. d.message
    end,
  }, function(d)
    if d then
      start(d)
    end
  end)
end

--- Stops the chat's running turn.
function M.cancel()
  local client = state.client_id and vim.lsp.get_client_by_id(state.client_id)
  if not client or not state.session then
    notify('nothing to cancel', vim.log.levels.WARN)
    return
  end
  local params = { command = protocol.commands.cancel, arguments = { { sessionId = state.session } } }
  lsp.request(client, 'workspace/executeCommand', params, function(err, result)
    if err then
      notify(error_text(err), vim.log.levels.ERROR)
    elseif type(result) == 'table' and not result.cancelled then
      notify('nothing was running')
    end
  end)
end

--- Opens the chat.
function M.chat()
  chat().open({ focus = true })
end

--- Picks a saved session of the workspace with vim.ui.select and resumes it.
function M.sessions()
  with_client(target_buffer(), function(client)
    lsp.request(client, protocol.to_server.listSessions, { folder = folder_of(client) }, function(err, result)
      if err then
        notify(error_text(err), vim.log.levels.ERROR)
        return
      end
      local list = (result or {}).sessions or {}
      if #list == 0 then
        notify('no saved sessions in this workspace')
        return
      end
      vim.ui.select(list, {
        prompt = 'Resume a Reasonix session',
        kind = 'reasonix.session',
        format_item = function(s)
          local when = (s.updated or s.created or ''):gsub('T', ' '):sub(1, 16)
          local running = s.running and ' · running' or ''
          return string.format('%s  %s (%d turns, $%.4f%s)', when, s.title or s.id, s.turns or 0, s.cost or 0, running)
        end,
      }, function(s)
        if s then
          M.resume(s.id)
        end
      end)
    end)
  end)
end

--- Opens a saved session, shows its conversation in the chat and makes it
--- the session `:Reasonix ask` continues.
---@param id string
function M.resume(id)
  if not id or id == '' then
    M.sessions()
    return
  end
  with_client(target_buffer(), function(client)
    lsp.request(client, protocol.to_server.resumeSession, { sessionId = id }, function(err, result)
      if err or type(result) ~= 'table' then
        notify('cannot resume ' .. id .. ': ' .. error_text(err), vim.log.levels.ERROR)
        return
      end
      state.client_id, state.session = client.id, result.sessionId
      chat().show_history(result)
      chat().open()
    end)
  end)
end

--- Starts a new, empty chat session.
function M.new()
  with_client(target_buffer(), function(client)
    M.new_session(client, function(session)
      notify('new session ' .. session)
    end)
  end)
end

--- Shows the workspace's MCP servers: their transport, state and what
--- they offer, then the error of each that failed, as the server words it.
function M.mcp()
  with_client(target_buffer(), function(client)
    lsp.request(client, protocol.to_server.mcpServers, { folder = folder_of(client) }, function(err, result)
      if err or type(result) ~= 'table' then
        notify('cannot list the MCP servers: ' .. error_text(err), vim.log.levels.ERROR)
        return
      end
      notify('MCP servers\n' .. (result.text or ''))
    end)
  end)
end

--- Lists what the agent remembers for the workspace (the project's notes,
--- then the user's) with vim.ui.select, and opens the note picked.
function M.memory()
  with_client(target_buffer(), function(client)
    lsp.request(client, protocol.to_server.memory, { folder = folder_of(client) }, function(err, result)
      if err or type(result) ~= 'table' then
        notify('cannot list the memory: ' .. error_text(err), vim.log.levels.ERROR)
        return
      end
      local notes = result.notes or {}
      if #notes == 0 then
        notify('no notes yet: the agent saves one when you ask it to remember something, with your approval')
        return
      end
      vim.ui.select(notes, {
        prompt = 'What Reasonix remembers',
        kind = 'reasonix.memory',
        format_item = function(n)
          return string.format('%s/%s  %s', n.scope, n.name, n.description or '')
        end,
      }, function(n)
        if n then
          vim.cmd('edit ' .. vim.fn.fnameescape(n.path))
        end
      end)
    end)
  end)
end

--- What reasonix.trust did, for the user; nil where the server has said it
--- already (nothing needs trust, or all of it is trusted).
---@param action string 'review' or 'revoke'
---@param r table reasonix.trust's result
---@return string|nil
function M.trust_outcome(action, r)
  local ws = r.workspace or '?'
  if #(r.items or {}) == 0 then
    return action == 'revoke' and ('nothing in the configuration of ' .. ws .. ' needs trust') or nil
  end
  if action == 'revoke' then
    return 'forgot what you trusted in ' .. ws .. ': its own servers and settings are off until you trust them again'
  end
  if r.granted then
    return 'you trust the configuration of ' .. ws .. ': its own servers and settings are on'
  end
  if not r.trusted then
    return 'the configuration of ' .. ws .. ' stays off until you trust it (:Reasonix trust)'
  end
  return nil
end

--- Reviews or revokes the trust in the configuration of the workspace
--- (reasonix.trust). 'review' (the default) asks the trust question again
--- when some of it is off; 'revoke' forgets what was trusted. The outcome
--- is told with vim.notify.
---@param action string|nil 'review' or 'revoke'
function M.trust(action)
  action = action ~= '' and action or 'review'
  if action ~= 'review' and action ~= 'revoke' then
    notify("trust takes 'review' or 'revoke', not '" .. action .. "'", vim.log.levels.ERROR)
    return
  end
  with_client(target_buffer(), function(client)
    local args = { uri = folder_of(client), action = action }
    local params = { command = protocol.commands.trust, arguments = { args } }
    lsp.request(client, 'workspace/executeCommand', params, function(err, result)
      if err or type(result) ~= 'table' then
        notify('cannot ' .. action .. ' the workspace trust: ' .. error_text(err), vim.log.levels.ERROR)
        return
      end
      local said = M.trust_outcome(action, result)
      if said then
        notify(said)
      end
    end)
  end)
end

M.subcommands = { 'accept', 'ask', 'cancel', 'chat', 'fix', 'mcp', 'memory', 'new', 'reject', 'resume', 'review', 'rewind', 'sessions', 'trust' }

--- :Reasonix {subcommand} [args].
---@param o table the user command's argument table
function M.run(o)
  local sub = o.fargs[1] or 'chat'
  local rest = (o.args:match('^%s*%S+%s+(.*)$') or '')
  if sub == 'ask' then
    M.ask(rest, { range = o.range > 0 and { o.line1, o.line2 } or nil })
  elseif sub == 'fix' then
    M.fix(rest)
  elseif sub == 'chat' then
    M.chat()
  elseif sub == 'cancel' then
    M.cancel()
  elseif sub == 'sessions' then
    M.sessions()
  elseif sub == 'resume' then
    M.resume(vim.trim(rest))
  elseif sub == 'new' then
    M.new()
  elseif sub == 'mcp' then
    M.mcp()
  elseif sub == 'memory' then
    M.memory()
  elseif sub == 'review' then
    require('reasonix.review').list()
  elseif sub == 'trust' then
    M.trust(vim.trim(rest))
  elseif sub == 'rewind' then
    require('reasonix.rewinding').run(rest)
  elseif sub == 'accept' or sub == 'reject' then
    local scope = vim.trim(rest) == 'file' and 'file' or 'hunk'
    require('reasonix.review').decide(sub, scope)
  else
    local msg = string.format("unknown subcommand '%s'; use one of: %s", sub, table.concat(M.subcommands, ', '))
    notify(msg, vim.log.levels.ERROR)
  end
end

--- The client completion may ask synchronously: ready, else nil.
---@return table|nil
local function completion_client()
  local client = lsp.client_for(target_buffer())
  if client and client.initialized then
    return client
  end
  return nil
end

--- The ids of the workspace's saved sessions.
---@return string[]
local function session_ids()
  local client = completion_client()
  if not client then
    return {}
  end
  local res = lsp.request_sync(client, protocol.to_server.listSessions, { folder = folder_of(client) }, 1000)
  local ids = {}
  for _, s in ipairs((res and res.result or {}).sessions or {}) do
    table.insert(ids, s.id)
  end
  return ids
end

--- The slash commands a prompt can start with, as the server lists them
--- (reasonix/listCommands): the built-ins, the custom commands and the
--- MCP servers' prompts. None when the server is not ready.
---@return string[]
local function slash_commands()
  local client = completion_client()
  if not client then
    return {}
  end
  local params = { uri = vim.uri_from_bufnr(target_buffer()) }
  if not is_file_buffer(target_buffer()) then
    params.uri = folder_of(client)
  end
  local res = lsp.request_sync(client, protocol.to_server.listCommands, params, 1000)
  local out = {}
  for _, c in ipairs((res and res.result or {}).commands or {}) do
    if type(c.name) == 'string' then
      table.insert(out, c.name)
    end
  end
  return out
end

--- Completion for the prompt of vim.ui.input: the slash commands, while
--- the first word is typed.
---@param arglead string
---@param line string
---@return string[]
function M.complete_prompt(arglead, line)
  line = line or arglead
  if not vim.startswith(line, '/') or line:find('%s') then
    return {}
  end
  return vim.tbl_filter(function(s)
    return vim.startswith(s, line)
  end, slash_commands())
end

--- Completion for :Reasonix: subcommands, then session ids for resume,
--- the chat session's turns for rewind, and slash commands for a prompt
--- of ask that starts with "/".
function M.complete(arglead, cmdline, cursorpos)
  local before = cmdline:sub(1, cursorpos)
  local words = vim.split(vim.trim((before:gsub('^.-Reasonix!?', '', 1))), '%s+', { trimempty = true })
  if arglead ~= '' then
    table.remove(words) -- the word being completed
  end
  local function matching(list)
    return vim.tbl_filter(function(s)
      return vim.startswith(s, arglead)
    end, list)
  end
  if #words == 0 then
    return matching(M.subcommands)
  end
  if #words == 1 and words[1] == 'resume' then
    return matching(session_ids())
  end
  if #words == 1 and (words[1] == 'accept' or words[1] == 'reject') then
    return matching({ 'file' })
  end
  if #words == 1 and words[1] == 'rewind' then
    return matching(require('reasonix.rewinding').turns())
  end
  if #words == 1 and words[1] == 'trust' then
    return matching({ 'review', 'revoke' })
  end
  if #words == 1 and words[1] == 'ask' and vim.startswith(arglead, '/') then
    return matching(slash_commands())
  end
  return {}
end

return M
