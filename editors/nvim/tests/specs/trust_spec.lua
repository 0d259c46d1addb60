-- Workspace trust: a workspace whose reasonix.toml brings an MCP server
-- is opened untrusted (the model is the user's own); the server's question reaches
-- vim.ui.select (kind reasonix.trust) with each entry on its own line;
-- dismissing it keeps the server off; :Reasonix trust asks again and
-- "Trust and enable" starts it; :Reasonix trust revoke forgets it.
local H = require('helpers')

describe('trust', function()
  it(':Reasonix trust reviews, :Reasonix trust revoke forgets', function()
    local marks = H.tmpdir()
    local marker = marks .. '/started'
    local example = vim.fn.fnamemodify(H.reasonix, ':h') .. '/reasonix-plugin-example'
    -- An MCP server that leaves a mark when it starts, then serves.
    local toml = string.format('\n[[plugins]]\nname = "marker"\ncommand = "sh"\nargs = ["-c", "touch \\"$0\\" && exec \\"$1\\"", %q, %q]\n', marker, example)
    local root = H.workspace('text unused\n', { toml = toml, trust = false, provider = 'user' })
    local answer = nil -- the first question is dismissed
    local asked = {}
    H.stub_select(function(items, opts)
      if opts.kind == 'reasonix.trust' then
        table.insert(asked, { items = items, prompt = opts.prompt })
        return answer
      end
      error('unexpected question: ' .. tostring(opts.prompt))
    end)
    H.setup()
    H.open(root, 'calc.go')

    H.wait('the trust question', function()
      return #asked == 1
    end)
    H.eq({ 'Trust and enable', 'Keep disabled' }, asked[1].items, 'the answers')
    local lines = vim.split(asked[1].prompt, '\n', { plain = true })
    H.eq('Reasonix: The workspace ' .. root .. ' comes with configuration that takes effect only once you trust it:', lines[1], 'the first line')
    H.truthy(lines[2]:match('^  • MCP server "marker": runs sh %-c .*started.* %(reasonix%.toml:3%)$'), lines[2])
    H.eq('Until then it is off, and everything else works without it.', lines[3], 'the last line')
    H.eq(3, #lines, 'the lines:\n' .. asked[1].prompt)

    -- Dismissed: the server stays off. :Reasonix mcp waits for the build.
    vim.cmd('Reasonix mcp')
    H.wait('the MCP servers', function()
      return H.notified('No MCP servers are configured')
    end)
    H.eq(0, vim.fn.filereadable(marker), 'the untrusted MCP server started')

    -- :Reasonix trust asks again; trusting starts the server.
    answer = 'Trust and enable'
    vim.cmd('Reasonix trust')
    H.wait('the notification that it is trusted', function()
      return H.notified('Reasonix: you trust the configuration of ' .. root .. ': its own servers and settings are on')
    end)
    H.eq(2, #asked, 'questions asked')
    H.wait('the trusted MCP server to start', function()
      return vim.fn.filereadable(marker) == 1
    end)

    -- Revoked: the plugin says so; what the server asks next is kept off.
    answer = 'Keep disabled'
    H.notifications = {}
    vim.cmd('Reasonix trust revoke')
    H.wait('the notification that it is revoked', function()
      return H.notified('Reasonix: forgot what you trusted in ' .. root .. ': its own servers and settings are off until you trust them again')
    end)

    vim.cmd('Reasonix trust maybe')
    H.eq({ msg = "Reasonix: trust takes 'review' or 'revoke', not 'maybe'", level = vim.log.levels.ERROR }, H.notifications[#H.notifications], 'a wrong argument')
    H.eq({ 'review', 'revoke' }, vim.fn.getcompletion('Reasonix trust ', 'cmdline'), 'completions')
    H.eq({ 'revoke' }, vim.fn.getcompletion('Reasonix trust revo', 'cmdline'), 'completions of revo')
  end)
end)
