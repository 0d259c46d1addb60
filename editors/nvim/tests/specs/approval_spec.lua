-- Permission questions (reasonix/approve) answered through vim.ui.select:
-- Deny leaves the file alone; a picker that answers later does not hold up
-- the editor, because the handler yields (see lua/reasonix/async.lua).
local H = require('helpers')

local script = [[
call edit_file {"path": "calc.go", "old_string": "func Add(a, b int) int {\n\treturn a - b", "new_string": "func Add(a, b int) int {\n\treturn a + b"}
---
expect tool Permission denied
text I left calc.go alone.
]]

local allowed_script = [[
call edit_file {"path": "calc.go", "old_string": "func Add(a, b int) int {\n\treturn a - b", "new_string": "func Add(a, b int) int {\n\treturn a + b"}
---
expect tool Edited calc.go
text Fixed.
]]

describe('approvals', function()
  it('Deny: no edit, in the buffer or on disk', function()
    local root = H.workspace(script)
    H.setup()
    local bufnr = H.open(root, 'calc.go')
    local calls = H.stub_select('Deny')
    vim.cmd('Reasonix ask Fix Add')
    H.wait_turn_done()

    H.eq(1, #calls, 'vim.ui.select calls')
    H.eq(H.ACTIONS, calls[1].items, 'the actions offered')
    H.eq('reasonix.approval', calls[1].opts.kind, 'the picker kind')
    H.eq(H.calc_go, H.buffer_text(bufnr), 'the buffer')
    H.eq(H.calc_go, H.read(root .. '/calc.go'), 'calc.go on disk')
    H.eq(false, vim.bo[bufnr].modified, "'modified'")
    local text = H.chat_text()
    H.truthy(text:find('\n⊘ edit_file calc.go — denied\n', 1, true), 'the denied row:\n' .. text)
    H.truthy(not text:find('\n[?…] '), 'no question or call left open:\n' .. text)
  end)

  it('dismissing the picker is Deny too', function()
    local root = H.workspace(script)
    H.setup()
    local bufnr = H.open(root, 'calc.go')
    H.stub_select(nil)
    vim.cmd('Reasonix ask Fix Add')
    H.wait_turn_done()
    H.eq(H.calc_go, H.buffer_text(bufnr), 'the buffer')
    H.truthy(H.chat_text():find('\n⊘ edit_file calc.go — denied\n', 1, true), 'the denied row')
  end)

  it('an asynchronous picker does not block the event loop while it is open', function()
    local root = H.workspace(allowed_script)
    H.setup()
    local bufnr = H.open(root, 'calc.go')
    local calls = H.stub_select('Allow once', { delay_ms = 400 })
    local ticks, seen_open = 0, false
    local timer = H.uv.new_timer()
    timer:start(20, 20, vim.schedule_wrap(function()
      ticks = ticks + 1
    end))

    vim.cmd('Reasonix ask Fix Add')
    -- This predicate runs only when control is back in this loop: if it
    -- sees the picker open and unanswered, the handler did not hold the
    -- loop while waiting.
    H.wait('the picker to be open while the loop runs', function()
      seen_open = #calls == 1 and not calls[1].answered
      return seen_open
    end)
    local ticks_at_open = ticks
    H.truthy(H.chat_text():find('\n? edit_file calc.go — waiting for your answer\n', 1, true), 'the open question in the chat:\n' .. H.chat_text())
    H.wait_turn_done()
    timer:stop()
    timer:close()

    H.truthy(require('reasonix.async').requests_yieldable(), 'server requests run in coroutines')
    H.truthy(ticks > ticks_at_open, 'timers ran while the picker was open')
    H.truthy(H.chat_text():find('\n✓ edit_file calc.go — replaced 1 occurrence\n', 1, true), 'the row after the answer:\n' .. H.chat_text())
    H.eq(H.calc_fixed, H.buffer_text(bufnr), 'the buffer after Allow once')
  end)

  it('window/showMessageRequest uses vim.ui.select too', function()
    local handlers = require('reasonix.handlers')
    local calls = H.stub_select('Allow for session')
    local actions = vim.tbl_map(function(t)
      return { title = t }
    end, H.ACTIONS)
    local got = handlers.show_message_request(nil, { type = 2, message = 'May I?', actions = actions }, { client_id = 0 })
    H.eq({ title = 'Allow for session' }, got, 'the answer')
    H.eq(H.ACTIONS, calls[1].items, 'the titles offered')
    H.eq('May I?', calls[1].opts.prompt, 'the prompt')
    H.stub_select(nil)
    H.eq(vim.NIL, handlers.show_message_request(nil, { type = 2, message = 'May I?', actions = actions }, { client_id = 0 }), 'dismissed')
    H.eq(vim.NIL, handlers.approve(nil, { message = 'May I?', actions = H.ACTIONS }, { client_id = 0 }), 'reasonix/approve dismissed')
  end)
  it('asks one question at a time when two arrive together', function()
    local handlers = require('reasonix.handlers')
    local calls = H.stub_select('Allow once', { delay_ms = 100 })
    local results = {}
    for i = 1, 2 do
      coroutine.wrap(function()
        results[i] = handlers.approve(nil, { message = 'question ' .. i, actions = H.ACTIONS }, { client_id = 0 })
      end)()
    end
    H.eq(1, #calls, 'pickers open at first')
    H.wait('both answers', function()
      return results[1] ~= nil and results[2] ~= nil
    end)
    H.eq(2, #calls, 'pickers opened')
    H.eq('question 2', calls[2].opts.prompt, 'the second question, after the first')
    H.eq({ action = 'Allow once' }, results[2], 'its answer')
  end)
end)
