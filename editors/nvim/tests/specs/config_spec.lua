-- setup() and vim.g.reasonix: clear errors for wrong types and unknown
-- keys, lists that replace, keymaps only when asked for, the :Reasonix
-- command and its completion.
local H = require('helpers')

--- The error setup(opts) raises.
local function setup_error(opts)
  local ok, err = pcall(require('reasonix').setup, opts)
  H.truthy(not ok, 'setup accepted ' .. vim.inspect(opts))
  return err
end

describe('config', function()
  it('names the option and what it must be', function()
    local cases = {
      { { cmd = 'reasonix' }, 'reasonix: cmd: expected a non-empty list of strings, such as {"reasonix", "lsp"}, got reasonix' },
      { { cmd = {} }, 'reasonix: cmd: expected a non-empty list of strings' },
      { { root_markers = { 1 } }, 'reasonix: root_markers: expected a non-empty list of file names' },
      { { filetypes = 'go' }, 'reasonix: filetypes: expected nil (every filetype) or a list of filetypes, got go' },
      { { settings = 'x' }, 'reasonix: settings: expected table, got string' },
      { { autostart = 1 }, 'reasonix: autostart: expected boolean, got number' },
      { { chat = { position = 'left' } }, 'reasonix: chat.position: expected "right" or "bottom", got left' },
      { { chat = { width = 0 } }, 'reasonix: chat.width: expected a positive integer, got 0' },
      { { chat = { reasoning = 'yes' } }, 'reasonix: chat.reasoning: expected "hide" or "fold" or "show", got yes' },
      { { keymaps = { ask = 1 } }, 'reasonix: keymaps.ask: expected string, got number' },
    }
    for _, c in ipairs(cases) do
      local err = setup_error(c[1])
      H.truthy(vim.startswith(err, c[2]), string.format('error for %s:\n  want %s\n  got  %s', vim.inspect(c[1]), c[2], err))
    end
  end)

  it('rejects unknown keys, listing the valid ones', function()
    H.eq(
      "reasonix: unknown option 'comand' (valid: autostart, chat, cmd, filetypes, keymaps, progress, request_coroutines, root_markers, settings)",
      setup_error({ comand = { 'reasonix' } }),
      'top level'
    )
    H.eq(
      "reasonix: unknown option 'chat.widht' (valid: auto_open, height, position, reasoning, width)",
      setup_error({ chat = { widht = 3 } }),
      'chat'
    )
    H.eq(
      "reasonix: unknown option 'keymaps.explain' (valid: accept, accept_file, ask, cancel, chat, fix, new, reject, reject_file, review, sessions)",
      setup_error({ keymaps = { explain = '<leader>e' } }),
      'keymaps'
    )
    H.eq("reasonix: options must be a table, got string", setup_error('x'), 'not a table')
  end)

  it('merges over the defaults; lists replace', function()
    H.setup({ root_markers = { 'only.marker' }, chat = { position = 'bottom' } })
    local cfg = require('reasonix').config()
    H.eq({ 'only.marker' }, cfg.root_markers, 'root_markers')
    H.eq('bottom', cfg.chat.position, 'chat.position')
    H.eq(70, cfg.chat.width, 'chat.width default')
    H.eq(nil, cfg.filetypes, 'filetypes default (all)')
    H.setup()
  end)

  it('reports a bad vim.g.reasonix when the plugin loads, and starts nothing', function()
    package.loaded['reasonix'] = nil
    vim.g.reasonix = { cmd = 'reasonix' }
    require('reasonix')._load()
    vim.wait(100, function()
      return #H.notifications > 0
    end)
    vim.g.reasonix = nil
    H.eq(1, #H.notifications, 'notifications')
    H.eq(vim.log.levels.ERROR, H.notifications[1].level, 'level')
    H.truthy(H.notifications[1].msg:find('reasonix: cmd: expected a non-empty list of strings', 1, true), H.notifications[1].msg)
    H.truthy(H.notifications[1].msg:find('(in vim.g.reasonix)', 1, true), H.notifications[1].msg)
    package.loaded['reasonix'] = nil
  end)

  it('maps keys only when asked to', function()
    H.setup()
    H.eq('', vim.fn.maparg('<leader>rf', 'n'), 'no default mapping')
    H.setup({ keymaps = { fix = '<leader>rf', ask = '<leader>ra' } })
    H.eq('<Cmd>Reasonix fix<CR>', vim.fn.maparg('<leader>rf', 'n'), 'fix')
    H.eq(':Reasonix ask ', vim.fn.maparg('<leader>ra', 'x'), 'ask in visual mode')
    H.setup()
    H.eq('', vim.fn.maparg('<leader>rf', 'n'), 'removed by the next setup')
  end)

  it('completes subcommands, and rejects unknown ones', function()
    H.eq({ 'accept', 'ask', 'cancel', 'chat', 'fix', 'mcp', 'memory', 'new', 'reject', 'resume', 'review', 'rewind', 'sessions', 'trust' }, vim.fn.getcompletion('Reasonix ', 'cmdline'), 'all')
    H.eq({ 'cancel', 'chat' }, vim.fn.getcompletion('Reasonix c', 'cmdline'), 'prefix')
    vim.cmd('Reasonix frobnicate')
    H.truthy(H.notifications[1].msg:find("unknown subcommand 'frobnicate'", 1, true), 'notification')
  end)

  it('sends changed settings to running servers', function()
    local root = H.workspace('text hi\n')
    H.setup({ settings = { agent = { max_steps = 7 } } })
    local _, client = H.open(root, 'calc.go')
    H.eq({ agent = { max_steps = 7 } }, client.config.init_options, 'initializationOptions')
    local sent
    local notify = client.notify
    client.notify = function(method, params)
      if method == 'workspace/didChangeConfiguration' then
        sent = params
      end
      return notify(method, params)
    end
    H.setup({ settings = { agent = { max_steps = 9 } } })
    H.eq({ settings = { agent = { max_steps = 9 } } }, sent, 'didChangeConfiguration')
    client.notify = notify
  end)

  it('attaches to any file in a workspace, one client per root, not outside', function()
    local root = H.workspace('text hi\n', { files = { ['notes/todo.txt'] = 'x\n', ['README.md'] = '# r\n' } })
    local other = H.workspace('text hi\n')
    local outside = H.tmpdir() .. '/loose.txt'
    H.write(outside, 'x\n')
    H.setup()
    local _, c1 = H.open(root, 'notes/todo.txt')
    local _, c2 = H.open(root, 'README.md')
    local _, c3 = H.open(other, 'calc.go')
    H.eq(c1.id, c2.id, 'one client for the root')
    H.truthy(c1.id ~= c3.id, 'another root, another client')
    vim.cmd('edit ' .. outside)
    vim.wait(200)
    H.eq(nil, require('reasonix').client(), 'no client outside a workspace')
    H.eq(2, #require('reasonix.lsp').clients(), 'clients')
  end)
end)
