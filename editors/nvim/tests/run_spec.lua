-- A tiny spec runner for headless Neovim (no plenary or busted needed):
--
--   nvim --headless -u NONE -i NONE -n --cmd 'set rtp^=editors/nvim' \
--        -c 'luafile editors/nvim/tests/run_spec.lua' -- SPEC_FILE
--
-- A spec file calls it(name, fn) for each case; describe(name, fn) only
-- groups. Cases run in order; after each, helpers.cleanup() stops the
-- servers and model servers it started and wipes the buffers. A case
-- fails on an error, if it left an error message behind (v:errmsg),
-- since an error in an LSP handler only shows as a message, or if it
-- (with its cleanup) called what the running Neovim deprecates
-- (deprecations.lua). The process exits 0 when every case passed, 1
-- otherwise, printing one line per case.

local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/') or '.'
package.path = here .. '/?.lua;' .. package.path

local deprecations = require('deprecations')
deprecations.watch()

local out = function(s)
  io.stdout:write(s .. '\n')
end

local spec = vim.fn.argv(0)
if spec == '' then
  out('usage: nvim ... -c "luafile run_spec.lua" -- SPEC_FILE')
  vim.cmd('cquit 2')
end
spec = vim.fn.fnamemodify(spec, ':p')
vim.cmd('silent! %bwipeout!')
vim.cmd('runtime! plugin/reasonix.lua')

local cases = {}
local prefix = {}

function _G.describe(name, fn)
  table.insert(prefix, name)
  fn()
  table.remove(prefix)
end

function _G.it(name, fn)
  local full = table.concat(prefix, ' ')
  table.insert(cases, { name = (full ~= '' and full .. ': ' or '') .. name, fn = fn })
end

local H = require('helpers')

local function main()
  local loaded, err = loadfile(spec)
  if not loaded then
    out('FAIL cannot load ' .. spec .. ': ' .. tostring(err))
    return false
  end
  loaded()
  local failed = 0
  for _, case in ipairs(cases) do
    vim.v.errmsg = ''
    local t0 = H.uv.hrtime()
    local ok, e = xpcall(case.fn, debug.traceback)
    if ok and vim.v.errmsg ~= '' then
      ok, e = false, 'an error message was left behind: ' .. vim.v.errmsg
    end
    local ms = (H.uv.hrtime() - t0) / 1e6
    if ok then
      out(string.format('\n  ok    %6.0f ms  %s', ms, case.name))
      if os.getenv('REASONIX_TEST_VERBOSE') then
        H.dump()
      end
    else
      failed = failed + 1
      out(string.format('\n  FAIL  %6.0f ms  %s\n        %s', ms, case.name, (tostring(e):gsub('\n', '\n        '))))
      H.dump()
    end
    local cleaned, cerr = pcall(H.cleanup)
    if not cleaned then
      failed = failed + 1
      out('  FAIL  cleanup after ' .. case.name .. ': ' .. tostring(cerr))
    end
    local used = deprecations.take()
    if #used > 0 then
      failed = failed + 1
      local v = vim.version()
      out(string.format('  FAIL  %s called what Neovim %d.%d.%d deprecates:\n        %s',
        case.name, v.major, v.minor, v.patch, table.concat(used, '\n        ')))
    end
  end
  return failed == 0 and #cases > 0
end

local ok, passed = xpcall(main, debug.traceback)
if not ok then
  out('FAIL runner: ' .. tostring(passed))
end
if ok and passed then
  vim.cmd('qall!')
else
  vim.cmd('cquit 1')
end
