-- :Reasonix mcp shows the workspace's MCP servers, a failed one with its
-- error; `:Reasonix ask /` completes the slash commands, /mcp answers
-- without the model and an MCP prompt reaches it rendered.
local H = require('helpers')

local script = [[
match Review the current change with a focus on errors.
expect user List problems as file:line with a one-line fix each.
text No problems found.
]]

--- Two plugins: the repository's example server, and one that exits at
--- once with an error on stderr.
local function plugins_toml()
  local example = vim.fn.fnamemodify(H.reasonix, ':h') .. '/reasonix-plugin-example'
  return string.format(
    [=[

[[plugins]]
name    = "example"
command = %q

[[plugins]]
name    = "broken"
command = "sh"
args    = ["-c", "echo boom >&2; exit 3"]
]=],
    example
  )
end

local notified = H.notified

--- Runs :Reasonix mcp and returns the notification it shows.
local function show_servers()
  vim.cmd('Reasonix mcp')
  H.wait('the MCP servers', function()
    return notified('MCP servers') ~= nil
  end)
  return notified('MCP servers')
end

describe('mcp', function()
  it('shows the MCP servers, a failed one with its error', function()
    local root = H.workspace(script, { toml = plugins_toml() })
    H.setup()
    H.open(root, 'calc.go')

    local n = show_servers()
    for _, want in ipairs({ 'example', 'connected', 'broken', 'failed', 'boom' }) do
      H.truthy(n.msg:find(want, 1, true), want .. ' in:\n' .. n.msg)
    end
    H.eq(vim.log.levels.INFO, n.level, 'the level')
  end)

  it('says when no server is configured', function()
    local root = H.workspace(script)
    H.setup()
    H.open(root, 'calc.go')
    local n = show_servers()
    H.truthy(n.msg:find('No MCP servers are configured', 1, true), n.msg)
    H.eq({ '/help', '/new', '/clear', '/compact', '/model', '/effort', '/cost', '/context', '/mcp', '/init', '/rewind', '/trust' }, vim.fn.getcompletion('Reasonix ask /', 'cmdline'), 'completions')
  end)

  it('completes slash commands, answers /mcp and sends an MCP prompt', function()
    local root = H.workspace(script, { toml = plugins_toml() })
    H.setup()
    H.open(root, 'calc.go')
    local state = require('reasonix.state')

    -- The servers start with the workspace: wait for them once, so that
    -- completion (which waits a second at most) finds them up.
    show_servers()
    local completions = vim.fn.getcompletion('Reasonix ask /mcp', 'cmdline')
    H.truthy(vim.tbl_contains(completions, '/mcp'), 'completions: ' .. vim.inspect(completions))
    H.truthy(vim.tbl_contains(completions, '/mcp__example__review'), 'completions: ' .. vim.inspect(completions))
    H.eq({}, vim.fn.getcompletion('Reasonix ask why /mcp', 'cmdline'), 'only the first word of the prompt')

    -- From a file buffer: the file's mention follows the command's text
    -- in the user message; it never becomes one of its arguments.
    vim.cmd('Reasonix ask /mcp')
    H.wait('the status table in the chat', function()
      local text = H.chat_text()
      return text:find('example', 1, true) ~= nil and text:find('boom', 1, true) ~= nil
    end)
    H.wait_turn_done()
    local first = state.session

    vim.cmd('Reasonix ask /mcp__example__review errors')
    H.wait('the answer to the MCP prompt', function()
      return H.chat_text():find('No problems found.', 1, true) ~= nil
    end)
    H.wait_turn_done()
    H.eq(first, state.session, 'the session asked in')
  end)
end)
