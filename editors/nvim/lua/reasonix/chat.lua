--- The chat: a Markdown buffer that shows the current session as its
--- reasonix/event stream arrives — the prompt, the answer as it streams,
--- a row per tool call (`✓ bash go test ./... — exit 0`), and a cost line
--- per turn (`— 4 requests · 3 tool calls · 92% cache hit · $0.0012`).
---
--- The buffer always holds one session, state.session; events of other
--- sessions are left to progress and notifications. The buffer lives on
--- when its window closes, so `:Reasonix chat` shows the whole stream.
local config = require('reasonix.config')
local state = require('reasonix.state')

local api = vim.api
local M = {}

M.name = 'reasonix://chat'

---@class reasonix.Render
---@field block string|nil what the last lines hold: text, reasoning, tools, note
---@field rows table<any, reasonix.Row> tool call id → its row
---@field approval reasonix.Row|nil the row of the open permission question
---@field step integer|nil the step whose text is streaming
---@field step_at integer[]|nil where that step's text began: {row, col}
---@field turns table<integer, integer> turn number → the row of its "## You"
local render = { rows = {}, turns = {} }

---@type integer|nil
local buf

--- The chat buffer, created on first use.
---@return integer
function M.buffer()
  if buf and api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, M.name)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].modifiable = false
  M.reset(state.session)
  return buf
end

--- Windows showing the chat, in every tab page or only the current one.
---@param tab_only boolean|nil
---@return integer[]
local function windows(tab_only)
  if not buf then
    return {}
  end
  local wins = tab_only and api.nvim_tabpage_list_wins(0) or api.nvim_list_wins()
  return vim.tbl_filter(function(w)
    return api.nvim_win_get_buf(w) == buf
  end, wins)
end

--- Whether the chat shows in the current tab page.
---@return boolean
function M.is_visible()
  return #windows(true) > 0
end

--- Opens the chat in a split (or goes to it) and returns its window.
---@param opts {focus: boolean}|nil
---@return integer
function M.open(opts)
  opts = opts or {}
  local b = M.buffer()
  local win = windows(true)[1]
  if not win then
    local cfg = config.get().chat
    local prev = api.nvim_get_current_win()
    if cfg.position == 'bottom' then
      vim.cmd('botright ' .. cfg.height .. 'split')
    else
      vim.cmd('botright ' .. cfg.width .. 'vsplit')
    end
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, b)
    vim.wo[win].wrap = true
    vim.wo[win].linebreak = true
    vim.wo[win].number = false
    vim.wo[win].relativenumber = false
    vim.wo[win].signcolumn = 'no'
    if cfg.reasoning == 'fold' then
      vim.wo[win].foldmethod = 'expr'
      vim.wo[win].foldexpr = "getline(v:lnum)=~'^> '?1:0"
      vim.wo[win].foldlevel = 0
    end
    api.nvim_win_set_cursor(win, { api.nvim_buf_line_count(b), 0 })
    if not opts.focus then
      api.nvim_set_current_win(prev)
    end
  elseif opts.focus then
    api.nvim_set_current_win(win)
  end
  return win
end

--- Runs fn with the buffer modifiable, then follows the end in windows
--- whose cursor was on the last line (or that are not current).
local function edit(fn)
  local b = M.buffer()
  local last = api.nvim_buf_line_count(b)
  local follow = {}
  for _, w in ipairs(windows()) do
    if w ~= api.nvim_get_current_win() or api.nvim_win_get_cursor(w)[1] >= last then
      table.insert(follow, w)
    end
  end
  vim.bo[b].modifiable = true
  local ok, err = pcall(fn, b)
  vim.bo[b].modifiable = false
  for _, w in ipairs(follow) do
    if api.nvim_win_is_valid(w) then
      api.nvim_win_set_cursor(w, { api.nvim_buf_line_count(b), 0 })
    end
  end
  if not ok then
    error(err, 0)
  end
end

local function last_line(b)
  local n = api.nvim_buf_line_count(b)
  return n, api.nvim_buf_get_lines(b, n - 1, n, false)[1] or ''
