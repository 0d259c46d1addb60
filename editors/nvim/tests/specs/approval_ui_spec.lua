-- The editor stays usable while a permission question is open in an
-- asynchronous picker, and the picker is answered with real keys. A second
-- Neovim (--embed) runs the plugin; this one types into it with
-- nvim_input, as a user would, and reads its state over RPC.
local H = require('helpers')

local script = [[
call edit_file {"path": "calc.go", "old_string": "func Add(a, b int) int {\n\treturn a - b", "new_string": "func Add(a, b int) int {\n\treturn a + b"}
---
expect tool Permission denied
text I left calc.go alone.
]]

-- A picker like telescope's or snacks': it returns at once, opens a
-- window, and calls on_choice from a key mapping later.
local picker = [=[
_G.picker_open = false
vim.ui.select = function(items, opts, on_choice)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, items)
  _G.picker_open = true
  vim.keymap.set('n', '<CR>', function()
    local choice = items[vim.api.nvim_win_get_cursor(0)[1]]
    vim.cmd('bwipeout!')
    _G.picker_open = false
    on_choice(choice)
  end, { buffer = buf })
end
]=]

describe('approval UI', function()
  it('takes keys while the question is open, and is answered by keys', function()
    local root = H.workspace(script)
    -- run.sh names the Neovim it runs (v:progpath is the loader for one
    -- started through a dynamic loader, as the tests' 0.10 is).
    local child = vim.fn.jobstart({
      os.getenv('REASONIX_TEST_NVIM') or vim.v.progpath, '--embed', '--headless', '-u', 'NONE', '-i', 'NONE', '-n', '--cmd', 'set rtp^=' .. H.plugin_dir,
    }, { rpc = true })
    H.truthy(child > 0, 'the embedded Neovim started')
    H.track_job(child)
    local function lua(code, ...)
      return vim.fn.rpcrequest(child, 'nvim_exec_lua', code, { ... })
    end
    local function poll(what, cond)
      local deadline = H.uv.now() + 15000
      while not cond() do
        if H.uv.now() > deadline then
          error('timed out waiting for ' .. what, 2)
        end
        vim.wait(20)
      end
    end

    lua([[
      vim.cmd('runtime! plugin/reasonix.lua')
      require('reasonix').setup({ cmd = { ..., 'lsp' } })
    ]], H.reasonix)
    lua(picker)
    lua('vim.cmd("edit " .. vim.fn.fnameescape(...))', root .. '/calc.go')
    poll('the client', function()
      return lua('local c = require("reasonix").client(0) return c ~= nil and c.initialized')
    end)

    lua('vim.cmd("Reasonix ask Fix Add")')
    poll('the picker', function()
      return lua('return _G.picker_open')
    end)

    -- The question is open: the editor still runs commands typed at it.
    vim.fn.rpcrequest(child, 'nvim_input', ':let g:typed = 42<CR>')
    poll('the typed command to run', function()
      return lua('return vim.g.typed') == 42
    end)
    H.truthy(lua('return _G.picker_open'), 'the picker is still open')

    -- Answer in the picker: the last item is Deny.
    vim.fn.rpcrequest(child, 'nvim_input', 'G<CR>')
    poll('the turn to end', function()
      return lua([[
        local state = require('reasonix.state')
        local text = table.concat(require('reasonix.chat').lines(), '\n')
        return state.session ~= nil and not state.running[state.session] and text:find('\n— ', 1, true) ~= nil
      ]])
    end)
    local text = lua('return table.concat(require("reasonix.chat").lines(), "\\n")')
    H.truthy(text:find('\n⊘ edit_file calc.go — denied\n', 1, true), 'the denied row:\n' .. text)
    H.eq(H.calc_go, lua('return table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false), "\\n") .. "\\n"', root .. '/calc.go'), 'the buffer')
    H.eq(H.calc_go, H.read(root .. '/calc.go'), 'calc.go on disk')
  end)
end)
