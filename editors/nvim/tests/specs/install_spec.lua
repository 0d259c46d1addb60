-- The install snippets of README.md and editors/nvim/README.md, read from
-- those files, each in a fresh Neovim with its own home: native packages
-- for real, lazy.nvim, packer.nvim and vim.pack through the stand-ins of
-- managers.lua. Each must leave :Reasonix defined, the plugin configured
-- and no error behind.
local H = require('helpers')

--- The fenced code blocks of a Markdown file, as {lang, text}.
local function code_blocks(path)
  local blocks, cur = {}, nil
  for line in (H.read(path) .. '\n'):gmatch('(.-)\n') do
    if cur then
      if line:match('^```%s*$') then
        cur.text = table.concat(cur.lines, '\n') .. '\n'
        table.insert(blocks, cur)
        cur = nil
      else
        table.insert(cur.lines, line)
      end
    else
      local lang = line:match('^```(%S*)')
      if lang then
        cur = { lang = lang, lines = {} }
      end
    end
  end
  return blocks
end

--- The kind of install a block is, or nil: 'lazy' (a spec table),
--- 'packer' (a use() call), 'vim.pack', 'start' or 'opt' (a shell
--- snippet linking the plugin into pack/*/start or pack/*/opt).
local function kind(b)
  if b.lang == 'lua' then
    if b.text:match('^{') then
      return 'lazy'
    elseif b.text:match('^use%(') then
      return 'packer'
    elseif b.text:find('vim.pack.add', 1, true) then
      return 'vim.pack'
    end
  elseif b.lang == 'sh' and b.text:find('ln -s', 1, true) then
    return b.text:match('/pack/[^/]+/(%a+)/reasonix\n')
  end
end

-- Opens the init file of the Neovim under test: notifications are kept
-- for the check.
local capture = [[
_G.notes = {}
vim.notify = function(msg, level)
  table.insert(_G.notes, { msg = tostring(msg), level = level or vim.log.levels.INFO })
end
]]

-- Then, before a plugin manager's snippet, its stand-in and a bad
-- vim.g.reasonix, which the plugin reports a tick after it loads unless
-- setup() ran first: a snippet that does not call setup() fails.
local prelude = [[
vim.g.reasonix = { chat = { position = 'nowhere' } }
dofile(%q)
]]

local wrap = {
  lazy = "require('lazy').setup({\n%s})\n",
  packer = "require('packer').startup(function(use)\n%send)\n",
  ['vim.pack'] = '%s',
}

-- After start-up and the plugin's scheduled load: whether :Reasonix
-- existed before and after `:packadd reasonix` (opt packages only), and
-- what was reported.
local check = [[
lua vim.schedule(function()
  local r = { before = vim.fn.exists(':Reasonix') }
  if %s then vim.cmd('packadd reasonix') end
  vim.schedule(function()
    r.after = vim.fn.exists(':Reasonix')
    r.augroup = vim.fn.exists('#reasonix')
    r.errmsg = vim.v.errmsg
    r.notes = _G.notes
    vim.fn.writefile({ vim.fn.json_encode(r) }, %q)
    vim.cmd('qall!')
  end)
end)
]]

--- Starts a Neovim on one snippet and returns what check found.
local function run(b)
  local k = kind(b)
  local home = H.tmpdir()
  -- The lazy.nvim spec for a clone of your own names ~/src/reasonix.
  vim.fn.mkdir(home .. '/src', 'p')
  assert((vim.uv or vim.loop).fs_symlink(H.repo, home .. '/src/reasonix'))
  local env = {
    'env',
    'HOME=' .. home,
    'XDG_CONFIG_HOME=' .. home .. '/.config',
    'XDG_DATA_HOME=' .. home .. '/.local/share',
    'XDG_STATE_HOME=' .. home .. '/.local/state',
    'XDG_CACHE_HOME=' .. home .. '/.cache',
    'REASONIX_REPO=' .. H.repo,
  }
  local init = home .. '/init.lua'
  if k == 'start' or k == 'opt' then
    local cmd = vim.list_extend(vim.deepcopy(env), { 'sh', '-euc', 'cd "$0"\n' .. b.text, H.repo })
    local out = vim.fn.system(cmd)
    H.eq(0, vim.v.shell_error, 'the shell snippet failed: ' .. out)
    H.write(init, capture)
  else
    local text = capture .. prelude:format(H.plugin_dir .. '/tests/managers.lua') .. wrap[k]:format(b.text)
    H.write(init, text)
  end
  local result = home .. '/result.json'
  local nvim = os.getenv('REASONIX_TEST_NVIM') or vim.v.progpath
  local cmd = vim.list_extend(env, {
    nvim, '--headless', '-u', init, '-i', 'NONE', '-n',
    '-c', check:format(tostring(k == 'opt'), result),
  })
  local out = vim.fn.system(cmd)
  H.truthy(vim.fn.filereadable(result) == 1, 'Neovim did not get to the check: ' .. out)
  return vim.fn.json_decode(H.read(result)), out
end

-- Every distinct install snippet of both READMEs, with where it is from.
local snippets, seen, kinds = {}, {}, {}
for _, file in ipairs({ H.repo .. '/README.md', H.plugin_dir .. '/README.md' }) do
  for _, b in ipairs(code_blocks(file)) do
    local k = kind(b)
    if k and not seen[b.text] then
      seen[b.text] = true
      kinds[k] = true
      b.kind, b.file = k, file:sub(#H.repo + 2)
      table.insert(snippets, b)
    end
  end
end

describe('install', function()
  it('finds a snippet of each kind in the READMEs', function()
    for _, k in ipairs({ 'lazy', 'packer', 'vim.pack', 'start', 'opt' }) do
      H.truthy(kinds[k], 'no ' .. k .. ' snippet')
    end
  end)

  for _, b in ipairs(snippets) do
    local first = b.text:match('^[^\n]*')
    it(b.kind .. ' (' .. b.file .. '): ' .. first, function()
      local r, out = run(b)
      H.eq(b.kind == 'opt' and 0 or 2, r.before, ':Reasonix before :packadd (output: ' .. out .. ')')
      H.eq(2, r.after, ':Reasonix')
      H.eq(1, r.augroup, 'the plugin configured its autocommands')
      H.eq('', r.errmsg, 'v:errmsg')
      H.eq({}, r.notes, 'notifications')
      H.eq('', out, 'output')
    end)
  end
end)
