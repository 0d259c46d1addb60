-- The README's first run: the demo scenario (testdata/demo/
-- fix-failing-test.txtar), the failure from :make in the quickfix list,
-- :Reasonix fix on it, the questions answered, and `go test` passing.
local H = require('helpers')

describe('demo', function()
  it(':make, :cfirst, :Reasonix fix', function()
    local scenario = H.repo .. '/testdata/demo/fix-failing-test.txtar'
    local root = H.tmpdir()
    vim.fn.system({ H.scripted_model, '-script', scenario, '-extract', root })
    H.eq(0, vim.v.shell_error, 'extracting the scenario')
    local url = H.model(H.read(scenario))
    H.write(root .. '/reasonix.toml', string.format(
      'default_model = "demo"\nreview = "apply"\n\n[[providers]]\nname = "demo"\nkind = "openai"\nbase_url = %q\nmodel = "deepseek-flash"\n', url))
    vim.env.REASONIX_HOME = H.tmpdir()
    -- make demo-editor trusts the reasonix.toml it wrote, for the user who runs it.
    H.trust(root)
    H.setup()
    vim.cmd('cd ' .. vim.fn.fnameescape(root))
    H.open(root, 'calc_test.go')
    local calls = H.stub_select('Allow once')

    vim.cmd('set makeprg=go\\ test\\ ./...')
    vim.cmd('silent make')
    vim.cmd('cfirst')
    H.truthy(vim.api.nvim_buf_get_name(0):match('calc_test%.go$'), 'the quickfix entry is in calc_test.go')
    vim.cmd('Reasonix fix')
    H.wait_turn_done()

    -- The README's promise: four prompts, answered "Allow once", in this
    -- order: go test first, the two edits of calc.go (the first one is
    -- ambiguous and fails), go test again.
    local want = { 'go test ./...', 'edit_file on calc.go', 'edit_file on calc.go', 'go test ./...' }
    local asked = {}
    for i, c in ipairs(calls) do
      asked[i] = tostring(c.opts.prompt)
    end
    H.eq(#want, #calls, 'permission prompts:\n' .. table.concat(asked, '\n'))
    for i, c in ipairs(calls) do
      H.eq('reasonix.approval', c.opts.kind, 'prompt ' .. i .. ' is a permission prompt')
      H.truthy(asked[i]:find(want[i], 1, true), 'prompt ' .. i .. ' is about ' .. want[i] .. ':\n' .. table.concat(asked, '\n'))
      H.truthy(vim.tbl_contains(c.items, 'Allow once'), 'prompt ' .. i .. ' offers "Allow once"')
    end
    local fixed = vim.fn.system({ H.scripted_model, '-script', scenario, '-section', 'want/calc.go' })
    H.eq(fixed, H.read(root .. '/calc.go'), 'calc.go on disk')
    vim.fn.system('cd ' .. vim.fn.shellescape(root) .. ' && go test ./...')
    H.eq(0, vim.v.shell_error, 'go test ./...')
    H.truthy(H.chat_text():find('✓ bash go test ./... — exit 0', 1, true), 'the passing run in the chat:\n' .. H.chat_text())
    vim.cmd('cd ' .. vim.fn.fnameescape(H.repo))
  end)
end)
