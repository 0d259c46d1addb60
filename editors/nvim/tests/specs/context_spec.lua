-- How full the context window is and the todo list: the statusline
-- component, the chat's cost line and checklist, from the events of the
-- real server (usage, todo, turn_done) and from events delivered here.
local H = require('helpers')

local script = [[
call todo_write {"todos": [{"content": "Read calc.go", "status": "in_progress", "activeForm": "Reading calc.go"}, {"content": "Fix Add", "status": "pending"}]}
---
call todo_write {"todos": [{"content": "Read calc.go", "status": "completed"}, {"content": "Fix Add", "status": "completed"}]}
---
text Fixed.
]]

--- Delivers an event of session sid as the server's reasonix/event.
local function deliver(sid, ev)
  ev.sessionId = sid
  require('reasonix.handlers').event(nil, ev, { client_id = 1 })
end

describe('context and todo', function()
  it('the statusline says how full the window is, and the step in hand while a turn runs', function()
    local state = require('reasonix.state')
    state.client_id, state.session = 1, 'S1'
    require('reasonix.chat').reset('S1')
    local statusline = require('reasonix').statusline
    H.eq('', statusline(), 'nothing known yet')
    deliver('S1', { kind = 'turn_start', turn = 1, text = 'fix Add' })
    deliver('S1', { kind = 'usage', turn = 1, usage = { model = 'm', contextWindow = 128000, contextTokens = 53760 } })
    H.eq('42% of context', statusline(), 'after a usage event')
    deliver('S1', { kind = 'todo', turn = 1, todos = { { content = 'Fix Add', status = 'in_progress', activeForm = 'Fixing Add' } } })
    H.eq('→ Fixing Add · 42% of context', statusline(), 'with the step in hand')
    -- A sub-task's requests fill a window of their own.
    deliver('S1', { kind = 'usage', turn = 1, parent = 'call_1', usage = { model = 'm', contextWindow = 128000, contextTokens = 1000 } })
    H.eq('→ Fixing Add · 42% of context', statusline(), 'after a sub-task\'s usage')
    deliver('S1', { kind = 'turn_done', turn = 1, done = { stop = 'done', steps = 1, toolCalls = 1, usage = {}, contextWindow = 128000, contextTokens = 140000 } })
    H.eq('100% of context', statusline(), 'after the turn, without the step')
    local text = table.concat(require('reasonix.chat').lines(), '\n')
    H.truthy(text:find('_todo 0/1:_\n- [ ] → Fixing Add', 1, true), 'the checklist in the chat:\n' .. text)
    H.truthy(text:find(' · 100% of context', 1, true), 'the cost line:\n' .. text)
  end)

  it('from the real server: the checklist as it changes, and the cost line', function()
    local root = H.workspace(script, { toml = 'context_window = 64000\n' })
    H.setup()
    H.open(root, 'calc.go')
    vim.cmd('Reasonix ask fix Add')
    H.wait_turn_done()
    local text = H.chat_text()
    H.truthy(text:find('_todo 0/2:_\n- [ ] → Reading calc.go\n- [ ] Fix Add', 1, true), 'the first list:\n' .. text)
    H.truthy(text:find('_todo 2/2:_\n- [x] Read calc.go\n- [x] Fix Add', 1, true), 'the second list:\n' .. text)
    H.truthy(text:find(' · %d+%% of context'), 'the cost line says how full the window is:\n' .. text)
    H.truthy(require('reasonix').statusline():find('^%d+%% of context$'), 'the statusline: ' .. require('reasonix').statusline())
  end)
end)
