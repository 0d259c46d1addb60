-- reasonix.nvim: load guard, version gate, the :Reasonix command. Everything
-- else is required when first used.
if vim.g.loaded_reasonix then
  return
end
vim.g.loaded_reasonix = 1

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.api.nvim_echo({ { 'reasonix.nvim needs Neovim 0.7 or later', 'ErrorMsg' } }, true, {})
  return
end

vim.api.nvim_create_user_command('Reasonix', function(o)
  require('reasonix.commands').run(o)
end, {
  nargs = '*',
  range = true,
  desc = 'Reasonix: ask, fix, chat, cancel, sessions, resume, new, mcp, memory, review, accept, reject, trust, rewind',
  complete = function(arglead, cmdline, cursorpos)
    return require('reasonix.commands').complete(arglead, cmdline, cursorpos)
  end,
})

require('reasonix')._load()
