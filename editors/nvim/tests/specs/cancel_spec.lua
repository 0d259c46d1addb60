-- :Reasonix cancel stops a slow turn within a second.
local H = require('helpers')

-- About 3 KB of text at 50 ms a chunk of at most 12 bytes: a turn of
-- well over ten seconds unless it is cancelled.
local long = {}
for i = 1, 40 do
  table.insert(long, 'text Line ' .. i .. ' of an answer that takes its time to stream, word by word, chunk by chunk.')
end
local script = 'delay 50ms\n' .. table.concat(long, '\n') .. '\n'

describe('cancel', function()
  it('stops a streaming turn within a second', function()
    local root = H.workspace(script)
    H.setup()
    H.open(root, 'calc.go')
    vim.cmd('Reasonix ask Tell me a long story')
    H.wait('the answer to start streaming', function()
      return H.chat_text():find('Line 1 of an answer', 1, true) ~= nil
    end)
    local state = require('reasonix.state')
    H.truthy(state.running[state.session], 'the turn is running')

    local t0 = H.uv.hrtime()
    vim.cmd('Reasonix cancel')
    H.wait('the turn to end', function()
      return not state.running[state.session]
    end, 1000)
    local ms = (H.uv.hrtime() - t0) / 1e6
    H.truthy(ms < 1000, string.format('cancelled in %.0f ms', ms))

    local lines = require('reasonix.chat').lines()
    H.truthy(lines[#lines - 1]:match('^— cancelled · '), 'the closing line: ' .. lines[#lines - 1])
    H.truthy(not H.chat_text():find('Line 40', 1, true), 'the answer stopped')
    -- Nothing streams after the end.
    local before = H.chat_text()
    vim.wait(300)
    H.eq(before, H.chat_text(), 'the chat after 300 ms')
  end)

  it('says so when nothing runs', function()
    vim.cmd('Reasonix cancel')
    H.truthy(H.notifications[1] and H.notifications[1].msg:find('nothing to cancel', 1, true), 'the notification')
  end)
end)
