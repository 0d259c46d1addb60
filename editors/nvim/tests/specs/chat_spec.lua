-- :Reasonix chat and :Reasonix ask: the chat buffer fills from the
-- reasonix/event stream — the prompt, the streamed answer, a tool row and
-- the cost line — and a range attaches the selected code.
local H = require('helpers')

local script = [[
expect user What does this module do?
text I'll run the tests first.
call bash {"command": "go test ./..."}
---
expect tool Exit code: 1
text The module adds and subtracts.
text TestAdd fails because Add subtracts.
---
expect user Explain this
expect user func Add(a, b int) int {
expect user return a - b
text It returns a minus b, not a plus b.
]]

local cost_pattern = '^— %d+ requests? · %d+ tool calls? · %d+%% cache hit'

--- A fresh chat for session sid, and a function that delivers an event
--- of that session to it.
local function session_chat(sid)
  local chat = require('reasonix.chat')
  local state = require('reasonix.state')
  state.client_id, state.session = 1, sid
  chat.reset(sid)
  return chat, function(e)
    e.sessionId = sid
    chat.on_event(1, e)
  end
end

describe('chat', function()
  it('streams a turn into the chat: prompt, text, tool row, cost line', function()
    -- The setting reaches the server as initializationOptions: without it
    -- the command would need an approval.
    local root = H.workspace(script)
    H.setup({ settings = { permissions = { allow = { 'Bash(go test:*)' } } } })
    local calls = H.stub_select('Deny')
    H.open(root, 'calc.go')

    vim.cmd('Reasonix chat')
    local chat_win = vim.api.nvim_get_current_win()
    local chat_buf = vim.api.nvim_get_current_buf()
    H.eq('reasonix://chat', vim.api.nvim_buf_get_name(chat_buf), 'the chat buffer')
    H.eq('markdown', vim.bo[chat_buf].filetype, 'its filetype')
    H.eq('nofile', vim.bo[chat_buf].buftype, 'its buftype')
    H.eq(2, #vim.api.nvim_tabpage_list_wins(0), 'windows')
    vim.cmd('wincmd p')

    -- Another plugin's $/progress handler (fidget, a statusline) still
    -- sees Reasonix's progress.
    local global_progress = vim.lsp.handlers['$/progress']
    local kinds = {}
    vim.lsp.handlers['$/progress'] = function(err, result, ctx, config)
      table.insert(kinds, result.value.kind)
      return global_progress(err, result, ctx, config)
    end

    vim.cmd('Reasonix ask What does this module do?')
    H.wait_turn_done()
    -- The progress ends after the turn_done event, not before.
    H.wait('the progress to end', function()
      return kinds[#kinds] == 'end'
    end)
    vim.lsp.handlers['$/progress'] = global_progress
    H.eq(0, #calls, 'approvals asked (the setting allows go test)')
    H.eq('begin', kinds[1], 'the first progress the global handler saw')
    H.eq('end', kinds[#kinds], 'the last')
    H.truthy(H.notifications[1].msg:find('^Reasonix: What does this module do%?'), 'notified start: ' .. H.notifications[1].msg)

    local lines = require('reasonix.chat').lines()
    local text = table.concat(lines, '\n')
    H.truthy(text:find('## You\nWhat does this module do?\n', 1, true), 'the prompt:\n' .. text)
    H.truthy(text:find("## Reasonix\nI'll run the tests first.\n", 1, true), 'the first text:\n' .. text)
    H.truthy(text:find('\n✗ bash go test ./... — exit 1\n', 1, true), 'the tool row:\n' .. text)
    H.truthy(text:find('\nThe module adds and subtracts.\nTestAdd fails because Add subtracts.', 1, true), 'the answer:\n' .. text)
    H.eq('', lines[#lines], 'the last line (where streaming continues)')
    local cost = lines[#lines - 1]
    H.truthy(cost:match(cost_pattern), 'the cost line: ' .. cost)
    H.truthy(cost:match('^— 2 requests · 1 tool call · '), 'the counts: ' .. cost)
    H.truthy(cost:match(' · %$%d+%.%d%d%d%d$'), 'the cost: ' .. cost)
    -- The chat window follows the stream.
    H.eq(#lines, vim.api.nvim_win_get_cursor(chat_win)[1], 'the chat cursor line')
  end)

  it('attaches the selected lines to the prompt and continues the session', function()
    local root = H.workspace(script)
    H.setup({ settings = { permissions = { allow = { 'Bash(go test:*)' } } } })
    H.open(root, 'calc.go')
    vim.cmd('Reasonix ask What does this module do?')
    H.wait_turn_done()
    local session = require('reasonix.state').session

    -- Lines 4-6 hold Add; the server checks (expect user) that they came.
    vim.cmd('4,6Reasonix ask Explain this')
    H.wait('the second turn', function()
      return H.chat_text():find('It returns a minus b, not a plus b.', 1, true) ~= nil
    end)
    H.wait_turn_done()
    H.eq(session, require('reasonix.state').session, 'the session')
    local _, n = H.chat_text():gsub('\n— %d+ request', '')
    H.eq(2, n, 'cost lines')
    H.truthy(H.chat_text():find('## You\nExplain this\n', 1, true), 'the second prompt')
  end)

  it('asks for a prompt with vim.ui.input when none is given', function()
    local root = H.workspace(script)
    H.setup({ settings = { permissions = { allow = { 'Bash(go test:*)' } } } })
    H.open(root, 'calc.go')
    H.stub_input('What does this module do?')
    vim.cmd('Reasonix ask')
    H.wait_turn_done()
    H.truthy(H.chat_text():find('TestAdd fails because Add subtracts.', 1, true), 'the answer')
  end)

  it('renders events: reasoning hidden by default, retries take back their text', function()
    local chat, ev = session_chat('s1')
    ev({ kind = 'turn_start', turn = 1, text = 'hi' })
    ev({ kind = 'reasoning', step = 1, text = 'thinking' })
    ev({ kind = 'text', step = 1, text = 'Hel' })
    ev({ kind = 'text', step = 1, text = 'lo\nwor' })
    ev({ kind = 'retry', step = 1, text = 'the model timed out' })
    ev({ kind = 'text', step = 1, text = 'Hello again.' })
    ev({ kind = 'tool_start', step = 2, tool = { callId = 'c1', name = 'read_file', title = 'read_file calc.go' } })
    ev({ kind = 'tool_start', step = 2, tool = { callId = 'c2', name = 'bash', title = 'bash ls' } })
    ev({ kind = 'tool_result', step = 2, tool = { callId = 'c2', name = 'bash', title = 'bash ls', summary = 'exit 0' } })
    ev({ kind = 'tool_result', step = 2, tool = { callId = 'c1', name = 'read_file', title = 'read_file calc.go', isError = true, summary = 'not found' } })
    ev({ kind = 'turn_done', done = { stop = 'cancelled', steps = 2, toolCalls = 2, usage = { cache_hit_tokens = 90, cache_miss_tokens = 10 } } })
    chat.on_event(1, { kind = 'text', sessionId = 'other', text = 'not ours' })
    local want = {
      '# Reasonix · session s1',
      '',
      '## You',
      'hi',
      '',
      '## Reasonix',
      '_Retrying: the model timed out_',
      '',
      'Hello again.',
      '',
      '✗ read_file calc.go — not found',
      '✓ bash ls — exit 0',
      '',
      '— cancelled · 2 requests · 2 tool calls · 90% cache hit',
      '',
    }
    H.eq(want, chat.lines(), 'the chat')
  end)
  it('shows the progress of a running tool on its row', function()
    local chat, ev = session_chat('s3')
    local tool = { callId = 'c1', name = 'mcp__x__build', title = 'mcp__x__build' }
    local function row()
      for _, l in ipairs(chat.lines()) do
        if l:find('mcp__x__build', 1, true) then
          return l
        end
      end
    end
    ev({ kind = 'turn_start', turn = 1, text = 'build it' })
    ev({ kind = 'tool_start', step = 1, tool = tool })
    ev({ kind = 'tool_progress', step = 1, tool = tool, text = '1/3' })
    ev({ kind = 'tool_progress', step = 1, tool = tool, text = 'Linking (2/3)' })
    H.eq('… mcp__x__build — Linking (2/3)', row(), 'the running row')
    ev({ kind = 'tool_result', step = 1, tool = { callId = 'c1', name = 'mcp__x__build', title = 'mcp__x__build', summary = 'built' } })
    ev({ kind = 'tool_progress', step = 1, tool = tool, text = '3/3' }) -- late: ignored
    H.eq('✓ mcp__x__build — built', row(), 'the finished row')
  end)

  it('keeps a row on one line and shows a text of several lines as lines', function()
    local chat, ev = session_chat('s3b')
    local tool = { callId = 'c1', name = 'mcp__x__build', title = 'mcp__x__build' }
    ev({ kind = 'turn_start', turn = 1, text = 'build it' })
    ev({ kind = 'tool_start', step = 1, tool = tool })
    ev({ kind = 'tool_progress', step = 1, tool = tool, text = 'compiling\nlinking' })
    H.truthy(H.chat_text():find('\n… mcp__x__build — compiling linking\n', 1, true), 'the running row:\n' .. H.chat_text())
    ev({ kind = 'tool_result', step = 1, tool = { callId = 'c1', name = 'mcp__x__build', title = 'mcp__x__build', summary = 'built\n2 warnings' } })
    H.truthy(H.chat_text():find('\n✓ mcp__x__build — built 2 warnings\n', 1, true), 'the finished row:\n' .. H.chat_text())
    ev({ kind = 'retry', step = 2, text = 'timeout\nretrying in 1s' })
    H.truthy(H.chat_text():find('\n_Retrying: timeout retrying in 1s_\n', 1, true), 'the retry note:\n' .. H.chat_text())
    ev({ kind = 'approval', tool = 'bash', message = 'Reasonix wants to run\n`make`' })
    H.truthy(H.chat_text():find('\n? Reasonix wants to run `make` — waiting for your answer\n', 1, true), 'the approval row:\n' .. H.chat_text())
    ev({ kind = 'error', error = 'request failed:\nconnection reset' })
    H.truthy(H.chat_text():find('\n**Error:** request failed:\nconnection reset\n', 1, true), 'the error:\n' .. H.chat_text())
    chat.note('first\nsecond')
    H.truthy(H.chat_text():find('\nfirst\nsecond\n', 1, true), 'the note:\n' .. H.chat_text())
  end)

  it('shows a compaction as a note', function()
    local chat, ev = session_chat('s4')
    ev({ kind = 'turn_start', turn = 1, text = 'go on' })
    ev({
      kind = 'compaction',
      turn = 1,
      step = 1,
      text = 'compacted: 41k → 6.2k tokens, 38 messages archived',
      compaction = { reason = 'threshold', before = 41210, after = 6230, archived = 38 },
    })
    local lines = chat.lines()
    H.eq('_compacted: 41k → 6.2k tokens, 38 messages archived_', lines[#lines - 1], 'the note')
  end)

  it("names the turn's reasoning effort on its cost line", function()
    local chat = require('reasonix.chat')
    local done = { steps = 1, toolCalls = 0, cacheHitRatio = 0.5, priced = true, cost = 0.0012 }
    H.eq('— 1 request · 0 tool calls · 50% cache hit · $0.0012', chat.cost_line(done), 'without an effort')
    done.effort = 'high'
    H.eq('— 1 request · 0 tool calls · 50% cache hit · $0.0012 · effort high', chat.cost_line(done), 'with one')
  end)

  it('shows the files a shell command changed and the check of the edits as notes', function()
    local chat, ev = session_chat('s6')
    ev({ kind = 'turn_start', turn = 1, text = 'fix it' })
    ev({ kind = 'file_changed', turn = 1, step = 1, file = { path = 'calc.go', status = 'modified', source = 'shell', before = 'x' } })
    ev({ kind = 'file_changed', turn = 1, step = 1, file = { path = 'sub.go', status = 'created', source = 'tool' } })
    ev({ kind = 'check', turn = 1, step = 2, text = 'checked: still 1 new error in calc.go' })
    local text = table.concat(chat.lines(), '\n')
    H.truthy(text:find('_modified calc.go (shell)_', 1, true), 'the shell change:\n' .. text)
    H.truthy(not text:find('sub.go', 1, true), "an edit's change, which the edit showed:\n" .. text)
    H.truthy(text:find('_checked: still 1 new error in calc.go_', 1, true), 'the check:\n' .. text)
  end)

  it("shows a sub-task's calls indented under its task", function()
    local chat, ev = session_chat('s5')
    local read = { callId = 'c1', name = 'read_file', title = 'read_file main.go' }
    ev({ kind = 'turn_start', turn = 1, text = 'look' })
    ev({ kind = 'tool_start', step = 1, tool = { callId = 'c1', name = 'task', title = 'task look' } })
    ev({ kind = 'tool_start', step = 1, parent = 'c1', tool = read })
    ev({ kind = 'tool_progress', step = 1, parent = 'c1', tool = read, text = 'reading' })
    ev({ kind = 'tool_result', step = 1, parent = 'c1', tool = read })
    ev({ kind = 'tool_result', step = 1, tool = { callId = 'c1', name = 'task', title = 'task look', summary = 'done' } })
    local lines = chat.lines()
    H.eq({ '✓ task look — done', '  ↳ ✓ read_file main.go' }, vim.list_slice(lines, #lines - 2, #lines - 1), 'the rows')
  end)

  it('shows reasoning as a quote when asked to', function()
    H.setup({ chat = { reasoning = 'show' } })
    local chat, ev = session_chat('s2')
    ev({ kind = 'turn_start', turn = 1, text = 'hi' })
    ev({ kind = 'reasoning', step = 1, text = 'First I' })
    ev({ kind = 'reasoning', step = 1, text = ' think.\nThen I act.' })
    ev({ kind = 'text', step = 1, text = 'Done.' })
    local lines = chat.lines()
    H.eq({ '## Reasonix', '> First I think.', '> Then I act.', '', 'Done.' }, vim.list_slice(lines, #lines - 4), 'the end of the chat')
  end)

  it('opens at the bottom when configured, and keeps one chat window', function()
    H.setup({ chat = { position = 'bottom', height = 8 } })
    vim.cmd('Reasonix chat')
    local win = vim.api.nvim_get_current_win()
    H.eq(8, vim.api.nvim_win_get_height(win), 'height')
    H.eq(vim.o.columns, vim.api.nvim_win_get_width(win), 'full width')
    vim.cmd('wincmd p')
    vim.cmd('Reasonix chat')
    H.eq(win, vim.api.nvim_get_current_win(), 'the same window, focused')
    H.eq(2, #vim.api.nvim_tabpage_list_wins(0), 'windows')
  end)
end)
