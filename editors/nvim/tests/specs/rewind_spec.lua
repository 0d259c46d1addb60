-- :Reasonix rewind: a two-turn session (turn 1 edits the open calc.go,
-- turn 2 creates notes.txt with a shell command) is put back to before a
-- turn, given by number or picked from the session's checkpoints. The
-- open buffer changes through one applyEdit, which `u` undoes; the file
-- the shell created is removed; the chat is cut back to before the turn.
local H = require('helpers')

local script = [[
match fix Add
call edit_file {"path": "calc.go", "old_string": "return a - b\n}\n\n// Sub", "new_string": "return a + b\n}\n\n// Sub"}
---
match fix Add
text Add adds now.
---
match write notes
call bash {"command": "printf 'remember the sign\\n' > notes.txt"}
---
match write notes
text Wrote notes.txt.
]]

--- Runs the two turns in a fresh workspace with calc.go open, answering
--- permission questions "Allow once" and the rewind picker with pick.
---@param pick fun(items: table[]): table|nil
---@return string root
---@return integer bufnr
---@return table calls the vim.ui.select calls
local function two_turns(pick)
  local root = H.workspace(script)
  H.setup()
  local calls = H.stub_select(function(items, opts)
    if opts.kind == 'reasonix.turn' then
      return pick(items)
    end
    return 'Allow once'
  end)
  local bufnr = H.open(root, 'calc.go')
  vim.cmd('Reasonix ask fix Add')
  H.wait_turn_done()
  H.eq(H.calc_fixed, H.buffer_text(bufnr), 'calc.go after turn 1')
  vim.cmd('Reasonix ask write notes')
  H.wait('turn 2', function()
    return H.chat_text():find('Wrote notes.txt.', 1, true) ~= nil
  end)
  H.wait_turn_done()
  H.eq('remember the sign\n', H.read(root .. '/notes.txt'), 'notes.txt after turn 2')
  return root, bufnr, calls
end

