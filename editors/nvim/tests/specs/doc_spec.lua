-- doc/reasonix.txt is valid help: :helptags accepts it, and every |link|
-- in it leads to a tag, its own or Neovim's.
local H = require('helpers')

describe('doc', function()
  it('builds help tags and every link resolves', function()
    local dir = H.tmpdir()
    vim.fn.mkdir(dir .. '/doc', 'p')
    local text = H.read(H.plugin_dir .. '/doc/reasonix.txt')
    H.write(dir .. '/doc/reasonix.txt', text)
    vim.cmd('helptags ' .. vim.fn.fnameescape(dir .. '/doc'))
    local tags = H.read(dir .. '/doc/tags')
    for _, want in ipairs({ 'reasonix', ':Reasonix', 'reasonix-approvals', 'reasonix.setup()', 'g:reasonix' }) do
      H.truthy(tags:find('\n' .. vim.pesc(want) .. '\t', 1) or vim.startswith(tags, want .. '\t'), 'tag ' .. want)
    end
    vim.opt.rtp:prepend(dir)
    local missing = {}
    for link in text:gmatch('|([^|%s]+)|') do
      if not pcall(vim.cmd, 'help ' .. link) then
        table.insert(missing, link)
      end
    end
    vim.cmd('helpclose')
    H.eq({}, missing, 'links without a tag')
  end)
end)
