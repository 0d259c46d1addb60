-- :Reasonix sessions lists the saved sessions with vim.ui.select, and
-- resuming one shows its history in the chat and continues it.
local H = require('helpers')

local script = [[
match first question
text First answer.
---
match second question
text Second answer.
---
match follow up
# The resumed session's history goes with the request.
expect request First answer.
text Continued where we left off.
]]

describe('sessions', function()
  it('lists sessions, resumes one with its history, and continues it', function()
    local root = H.workspace(script)
    H.setup()
    H.open(root, 'calc.go')
    local state = require('reasonix.state')

    vim.cmd('Reasonix ask first question')
    H.wait_turn_done()
    local first = state.session

    vim.cmd('Reasonix new')
    H.wait('a new session', function()
      return state.session ~= nil and state.session ~= first
    end)
    H.truthy(not H.chat_text():find('First answer.', 1, true), 'the chat was emptied')
    vim.cmd('Reasonix ask second question')
    H.wait_turn_done()
    local second = state.session

    local calls = H.stub_select(function(items)
      for _, s in ipairs(items) do
        if s.id == first then
          return s
        end
      end
    end)
    vim.cmd('Reasonix sessions')
    H.wait('the session picker', function()
      return #calls == 1
    end)
    local ids = vim.tbl_map(function(s)
      return s.id
    end, calls[1].items)
    H.truthy(vim.tbl_contains(ids, first) and vim.tbl_contains(ids, second), 'both sessions listed: ' .. vim.inspect(ids))
    local shown = calls[1].opts.format_item(calls[1].items[1])
    H.truthy(shown:find('second question', 1, true), 'newest first, shown by title: ' .. shown)

    H.wait('the history', function()
      return state.session == first and H.chat_text():find('First answer.', 1, true) ~= nil
    end)
    local text = H.chat_text()
    H.truthy(text:find('## You\nfirst question', 1, true), 'the old prompt:\n' .. text)
    H.truthy(text:find('\n— resumed · ', 1, true), 'the resumed line:\n' .. text)
    H.truthy(not text:find('Second answer.', 1, true), 'only that session:\n' .. text)

    vim.cmd('Reasonix ask follow up')
    H.wait('the continued turn', function()
      return H.chat_text():find('Continued where we left off.', 1, true) ~= nil
    end)
    H.wait_turn_done()
    H.eq(first, state.session, 'the session asked in')
  end)

  it('resumes by id, and completes ids after :Reasonix resume', function()
    local root = H.workspace(script)
    H.setup()
    H.open(root, 'calc.go')
    local state = require('reasonix.state')
    vim.cmd('Reasonix ask first question')
    H.wait_turn_done()
    local first = state.session
    vim.cmd('Reasonix new')
    H.wait('a new session', function()
      return state.session ~= first
    end)

    local completions = vim.fn.getcompletion('Reasonix resume ', 'cmdline')
    H.truthy(vim.tbl_contains(completions, first), 'completions: ' .. vim.inspect(completions))
    H.eq({ 'resume' }, vim.fn.getcompletion('Reasonix res', 'cmdline'), 'subcommand completion')

    vim.cmd('Reasonix resume ' .. first)
    H.wait('the history', function()
      return state.session == first and H.chat_text():find('First answer.', 1, true) ~= nil
    end)
  end)
end)
