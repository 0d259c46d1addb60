-- review = "propose": the agent's edits wait as proposals. The plugin shows
-- each hunk in the buffer (replaced lines highlighted, added lines as
-- virtual lines), accepts the one under the cursor with :Reasonix accept,
-- rejects another with :Reasonix reject, and lists what is pending in the
-- quickfix list with :Reasonix review.
local H = require('helpers')

local script = [[
call edit_file {"path": "calc.go", "old_string": "func Add(a, b int) int {\n\treturn a - b", "new_string": "func Add(a, b int) int {\n\treturn a + b"}
---
expect tool Edited calc.go
call edit_file {"path": "calc.go", "old_string": "// Sub returns a minus b.\n", "new_string": "// Sub returns a minus b.\n// It is the inverse of Add.\n"}
---
expect tool Edited calc.go
text Two changes proposed.
]]

--- The virtual lines shown in bufnr, as text.
local function virtual_lines(bufnr)
  local ns = require('reasonix.review').ns
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
    for _, chunks in ipairs(m[4].virt_lines or {}) do
      table.insert(out, chunks[1][1])
    end
  end
  return out
end

describe('review', function()
  it('shows proposals, accepts one hunk, rejects another, lists them in quickfix', function()
    local root = H.workspace(script, { review = 'propose' })
    H.setup()
    local bufnr = H.open(root, 'calc.go')
    H.stub_select('Allow for session')

    require('reasonix').ask('fix Add and document Sub')
    H.wait_turn_done()
    H.eq(H.calc_go, H.buffer_text(bufnr), 'the buffer before any hunk is accepted')

    H.wait('the proposals in the buffer', function()
      return #virtual_lines(bufnr) == 2
    end)
    H.eq({ '+     return a + b', '+ // It is the inverse of Add.' }, virtual_lines(bufnr), 'the added lines')

    vim.cmd('Reasonix review')
    H.wait('the quickfix list', function()
      return #vim.fn.getqflist() == 2
    end)
    local qf = vim.fn.getqflist()
    H.eq(5, qf[1].lnum, 'the first hunk in quickfix')
    H.truthy(qf[1].text:find('return a + b', 1, true), 'its text: ' .. qf[1].text)
    vim.cmd('cclose')

    -- Show diff opens the proposal as a diff file.
    vim.api.nvim_set_current_buf(bufnr)
    local client = require('reasonix').client(bufnr)
    local shown = require('reasonix.lsp').request_sync(client, 'workspace/executeCommand', {
      command = 'reasonix.review.diff',
      arguments = { { uri = vim.uri_from_bufnr(bufnr) } },
    }, 10000, bufnr)
    H.truthy(shown and shown.result and shown.result.shown, 'reasonix.review.diff: ' .. vim.inspect(shown))
    H.truthy(vim.endswith(vim.api.nvim_buf_get_name(0), 'calc.go.diff'), 'the buffer shown: ' .. vim.api.nvim_buf_get_name(0))
    H.truthy(table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'):find('+\treturn a + b', 1, true), 'the diff')

    vim.api.nvim_set_current_buf(bufnr)
    vim.api.nvim_win_set_cursor(0, { 5, 1 })
    vim.cmd('Reasonix accept')
    H.wait('the accepted hunk in the buffer', function()
      return vim.api.nvim_buf_get_lines(bufnr, 4, 5, false)[1] == '\treturn a + b'
    end)
    H.wait('one proposal left', function()
      return #virtual_lines(bufnr) == 1
    end)

    vim.api.nvim_win_set_cursor(0, { 9, 0 })
    vim.cmd('Reasonix reject')
    H.wait('no proposal left', function()
      return #virtual_lines(bufnr) == 0 and #vim.diagnostic.get(bufnr) == 0
    end)
    H.eq(H.calc_fixed, H.buffer_text(bufnr), 'the buffer holds exactly the accepted hunk')

    vim.cmd('Reasonix review')
    H.wait('an empty quickfix list', function()
      return #vim.fn.getqflist() == 0
    end)
  end)
end)
