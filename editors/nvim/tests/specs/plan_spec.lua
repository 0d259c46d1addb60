-- A planner's plan in the chat buffer: the notice that carries it spans
-- several lines (a heading line, a blank line, the plan's steps), and
-- each shows as a line of the chat before the plan is approved.
local H = require('helpers')

local script = [[
expect request "model":"planner-model"
expect system Reasonix's planner
text 1. Read calc.go.
text 2. Make Add return a + b.
---
expect request "model":"deepseek-flash"
expect user <plan>
expect user The user approved it.
text Add now adds.
]]

describe('plan', function()
  it('shows a multi-line plan notice in the chat before asking to approve it', function()
    local root = H.workspace(script, { toml = '\n[agent]\nplanner_model = "scripted/planner-model"\n' })
    H.setup()
    local chat_at_question
    local calls = H.stub_select(function(items)
      chat_at_question = H.chat_text()
      return items[1]
    end)
    H.open(root, 'calc.go')

    vim.cmd('Reasonix chat')
    vim.cmd('wincmd p')
    vim.cmd('Reasonix ask Fix Add')
    H.wait_turn_done()

    H.eq(1, #calls, 'questions asked')
    H.eq('Approve plan', calls[1].items[1], 'the first action')
    H.truthy(calls[1].opts.prompt:find('2. Make Add return a + b.', 1, true), 'the plan in the question: ' .. calls[1].opts.prompt)
    H.truthy(chat_at_question, 'the chat when the plan was asked about')
    for _, want in ipairs({ '1. Read calc.go.', '2. Make Add return a + b.' }) do
      H.truthy(chat_at_question:find('\n' .. want .. '\n', 1, true), 'a line of the plan in the chat before the question: ' .. want .. '\n' .. chat_at_question)
    end
    H.truthy(chat_at_question:find('\n_plan by scripted/planner%-model %(%d+ model requests?, [%d.]+k? tokens%):_\n'), 'the plan notice heading:\n' .. chat_at_question)
    H.truthy(H.chat_text():find('\nAdd now adds.', 1, true), 'the executor answer:\n' .. H.chat_text())
  end)
end)
