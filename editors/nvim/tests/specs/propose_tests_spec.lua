-- review = "propose" with the tests of a change: before anything is
-- accepted, the proposal's diagnostic says what the Go tests that reach
-- it (run on the proposed text, with gopls checking it first) do if it is
-- accepted, and the disk keeps the text the user had.
local H = require('helpers')

local calc_go = [[
package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Twice returns x doubled.
func Twice(x int) int { return Add(x, x) }
]]

local calc_test_go = [[
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestTwice(t *testing.T) {
	if got := Twice(2); got != 4 {
		t.Errorf("Twice(2) = %d, want 4", got)
	}
}
]]

-- go test runs unasked, as the tests of a proposal need.
local allow_tests = '\n[permissions]\nallow = ["Bash(go test:*)"]\n'

--- The workspace of calc_go (with Add fixed when fixed is true), proposing.
local function workspace(script, fixed)
  local calc = calc_go
  if fixed then
    calc = calc:gsub('return a %- b', 'return a + b', 1)
  end
  return H.workspace(script, {
    review = 'propose',
    toml = allow_tests,
    files = { ['calc.go'] = calc, ['calc_test.go'] = calc_test_go },
  }), calc
end

--- What the user reads of the diagnostic on line lnum (1-based) of bufnr:
--- the lines of the float :lua vim.diagnostic.open_float() shows there.
local function float_text(bufnr, lnum)
  vim.api.nvim_set_current_buf(bufnr)
  vim.api.nvim_win_set_cursor(0, { lnum, 0 })
  local fbuf, win = vim.diagnostic.open_float({ scope = 'line' })
  H.truthy(fbuf, 'a diagnostic float on line ' .. lnum)
  local text = table.concat(vim.api.nvim_buf_get_lines(fbuf, 0, -1, false), '\n')
  vim.api.nvim_win_close(win, true)
  return text
end

--- Waits for a diagnostic of bufnr whose message contains each of ...
local function wait_diagnostic(bufnr, ...)
  local want = { ... }
  H.wait('a diagnostic saying ' .. table.concat(want, ' and '), function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      local all = true
      for _, s in ipairs(want) do
        all = all and d.message:find(s, 1, true) ~= nil
      end
      if all then
        return true
      end
    end
    return false
  end)
end

-- The impact line comes from gopls's references (Twice in calc.go,
-- TestAdd in calc_test.go): the proposal was checked by the real gopls.
local add_impact = 'changes func Add — 2 callers in 2 files'

describe('propose with tests', function()
  it('says on the proposal that fixes Add that TestAdd passes if accepted', function()
    local root, calc = workspace([[
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
expect tool Edited calc.go
text Fixed Add.
]])
    H.setup()
    local bufnr = H.open(root, 'calc.go')
    H.stub_select('Allow for session')

    require('reasonix').ask('fix Add')
    H.wait_turn_done(60000)
    wait_diagnostic(bufnr, 'TestAdd passes if accepted', add_impact)

    H.eq(calc, H.buffer_text(bufnr), 'the buffer: nothing accepted')
    H.eq(calc, H.read(root .. '/calc.go'), 'calc.go on disk')
    local shown = float_text(bufnr, 5)
    H.truthy(shown:find('Tests: TestAdd passes if accepted; TestTwice passes if accepted\n   ' .. add_impact, 1, true), 'the float:\n' .. shown)
  end)

  it('says on the proposal that breaks TestTwice that it fails, and why', function()
    local root, calc = workspace([[
call edit_file {"path": "calc.go", "old_string": "return Add(x, x)", "new_string": "return Add(x, x) + 1"}
---
expect tool Edited calc.go
text Done.
---
expect user TestTwice fails if accepted: calc_test.go:13: Twice(2) = 5, want 4
text Twice is meant to add one.
]], true)
    H.setup()
    local bufnr = H.open(root, 'calc.go')
    H.stub_select('Allow for session')

    require('reasonix').ask('make Twice add one')
    H.wait_turn_done(60000)
    local why = 'TestTwice fails if accepted: calc_test.go:13: Twice(2) = 5, want 4'
    wait_diagnostic(bufnr, why, 'changes func Twice — 1 caller in 1 file')

    H.eq(calc, H.buffer_text(bufnr), 'the buffer: nothing accepted')
    local shown = float_text(bufnr, 9)
    H.truthy(shown:find('Tests: ' .. why, 1, true), 'the float:\n' .. shown)
    -- The chat said it too, first to the model for a repair round.
    H.truthy(H.chat_text():find('tested: ' .. why .. '; asking the model to fix them', 1, true), 'the chat:\n' .. H.chat_text())
  end)
end)