end

--- The lines of text: a buffer line cannot hold a newline.
---@param text string
---@return string[]
local function split(text)
  return vim.split(text, '\n', { plain = true })
end

--- Text on one line, for a row that stays one line (a tool call's row is
--- rewritten in place by its row number).
---@param text string
---@return string
local function flat(text)
  return (text:gsub('%s*\n%s*', ' '))
end

--- Appends s at the end, continuing the last line; new lines get prefix.
local function write(b, s, prefix)
  prefix = prefix or ''
  local n, cur = last_line(b)
  local parts = split(s)
  if cur == '' and prefix ~= '' then
    cur = prefix
  end
  parts[1] = cur .. parts[1]
  for i = 2, #parts do
    parts[i] = prefix .. parts[i]
  end
  api.nvim_buf_set_lines(b, n - 1, n, false, parts)
end

--- Adds whole lines after the current one and leaves an empty last line.
--- An entry with newlines becomes several lines.
local function lines(b, ls)
  local n, cur = last_line(b)
  local out = {}
  for _, l in ipairs(ls) do
    vim.list_extend(out, split(l))
  end
  table.insert(out, '')
  if cur == '' then
    api.nvim_buf_set_lines(b, n - 1, n, false, out)
  else
    api.nvim_buf_set_lines(b, n, n, false, out)
  end
end

--- Starts a new block: a blank line between blocks, none right after a
--- heading.
local function block(b, kind)
  if render.block == kind then
    return
  end
  local n, cur = last_line(b)
  if cur ~= '' then
    api.nvim_buf_set_lines(b, n, n, false, { '', '' })
  elseif n >= 2 then
    local prev = api.nvim_buf_get_lines(b, n - 2, n - 1, false)[1]
    if prev ~= '' and (kind == 'heading' or not prev:match('^#')) then
      api.nvim_buf_set_lines(b, n, n, false, { '' })
    end
  end
  render.block = kind
end

--- Empties the chat for a session.
---@param session string|nil
function M.reset(session)
  render = { rows = {}, turns = {} }
  edit(function(b)
    local title = session and ('# Reasonix · session ' .. session) or '# Reasonix'
    api.nvim_buf_set_lines(b, 0, -1, false, { title, '' })
  end)
end

--- Shows the conversation a user is sending.
local function heading(b, text, body)
  block(b, 'heading')
  lines(b, { text })
  if body then
    local n = api.nvim_buf_line_count(b)
    local body_lines = split(body)
    table.insert(body_lines, '')
    api.nvim_buf_set_lines(b, n - 1, n, false, body_lines)
  end
end

--- A tool call in a few words, as the server's DescribeCall does it.
---@param name string
---@param args table|string|nil
---@return string
function M.describe(name, args)
  if type(args) == 'string' then
    local ok, decoded = pcall(vim.json.decode, args)
    args = ok and decoded or {}
  end
  args = type(args) == 'table' and args or {}
  local subject = ''
  for _, k in ipairs({ 'command', 'path', 'pattern', 'source', 'file_path' }) do
    if type(args[k]) == 'string' and args[k] ~= '' then
      subject = args[k]
      break
    end
  end
  if subject ~= '' and type(args.destination) == 'string' then
    subject = subject .. ' → ' .. args.destination
  end
  subject = vim.trim((subject:gsub('%s+', ' ')))
  if vim.fn.strchars(subject) > 80 then
    subject = vim.fn.strcharpart(subject, 0, 79) .. '…'
  end
  return subject == '' and name or (name .. ' ' .. subject)
end

local function plural(n, one, many)
  return string.format('%d %s', n, n == 1 and one or many)
end

