-- Slash commands from Neovim: `:Reasonix ask /` and the prompt of
-- vim.ui.input complete the server's commands (reasonix/listCommands), a
-- custom command gets the selection after its expanded text, /help is
-- answered without the model, a typo is one error, and /new and /clear
-- (once confirmed) move the chat to a new session.
local H = require('helpers')

local script = [[
expect user Review the selection for bugs.
expect user The user's selection in calc.go
expect user func Add(a, b int) int {
text One bug: Add subtracts.
]]

local review = '---\ndescription: Review the selection\nargument-hint: [focus]\n---\nReview the selection for bugs.\n'

describe('commands', function()
  it('completes, expands and performs slash commands', function()
    local root = H.workspace(script, { files = { ['.reasonix/commands/review.md'] = review } })
    H.setup()
    H.open(root, 'calc.go')
    local state = require('reasonix.state')
    local commands = require('reasonix.commands')

    H.eq({ '/rewind', '/review' }, vim.fn.getcompletion('Reasonix ask /re', 'cmdline'), 'completions of :Reasonix ask')
    H.eq({ '/help' }, commands.complete_prompt('/he', '/he'), 'completions of the prompt')
    H.eq({}, commands.complete_prompt('why /he', 'why /he'), 'only the first word')

    -- Lines 4-6 hold Add; the server checks (expect user) that they follow
    -- the command's text.
    vim.cmd('4,6Reasonix ask /review')
    H.wait('the answer to /review', function()
      return H.chat_text():find('One bug: Add subtracts.', 1, true) ~= nil
    end)
    H.wait_turn_done()
    local first = state.session

    vim.cmd('Reasonix ask /help')
    H.wait('the help', function()
      local text = H.chat_text()
      return text:find('/review', 1, true) ~= nil and text:find('— answered without the model', 1, true) ~= nil
    end)

    -- A typo is told once, by the server, and in the chat.
    local before = #H.notifications
    vim.cmd('Reasonix ask /reveiw calc.go')
    H.wait('the error in the chat', function()
      return H.chat_text():find('/reveiw: no such command; /help lists them', 1, true) ~= nil
    end)
    H.wait_turn_done()
    vim.wait(200, function() return false end, 10)
    local errors = {}
    for i = before + 1, #H.notifications do
      local n = H.notifications[i]
      if n.level == vim.log.levels.ERROR then
        table.insert(errors, n.msg)
      end
    end
    H.eq(1, #errors, 'error notifications: ' .. table.concat(errors, ' | '))

    vim.cmd('Reasonix ask /new')
    H.wait('a new session', function()
      return state.session ~= first
    end)
    local second = state.session
    H.truthy(H.chat_text():find('stays saved', 1, true), 'the chat says so:\n' .. H.chat_text())

    local asked = H.stub_select('Keep it')
    vim.cmd('Reasonix ask /clear')
    H.wait('the question', function()
      return #asked == 1
    end)
    H.eq({ 'Clear conversation', 'Keep it' }, asked[1].items, 'the answers offered')
    H.wait('the conversation kept', function()
      for _, n in ipairs(H.notifications) do
        if n.msg:find('The conversation was kept.', 1, true) then
          return true
        end
      end
      return false
    end)
    H.eq(second, state.session, 'the session after keeping it')

    H.stub_select('Clear conversation')
    vim.cmd('Reasonix ask /clear')
    H.wait('the cleared session', function()
      return state.session ~= second
    end)
    H.truthy(H.chat_text():find('was deleted', 1, true), 'the chat says so:\n' .. H.chat_text())
  end)
end)
