-- :Reasonix fix on a diagnostic: the permission dialogs go through
-- vim.ui.select, the edit lands in the buffer, reasonix/saveDocuments
-- writes it before `go test` runs, and nothing warns that the file changed.
local H = require('helpers')

local script = [[
expect user TestAdd fails: Add(2, 3) = -1, want 5
expect user >    5 | 	return a - b
call read_file {"path": "calc.go"}
---
expect tool return a - b
call edit_file {"path": "calc.go", "old_string": "func Add(a, b int) int {\n\treturn a - b", "new_string": "func Add(a, b int) int {\n\treturn a + b"}
---
expect tool Edited calc.go
call bash {"command": "go test ./..."}
---
# Saved through reasonix/saveDocuments, so the test passes.
expect tool ok  	example.com/calc
expect tool Exit code: 0
text Add subtracted its arguments; it adds them now and the tests pass.
]]

describe('fix', function()
  it('fixes the diagnostic under the cursor, saved, with no file-changed warning', function()
    local root = H.workspace(script)
    H.setup()
    local bufnr = H.open(root, 'calc.go')
    local ns = vim.api.nvim_create_namespace('go-test')
    vim.diagnostic.set(ns, bufnr, {
      { lnum = 4, col = 1, end_lnum = 4, end_col = 13, severity = vim.diagnostic.severity.ERROR,
        source = 'go test', message = 'TestAdd fails: Add(2, 3) = -1, want 5' },
    })
    vim.api.nvim_win_set_cursor(0, { 5, 3 })
    local calls = H.stub_select('Allow once')

    local changed_shell = 0
    vim.api.nvim_create_autocmd('FileChangedShell', {
      callback = function()
        changed_shell = changed_shell + 1
      end,
    })

    vim.cmd('Reasonix fix')
    H.wait_turn_done()

    H.eq(H.calc_fixed, H.buffer_text(bufnr), 'the buffer')
    H.eq(H.calc_fixed, H.read(root .. '/calc.go'), 'calc.go on disk')
    H.eq(false, vim.bo[bufnr].modified, "'modified'")

    -- Two questions (the edit, the command), each with the four answers.
    H.eq(2, #calls, 'vim.ui.select calls')
    for _, c in ipairs(calls) do
      H.eq(H.ACTIONS, c.items, 'the actions offered')
      H.truthy(c.opts.prompt:find('Reasonix wants to', 1, true), 'prompt: ' .. tostring(c.opts.prompt))
    end

    -- Neovim wrote the file itself, so checking it finds nothing changed.
    vim.v.warningmsg = ''
    vim.cmd('checktime')
    H.eq(0, changed_shell, 'FileChangedShell events')
    H.eq('', vim.v.warningmsg, 'v:warningmsg')
    H.truthy(not vim.fn.execute('messages'):find('W1[12]'), 'a W11/W12 warning in :messages')

    local out = vim.fn.system('cd ' .. vim.fn.shellescape(root) .. ' && go test ./... 2>&1')
    H.eq(0, vim.v.shell_error, 'go test ./... exit status (' .. out .. ')')

    local chat = H.chat_text()
    H.truthy(chat:find('✓ edit_file calc.go', 1, true), 'the edit row in the chat')
    H.truthy(chat:find('✓ bash go test ./... — exit 0', 1, true), 'the test row in the chat')
  end)

  it('loads, attaches and saves a file the agent edits that was not open', function()
    local root = H.workspace([[
call edit_file {"path": "calc_test.go", "old_string": "want 5", "new_string": "want five"}
---
expect tool Edited calc_test.go
call bash {"command": "grep -c five calc_test.go"}
---
# The edit was saved before the command ran.
expect tool 1
expect tool Exit code: 0
text Done.
]])
    H.setup({ settings = { permissions = { allow = { 'Bash(grep:*)', 'Edit(calc_test.go)' } } } })
    H.open(root, 'calc.go')
    vim.cmd('Reasonix ask Change the test message')
    H.wait_turn_done()
    local b = vim.fn.bufnr(root .. '/calc_test.go')
    H.truthy(b > 0 and vim.api.nvim_buf_is_loaded(b), 'calc_test.go is loaded')
    H.eq(1, #require('reasonix.lsp').clients(b), 'the client attached to it')
    H.eq(false, vim.bo[b].modified, "its 'modified'")
    H.truthy(H.read(root .. '/calc_test.go'):find('want five', 1, true), 'the edit on disk')
    vim.v.warningmsg = ''
    vim.cmd('checktime')
    H.eq('', vim.v.warningmsg, 'v:warningmsg after :checktime')
  end)

  it('converts the diagnostic to LSP positions in the client encoding', function()
    local cmds = require('reasonix.commands')
    local b = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_lines(b, 0, -1, false, { 'héllo 𝄞 x' })
    -- 'x' is at byte 12: h é(2) l l o ␠ 𝄞(4) ␠ x
    local d = cmds.to_lsp_diagnostic(b, { lnum = 0, col = 12, end_lnum = 0, end_col = 13, severity = 2, message = 'm' }, 'utf-16')
    H.eq({ line = 0, character = 9 }, d.range.start, 'utf-16 start')
    H.eq({ line = 0, character = 10 }, d.range['end'], 'utf-16 end')
    d = cmds.to_lsp_diagnostic(b, { lnum = 0, col = 12, severity = 2, message = 'm' }, 'utf-8')
    H.eq(12, d.range.start.character, 'utf-8 start')
    H.eq(2, d.severity, 'severity')
  end)

  it('finds the diagnostics under the cursor, picks among several, falls back to the quickfix list', function()
    local path = H.tmpdir() .. '/loose.txt'
    H.write(path, 'one\ntwo three\n')
    vim.cmd('edit ' .. path)
    local b = vim.api.nvim_get_current_buf()
    local ns = vim.api.nvim_create_namespace('multi')
    vim.diagnostic.set(ns, b, {
      { lnum = 1, col = 0, end_col = 3, severity = 1, message = 'first' },
      { lnum = 1, col = 4, end_col = 9, severity = 2, message = 'second' },
    })
    local cmds = require('reasonix.commands')
    local messages = function(ds)
      return vim.tbl_map(function(d)
        return d.message
      end, ds)
    end
    vim.api.nvim_win_set_cursor(0, { 2, 5 })
    H.eq({ 'second' }, messages(cmds.diagnostics_at_cursor(b, 0)), 'the diagnostic under the cursor')
    vim.api.nvim_win_set_cursor(0, { 2, 3 })
    H.eq({ 'first', 'second' }, messages(cmds.diagnostics_at_cursor(b, 0)), 'between them: the whole line')

    local calls = H.stub_select(nil)
    vim.cmd('Reasonix fix')
    H.eq(1, #calls, 'vim.ui.select calls')
    H.eq({ 'Error: first', 'Warning: second' }, vim.tbl_map(calls[1].opts.format_item, calls[1].items), 'the choices')

    vim.diagnostic.reset(ns, b)
    vim.fn.setqflist({ { bufnr = b, lnum = 1, col = 2, text = ' from make ', type = 'E' } })
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    local got = cmds.diagnostics_at_cursor(b, 0)
    H.eq(1, #got, 'quickfix entries on the line')
    H.eq('from make', got[1].message, 'its message')
    H.eq(1, got[1].col, 'its column')
    vim.fn.setqflist({})
  end)
end)
