-- With request_coroutines = false on Neovim 0.7–0.8, vim.lsp.rpc is left
-- alone and an approval waits for the picker with vim.ui.select + vim.wait:
-- a synchronous picker answers at once; an asynchronous one still gets its
-- answer (timers and RPC run in the wait), but the handler holds the
-- caller until then. This spec runs in its own Neovim so the patch the
-- other specs apply is absent.
local H = require('helpers')

local script = [[
call edit_file {"path": "calc.go", "old_string": "func Add(a, b int) int {\n\treturn a - b", "new_string": "func Add(a, b int) int {\n\treturn a + b"}
---
expect tool Edited calc.go
text Fixed.
]]

describe('approvals without request coroutines', function()
  if vim.fn.has('nvim-0.9') == 1 then
    it('is moot on Neovim 0.9+, which runs server requests in coroutines itself', function() end)
    return
  end

  it('a synchronous picker answers', function()
    local root = H.workspace(script)
    H.setup({ request_coroutines = false })
    local bufnr = H.open(root, 'calc.go')
    H.truthy(not require('reasonix.async').requests_yieldable(), 'vim.lsp.rpc left alone')
    local calls = H.stub_select('Allow once')
    vim.cmd('Reasonix ask Fix Add')
    H.wait_turn_done()
    H.eq(1, #calls, 'vim.ui.select calls')
    H.eq(H.calc_fixed, H.buffer_text(bufnr), 'the buffer')
  end)

  it('an asynchronous picker is waited for with vim.wait', function()
    local root = H.workspace(script)
    H.setup({ request_coroutines = false })
    local bufnr = H.open(root, 'calc.go')
    local calls = H.stub_select('Allow once', { delay_ms = 300 })
    local seen_open = false
    vim.cmd('Reasonix ask Fix Add')
    H.wait('the turn', function()
      if #calls == 1 and not calls[1].answered then
        seen_open = true
      end
      return H.buffer_text(bufnr) == H.calc_fixed
    end)
    H.wait_turn_done()
    H.truthy(not seen_open, 'the handler held the loop while the picker was open, as documented')
  end)
end)
