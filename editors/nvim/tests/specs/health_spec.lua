-- :checkhealth reasonix runs without errors, and reports a missing binary
-- as one.
local H = require('helpers')

--- Runs :checkhealth reasonix and returns the report's lines.
local function checkhealth()
  vim.cmd('checkhealth reasonix')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('tabclose')
  return table.concat(lines, '\n')
end

describe('checkhealth', function()
  it('reports the binary, its version, the config and the attached client', function()
    local root = H.workspace('text hi\n')
    H.setup()
    local _, client = H.open(root, 'calc.go')
    local report = checkhealth()
    H.truthy(not report:find('ERROR'), 'errors in the report:\n' .. report)
    H.truthy(not report:find('Failed to run healthcheck', 1, true), 'the check failed:\n' .. report)
    H.truthy(report:find('OK: ' .. H.reasonix .. ' lsp', 1, true), 'the binary:\n' .. report)
    H.truthy(report:find('OK: version: reasonix ', 1, true), 'the version:\n' .. report)
    H.truthy(report:find('`reasonix lsp`', 1, true), 'the lsp command:\n' .. report)
    H.truthy(report:find('OK: project config: ' .. root .. '/reasonix.toml', 1, true), 'the project config:\n' .. report)
    H.truthy(report:find('default model: scripted', 1, true), 'the default model:\n' .. report)
    H.truthy(report:find(string.format('OK: client %d (server ', client.id), 1, true), 'the client:\n' .. report)
    H.truthy(report:find('server requests run in coroutines', 1, true), 'the approval design:\n' .. report)
  end)

  it('reports a missing binary and an unset API key', function()
    H.setup({ cmd = { '/nonexistent/reasonix', 'lsp' } })
    vim.env.DEEPSEEK_API_KEY = ''
    local report = checkhealth()
    H.truthy(not report:find('Failed to run healthcheck', 1, true), 'the check failed:\n' .. report)
    H.truthy(report:find("ERROR: '/nonexistent/reasonix' is not executable", 1, true), 'the binary:\n' .. report)
    H.truthy(report:find('WARNING: DEEPSEEK_API_KEY is not set', 1, true), 'the key:\n' .. report)
  end)
end)
