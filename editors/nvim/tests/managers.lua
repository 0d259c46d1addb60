-- Stand-ins for lazy.nvim, packer.nvim and Neovim 0.12's vim.pack, for
-- install_spec.lua, which starts a Neovim on each install snippet of the
-- READMEs. The managers themselves are not installed where the tests run
-- (and vim.pack needs 0.12), so each stand-in does what its manager's
-- documentation says for the keys the snippets use, and refuses any other
-- key: a snippet that starts using one fails until its stand-in learns it.
--
-- "Cloning" links the manager's install directory to this repository
-- ($REASONIX_REPO), the only plugin the snippets install.
local uv = vim.uv or vim.loop
local repo = assert(os.getenv('REASONIX_REPO'), 'REASONIX_REPO is not set')
local data = vim.fn.stdpath('data')

local M = {}

--- The plugin name a source gives: its last path element, without ".git".
local function name_of(source)
  return (source:gsub('/+$', ''):match('([^/]+)$'):gsub('%.git$', ''))
end

--- Installs source as dir (a link to the repository) and returns dir.
local function clone(source, dir)
  assert(name_of(source) == 'reasonix', 'the stand-ins install only reasonix, not ' .. source)
  vim.fn.mkdir(vim.fn.fnamemodify(dir, ':h'), 'p')
  assert(uv.fs_symlink(repo, dir))
  return dir
end

local function check_keys(manager, spec, allowed)
  for k in pairs(spec) do
    if not allowed[k] then
      error(manager .. ' stand-in: key ' .. tostring(k) .. ' is not supported', 0)
    end
  end
end

--- Sources a directory's plugin/ files, as loading a plugin does.
local function source_plugins(dir)
  for _, ext in ipairs({ 'vim', 'lua' }) do
    for _, f in ipairs(vim.fn.glob(dir .. '/plugin/**/*.' .. ext, false, true)) do
      vim.cmd('source ' .. vim.fn.fnameescape(f))
    end
  end
end

--- lazy.nvim's main module: `main`, else the module under lua/ whose name
--- is the plugin's, else the only one.
local function lazy_main(spec, name, dir)
  if spec.main then
    return spec.main
  end
  local mods = {}
  for _, f in ipairs(vim.fn.readdir(dir .. '/lua')) do
    local mod = f:gsub('%.lua$', '')
    if mod == name then
      return mod
    end
    table.insert(mods, mod)
  end
  assert(#mods == 1, 'lazy.nvim stand-in: no main module in ' .. dir)
  return mods[1]
end

-- lazy.nvim (require('lazy').setup(specs)): a plugin from `dir`, or cloned
-- into stdpath('data')/lazy/NAME; not lazy, it loads during setup: its
-- directory goes on 'runtimepath', its plugin/ files are sourced, then
-- config(plugin, opts) runs, or with `opts` (or config = true)
-- require(MAIN).setup(opts).
M.lazy = {
  setup = function(specs)
    for _, spec in ipairs(specs) do
      if type(spec) == 'string' then
        spec = { spec }
      end
      check_keys('lazy.nvim', spec, { [1] = true, dir = true, name = true, main = true, opts = true, config = true })
      local dir = spec.dir and vim.fn.expand(spec.dir)
      local name = spec.name or name_of(dir or spec[1])
      dir = dir or clone(spec[1], data .. '/lazy/' .. name)
      local plugin = { name = name, dir = dir }
      vim.opt.rtp:append(dir)
      source_plugins(dir)
      local opts = spec.opts or {}
      if type(spec.config) == 'function' then
        spec.config(plugin, opts)
      elseif spec.config == true or spec.opts ~= nil then
        require(lazy_main(spec, name, dir)).setup(opts)
      end
    end
  end,
}

-- packer.nvim (require('packer').startup(function(use) ... end)): a start
-- plugin is cloned into stdpath('data')/site/pack/packer/start/NAME (a
-- local path is used where it is), `rtp` appends that subdirectory to
-- 'runtimepath', and config() runs. Packer runs the last two from its
-- compiled loader during start-up; here they run at once.
M.packer = {
  startup = function(fn)
    fn(function(spec)
      if type(spec) == 'string' then
        spec = { spec }
      end
      check_keys('packer.nvim', spec, { [1] = true, rtp = true, config = true })
      local source = spec[1]
      local dir
      if source:match('^[/~]') then
        dir = vim.fn.expand(source)
      else
        dir = clone(source, data .. '/site/pack/packer/start/' .. name_of(source))
      end
      if spec.rtp then
        vim.opt.rtp:append(dir .. '/' .. spec.rtp)
      end
      if spec.config then
        spec.config()
      end
    end)
  end,
}

local packs = {}

-- vim.pack (Neovim 0.12): add() clones each source into
-- stdpath('data')/site/pack/core/opt/NAME and runs :packadd NAME (during
-- start-up :packadd!, leaving plugin/ files to Neovim's own loading);
-- get(names) lists the plugins with their `path`.
M.pack = {
  add = function(specs)
    for _, spec in ipairs(specs) do
      if type(spec) == 'string' then
        spec = { src = spec }
      end
      check_keys('vim.pack', spec, { src = true, name = true })
      local name = spec.name or name_of(spec.src)
      local dir = clone(spec.src, data .. '/site/pack/core/opt/' .. name)
      vim.cmd((vim.v.vim_did_enter == 1 and 'packadd ' or 'packadd! ') .. name)
      table.insert(packs, { spec = { src = spec.src, name = name }, path = dir, active = true })
    end
  end,
  get = function(names)
    local out = {}
    for _, p in ipairs(packs) do
      if not names or vim.tbl_contains(names, p.spec.name) then
        table.insert(out, p)
      end
    end
    return out
  end,
}

package.loaded['lazy'] = M.lazy
package.loaded['packer'] = M.packer
vim.pack = M.pack

return M
