-- The agent's questions (reasonix/ask) and memory: a question is a
-- vim.ui.select of the suggested answers whose last item lets the user
-- type one (vim.ui.input); saving a note is a permission question that
-- shows the note, asked although the rules allow everything; :Reasonix
-- memory lists the notes and opens the one picked.
local H = require('helpers')

local script = [[
call ask {"question": "Keep /v1 for one more release?", "options": ["Keep it, deprecated", "Remove it now"]}
---
expect tool The user picked: Keep it, deprecated
call ask {"question": "Until when?", "options": ["June", "December"]}
---
expect tool The user answered, in their own words: until the 2.0 release
call remember {"scope": "project", "name": "api-policy", "description": "When old API versions go", "content": "Deprecated endpoints stay until the next major release."}
---
expect tool Saved the note project/api-policy
text Kept /v1 until 2.0, and noted the policy.
]]

describe('questions and memory', function()
  it('answers questions with a picker and typed text, saves a note with approval, lists it', function()
    local root = H.workspace(script, { toml = '[permissions]\nmode = "allow"\napproval = "yolo"\nallow = ["remember"]\n' })
    H.setup()
    H.open(root, 'calc.go')
    local calls = H.stub_select(function(items, opts)
      if opts.prompt == 'Reasonix asks: Keep /v1 for one more release?' then
        return 'Keep it, deprecated'
      elseif opts.prompt == 'Reasonix asks: Until when?' then
        return items[#items]
      elseif opts.kind == 'reasonix.approval' then
        return 'Allow once'
      end
      return items[1]
    end)
    H.stub_input('  until the 2.0 release ')
    vim.cmd('Reasonix ask Drop the v1 endpoint?')
    H.wait_turn_done()

    H.eq(3, #calls, 'pickers shown')
    H.eq({ 'Keep it, deprecated', 'Remove it now', 'Answer in my own words…' }, calls[1].items, 'the first question')
    H.eq({ 'June', 'December', 'Answer in my own words…' }, calls[2].items, 'the second question')
    H.eq(H.ACTIONS, calls[3].items, 'the permission question')
    local msg = calls[3].opts.prompt
    H.truthy(msg:find('Save the note project/api-policy', 1, true), 'the note in the question:\n' .. msg)
    H.truthy(msg:find('Deprecated endpoints stay until the next major release.', 1, true), 'its content:\n' .. msg)
    local note = root .. '/.reasonix/memory/api-policy.md'
    H.truthy((H.read(note) or ''):find('Deprecated endpoints stay', 1, true), 'the note on disk')

    calls = H.stub_select(function(items)
      return items[1]
    end)
    vim.cmd('Reasonix memory')
    H.wait('the note to open', function()
      return vim.api.nvim_buf_get_name(0) == note
    end)
    H.eq('reasonix.memory', calls[1].opts.kind, 'the picker kind')
    H.eq('project/api-policy  When old API versions go', calls[1].opts.format_item(calls[1].items[1]), 'the note as listed')
  end)
end)