--- The line that closes a turn.
---@param done table the turn's result (turn_done's `done`)
---@return string
function M.cost_line(done)
  local parts = {}
  if done.stop and done.stop ~= 'done' then
    table.insert(parts, done.stop == 'cancelled' and 'cancelled' or ('stopped: ' .. done.stop))
  end
  table.insert(parts, plural(done.steps or 0, 'request', 'requests'))
  table.insert(parts, plural(done.toolCalls or 0, 'tool call', 'tool calls'))
  local u = done.usage or {}
  local hit, miss = u.cache_hit_tokens or 0, u.cache_miss_tokens or 0
  local ratio = done.cacheHitRatio or (hit + miss > 0 and hit / (hit + miss) or 0)
  table.insert(parts, string.format('%d%% cache hit', math.floor(ratio * 100 + 0.5)))
  if done.priced and done.cost then
    table.insert(parts, string.format('$%.4f', done.cost))
  end
  if done.effort and done.effort ~= '' then
    table.insert(parts, 'effort ' .. done.effort)
  end
  return '— ' .. table.concat(parts, ' · ')
end

--- Marks where a step's streamed text began, so a retry can take it back.
local function mark_step(b, ev)
  if ev.step and ev.step ~= render.step then
    local n, cur = last_line(b)
    render.step, render.step_at = ev.step, { n - 1, #cur }
  end
end

local handlers = {}

function handlers.turn_start(b, ev)
  render.rows, render.step, render.step_at = {}, nil, nil
  local from = api.nvim_buf_line_count(b)
  heading(b, '## You', ev.text or '')
  if ev.turn then
    -- Where the turn begins, for a rewind to cut the chat back to.
    for row = math.max(0, from - 1), api.nvim_buf_line_count(b) - 1 do
      if api.nvim_buf_get_lines(b, row, row + 1, false)[1] == '## You' then
        render.turns[ev.turn] = row
        break
      end
    end
  end
  render.block = nil
  heading(b, '## Reasonix')
  render.block = 'heading'
end

function handlers.text(b, ev)
  mark_step(b, ev)
  block(b, 'text')
  write(b, ev.text or '')
end

function handlers.reasoning(b, ev)
  local mode = config.get().chat.reasoning
  if mode == 'hide' then
    return
  end
  mark_step(b, ev)
  block(b, 'reasoning')
  write(b, ev.text or '', '> ')
end

function handlers.retry(b, ev)
  if render.step_at then
    local row, col = render.step_at[1], render.step_at[2]
    local n = api.nvim_buf_line_count(b)
    if row < n then
      api.nvim_buf_set_text(b, row, col, n - 1, #(api.nvim_buf_get_lines(b, n - 1, n, false)[1] or ''), { '' })
    end
    render.step, render.step_at = nil, nil
  end
  block(b, 'note')
  lines(b, { '_Retrying: ' .. flat(ev.text or '') .. '_' })
end

--- The row of a tool call, and what it shows.
---@class reasonix.Row
---@field row integer 0-based line
---@field name string
---@field title string
---@field done boolean
---@field indent string what precedes the row: a sub-task's calls are indented

--- The key of a call's row: a sub-task numbers its calls on its own, so
--- they are keyed under the task call (ev.parent).
local function row_key(ev, tool)
  if not tool.callId then
    return nil
  end
  return ev.parent and (ev.parent .. '/' .. tool.callId) or tool.callId
end

local function indent(ev)
  return ev.parent and '  ↳ ' or ''
end

function handlers.tool_start(b, ev)
  local tool = ev.tool or {}
  local title = flat(tool.title or M.describe(tool.name or 'tool', tool.arguments))
  block(b, 'tools')
  local n = api.nvim_buf_line_count(b)
  lines(b, { indent(ev) .. '… ' .. title })
  local key = row_key(ev, tool)
  if key then
    render.rows[key] = { row = n - 1, name = tool.name, title = title, done = false, indent = indent(ev) }
  end
end

function handlers.tool_result(b, ev)
  local tool = ev.tool or {}
  local mark = tool.denied and '⊘' or (tool.isError and '✗' or '✓')
  local title = flat(tool.title or M.describe(tool.name or 'tool', tool.arguments))
  local text = indent(ev) .. mark .. ' ' .. title
  if tool.summary and tool.summary ~= '' then
    text = text .. ' — ' .. flat(tool.summary)
  end
  local key = row_key(ev, tool)
  local r = key and render.rows[key]
  if r and r.row < api.nvim_buf_line_count(b) then
    r.done = true
    if render.approval == r then
      render.approval = nil
    end
    api.nvim_buf_set_lines(b, r.row, r.row + 1, false, { text })
  else
    block(b, 'tools')
    lines(b, { text })
  end
end

--- A running call's row says how far along it is, in the tool's words;
--- a row that is finished, or waiting for an answer, keeps what it shows.
function handlers.tool_progress(b, ev)
  local tool = ev.tool or {}
  local key = row_key(ev, tool)
  local r = key and render.rows[key]
  if not r or r.done or render.approval == r or r.row >= api.nvim_buf_line_count(b) then
    return
  end
  api.nvim_buf_set_lines(b, r.row, r.row + 1, false, { r.indent .. '… ' .. r.title .. ' — ' .. flat(ev.text or '') })
end

--- A permission question shows on the row of the call it is about: the
--- latest unfinished call of that tool.
function handlers.approval(b, ev)
  local target
  for _, r in pairs(render.rows) do
    if not r.done and r.name == ev.tool and (not target or r.row > target.row) then
      target = r
    end
  end
  if not target then
    block(b, 'tools')
    local n = api.nvim_buf_line_count(b)
    target = { row = n - 1, name = ev.tool, title = flat(ev.message or ev.tool or 'a tool'), done = false, indent = '' }
    lines(b, { '' })
    render.rows['approval:' .. target.row] = target
  end
  render.approval = target
  local text = target.indent .. '? ' .. target.title .. ' — waiting for your answer'
  api.nvim_buf_set_lines(b, target.row, target.row + 1, false, { text })
end

--- A notice of several lines (a planner's plan) shows its first line as
--- the note and the rest as it is: markdown, such as the plan's steps.
function handlers.notice(b, ev)
  block(b, 'note')
  local ls = split(ev.text or '')
  ls[1] = '_' .. ls[1] .. '_'
  lines(b, ls)
end

--- A compaction shows as a note: "compacted: 41k → 6.2k tokens, …".
handlers.compaction = handlers.notice
handlers.repair = handlers.notice
--- One of the user's hooks ran: "hook PreToolUse [Bash] …: blocked (exit 2): …".
handlers.hook = handlers.notice
--- The check of the turn's edits: "checked: still 2 new errors in calc.go".
handlers.check = handlers.notice

--- A file a shell command changed: a note, since no edit announced it.
function handlers.file_changed(b, ev)
  local f = ev.file
  if f and f.source == 'shell' then
    block(b, 'note')
    lines(b, { '_' .. f.status .. ' ' .. flat(f.path) .. ' (shell)_' })
  end
end

function handlers.error(b, ev)
  block(b, 'note')
  lines(b, { '**Error:** ' .. (ev.error or ev.text or 'unknown error') })
end

function handlers.turn_done(b, ev)
  block(b, 'cost')
  if ev.done and ev.done.action then
    -- A built-in command ran no turn: nothing to account for.
    lines(b, { '— answered without the model' })
  else
    lines(b, { M.cost_line(ev.done or {}) })
  end
  render.block = nil
end

--- Renders one reasonix/event of the chat's session.
---@param client_id integer
---@param ev table
function M.on_event(client_id, ev)
  if ev.sessionId == nil or ev.sessionId ~= state.session or client_id ~= state.client_id then
    return
  end
  local h = handlers[ev.kind]
  if h then
    edit(function(b)
      h(b, ev)
    end)
  end
end

--- Records the answer to the open permission question on its row, until
--- the call's result replaces it.
---@param client_id integer
---@param session string|nil
---@param choice string|nil
function M.approval_answered(client_id, session, choice)
  local r = render.approval
  if client_id ~= state.client_id or (session and session ~= state.session) or not r then
    return
  end
  render.approval = nil
  edit(function(b)
    if not r.done and r.row < api.nvim_buf_line_count(b) then
      local text = '… ' .. r.title .. ' — ' .. flat(choice or 'no answer (Deny)')
      api.nvim_buf_set_lines(b, r.row, r.row + 1, false, { text })
    end
  end)
end

--- Adds a note (an error of the request, a hint) to the chat.
---@param text string
function M.note(text)
  edit(function(b)
    block(b, 'note')
    lines(b, { text })
  end)
end

--- Cuts a rewind's turns (plan.turns) out of the chat: from the start of
--- the earliest it shows to the start of the next turn that stays (the
--- /rewind that did it), or the end.
---@param b integer
---@param plan table a RewindPlan
local function cut_turns(b, plan)
  local gone = {}
  local from
  for _, t in ipairs(plan.turns or { plan.turn }) do
    gone[t] = true
    local row = render.turns[t]
    if row and (not from or row < from) then
      from = row
    end
  end
  local n = api.nvim_buf_line_count(b)
  if not from or from >= n then
    return
  end
  local to = n
  for t, row in pairs(render.turns) do
    if not gone[t] and row > from and row < to then
      to = row
    end
  end
  local shift = to - from
  for t, row in pairs(render.turns) do
    if gone[t] or (row >= from and row < to) then
      render.turns[t] = nil
    elseif row >= to then
      render.turns[t] = row - shift
    end
  end
  if to == n then
    api.nvim_buf_set_lines(b, from, -1, false, { '' })
    render.block = nil
  else
    api.nvim_buf_set_lines(b, from, to, false, {})
  end
  -- Rows of calls now point elsewhere; the turns cut had them.
  render.rows, render.approval = {}, nil
  if render.step_at and render.step_at[1] >= to then
    render.step_at = { render.step_at[1] - shift, render.step_at[2] }
  elseif render.step_at and render.step_at[1] >= from then
    render.step, render.step_at = nil, nil
  end
end

--- The session was rewound (:Reasonix rewind, or /rewind N asked in the
--- chat): its turns leave the chat.
function handlers.rewind(b, ev)
  if type(ev.rewind) == 'table' then
    cut_turns(b, ev.rewind)
  end
end

--- Cuts the chat back to before the turns a rewind took out (those it
--- shows), and says what the rewind did.
---@param plan table the RewindPlan of reasonix.rewind
---@param text string the summary
function M.rewound(plan, text)
  edit(function(b)
    cut_turns(b, plan)
    render.block = nil
    block(b, 'note')
    local ls = split(text)
    ls[1] = '_' .. ls[1] .. '_'
    lines(b, ls)
  end)
end

--- Shows a saved conversation (reasonix/resumeSession's result).
---@param result table
function M.show_history(result)
  M.reset(result.sessionId)
  edit(function(b)
    local in_reply = false
    for _, m in ipairs(result.messages or {}) do
      local content = type(m.content) == 'string' and m.content or ''
      if m.role == 'user' then
        render.block = nil
        heading(b, '## You', content)
        in_reply = false
      elseif m.role == 'assistant' then
        if not in_reply then
          render.block = nil
          heading(b, '## Reasonix')
          render.block = 'heading'
          in_reply = true
        end
        if content ~= '' then
          block(b, 'text')
          write(b, content)
        end
        for _, call in ipairs(m.tool_calls or {}) do
          block(b, 'tools')
          lines(b, { '· ' .. M.describe(call.name or 'tool', call.arguments) })
        end
      end
    end
    local u = result.usage or {}
    local hit, miss = u.cache_hit_tokens or 0, u.cache_miss_tokens or 0
    block(b, 'cost')
    local ratio = hit + miss > 0 and math.floor(hit * 100 / (hit + miss) + 0.5) or 0
    local line = string.format('— resumed · %d%% cache hit', ratio)
    if result.cost and result.cost > 0 then
      line = line .. string.format(' · $%.4f so far', result.cost)
    end
    lines(b, { line })
    render.block = nil
  end)
end

--- The chat's text, for tests and scripts.
---@return string[]
function M.lines()
  return api.nvim_buf_get_lines(M.buffer(), 0, -1, false)
end

return M