describe('rewind', function()
  it(':Reasonix rewind 1 puts the buffer and the shell-created file back, undoable', function()
    local root, bufnr = two_turns(function()
      error('no picker with a turn given')
    end)
    -- Headless, no key is typed between the edits: close the turn's undo
    -- block as the user's next keys would.
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd('let &undolevels = &undolevels')
    end)
    local shown = {}
    local global = vim.lsp.handlers['window/showMessage']
    vim.lsp.handlers['window/showMessage'] = function(err, result, ctx, cfg)
      table.insert(shown, result.message)
      return global(err, result, ctx, cfg)
    end
    vim.cmd('Reasonix rewind 1')
    local told
    H.wait('the rewind', function()
      told = H.notified('Rewound to before turn 1')
      return told ~= nil
    end)
    H.truthy(told.msg:find('2 turns cut', 1, true), 'the turns cut: ' .. told.msg)
    H.truthy(told.msg:find('1 file restored', 1, true), 'calc.go restored: ' .. told.msg)
    H.truthy(told.msg:find('1 file removed', 1, true), 'notes.txt removed: ' .. told.msg)
    H.eq(vim.log.levels.INFO, told.level, 'no conflict, so no warning')
    H.eq(H.calc_go, H.buffer_text(bufnr), 'the open buffer before turn 1')
    H.eq(nil, H.read(root .. '/notes.txt'), 'notes.txt is gone')

    -- The chat no longer shows the turns, and says what happened.
    local text = H.chat_text()
    H.truthy(not text:find('fix Add', 1, true) and not text:find('Wrote notes.txt.', 1, true), 'the turns cut from the chat:\n' .. text)
    H.truthy(text:find('_Rewound to before turn 1', 1, true), 'the note:\n' .. text)
    -- The plugin told it; the server's window/showMessage of the same is not shown again.
    local n = 0
    for _, m in ipairs(H.notifications) do
      if m.msg:find('Rewound to before turn', 1, true) then
        n = n + 1
      end
    end
    H.eq(1, n, 'notifications of the rewind')
    vim.lsp.handlers['window/showMessage'] = global
    H.eq({}, vim.tbl_filter(function(m)
      return m:find('Rewound', 1, true) ~= nil
    end, shown), "the server's summary, shown too")

    -- The rewind is one edit of the buffer: `u` brings turn 1's text back.
    vim.api.nvim_set_current_buf(bufnr)
    vim.cmd('silent undo')
    H.eq(H.calc_fixed, H.buffer_text(bufnr), 'calc.go after u')
  end)

  it(':Reasonix rewind picks a turn, newest first, and completes turn numbers', function()
    local root, bufnr, calls = two_turns(function(items)
      return items[1]
    end)
    H.eq({ '1', '2' }, vim.fn.getcompletion('Reasonix rewind ', 'cmdline'), 'completions')
    H.eq({ 'rewind' }, vim.fn.getcompletion('Reasonix rew', 'cmdline'), 'the subcommand completes')

    vim.cmd('Reasonix rewind')
    H.wait('the rewind', function()
      return H.notified('Rewound to before turn 2') ~= nil
    end)
    local picker = calls[#calls]
    H.eq('reasonix.turn', picker.opts.kind, 'the picker')
    local shown = vim.tbl_map(picker.opts.format_item, picker.items)
    H.eq({ '2  write notes  (1 file)', '1  fix Add  (1 file)' }, shown, 'the turns offered')
    H.eq(nil, H.read(root .. '/notes.txt'), 'notes.txt is gone')
    H.eq(H.calc_fixed, H.buffer_text(bufnr), 'turn 1 stays')
    local text = H.chat_text()
    H.truthy(text:find('fix Add', 1, true) and not text:find('write notes', 1, true), 'only turn 2 cut from the chat:\n' .. text)
  end)

  it('/rewind 1 asked in the chat: the files back, the chat cut, the asking turn kept', function()
    local root, bufnr = two_turns(function()
      error('no picker with a turn given')
    end)
    vim.cmd('Reasonix ask /rewind 1')
    H.wait('the files back', function()
      return H.read(root .. '/notes.txt') == nil and H.buffer_text(bufnr) == H.calc_go
    end)
    H.wait('the chat cut', function()
      local text = H.chat_text()
      return not text:find('fix Add', 1, true) and text:find('## You\n/rewind 1', 1, true) ~= nil
    end)
  end)

  it('says what is wrong without a session or with a bad turn', function()
    H.workspace('text unused\n')
    vim.cmd('Reasonix rewind x')
    H.truthy(H.notified("rewind takes a turn number, not 'x'"), 'a bad turn')
    vim.cmd('Reasonix rewind 1')
    H.truthy(H.notified('no session to rewind'), 'no session')
  end)

  it('summarises conflicts with where the earlier text was saved', function()
    local rewind = require('reasonix.rewinding')
    local text = rewind.summary({
      sessionId = 's',
      turn = 3,
      turns = { 3 },
      done = true,
      files = {
        { path = '/w/a.go', action = 'restore' },
        { path = '/w/b.go', action = 'restore' },
        { path = '/w/c.go', action = 'conflict', note = 'changed since', saved = '/home/u/.reasonix/rewind/c.go' },
        { path = '/w/d.txt', action = 'unknown', note = 'too large to keep' },
      },
    })
    H.eq(table.concat({
      'Rewound to before turn 3 (1 turn cut): 2 files restored, 1 conflict, 1 file not kept',
      '  /w/c.go: conflict, left as it is (changed since); its earlier text is in /home/u/.reasonix/rewind/c.go',
      '  /w/d.txt: left as it is (too large to keep)',
    }, '\n'), text, 'the summary')
    H.eq('4  add a test  (0 files)', rewind.format_checkpoint({ turn = 4, prompt = 'add a test\nwith a table', files = {} }), 'a turn in the picker')
  end)
end)
