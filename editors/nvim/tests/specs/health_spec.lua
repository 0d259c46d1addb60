-- :checkhealth reasonix runs without errors, and reports a missing binary
-- as one.
local H = require('helpers')

--- Runs :checkhealth reasonix and returns the report's lines. 0.7 opens
--- the report in a new tab page; 0.10 in the current window when its
--- buffer is empty.
local function checkhealth()
  local tabs = #vim.api.nvim_list_tabpages()
  vim.cmd('checkhealth reasonix')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  if #vim.api.nvim_list_tabpages() > tabs then
    vim.cmd('tabclose')
  else
    vim.cmd('bwipeout')
  end
  return table.concat(lines, '\n')
end

--- How a report item of status ('OK', 'WARNING', 'ERROR') starts: 0.7's
--- health.vim writes "  - OK: msg", vim.health (0.10 on) "- OK msg".
local function item(status, msg)
  if vim.fn.has('nvim-0.10') == 1 then
    return '\n- ' .. status .. ' ' .. msg
  end
  return '\n  - ' .. status .. ': ' .. msg
end

--- Whether the report has the item.
local function has(report, status, msg)
  return report:find(item(status, msg), 1, true) ~= nil
end

describe('checkhealth', function()
  it('reports the binary, its version, the config and the attached client', function()
    local root = H.workspace('text hi\n')
    H.setup()
    local _, client = H.open(root, 'calc.go')
    local report = checkhealth()
    H.truthy(not report:find('ERROR'), 'errors in the report:\n' .. report)
    H.truthy(not report:find('WARNING'), 'warnings in the report:\n' .. report)
    H.truthy(not report:find('Failed to run healthcheck', 1, true), 'the check failed:\n' .. report)
    H.truthy(has(report, 'OK', H.reasonix .. ' lsp'), 'the binary:\n' .. report)
    H.truthy(has(report, 'OK', 'version: reasonix '), 'the version:\n' .. report)
    H.truthy(report:find('`reasonix lsp`', 1, true), 'the lsp command:\n' .. report)
    H.truthy(has(report, 'OK', 'project config: ' .. root .. '/reasonix.toml'), 'the project config:\n' .. report)
    H.truthy(report:find('default model: scripted', 1, true), 'the default model:\n' .. report)
    H.truthy(has(report, 'OK', string.format('client %d (server ', client.id)), 'the client:\n' .. report)
    H.truthy(report:find('server requests run in coroutines', 1, true), 'the approval design:\n' .. report)
  end)

  it('reports a missing binary and an unset API key', function()
    H.setup({ cmd = { '/nonexistent/reasonix', 'lsp' } })
    vim.env.DEEPSEEK_API_KEY = ''
    local report = checkhealth()
    H.truthy(not report:find('Failed to run healthcheck', 1, true), 'the check failed:\n' .. report)
    H.truthy(has(report, 'ERROR', "'/nonexistent/reasonix' is not executable"), 'the binary:\n' .. report)
    H.truthy(has(report, 'WARNING', 'DEEPSEEK_API_KEY is not set'), 'the key:\n' .. report)
  end)
end)
