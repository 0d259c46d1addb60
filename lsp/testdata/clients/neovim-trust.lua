-- Neovim 0.7's built-in LSP client opens a hostile repository's folder,
-- headless: the server asks whether to trust its configuration, which
-- starts nothing until the user does.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile neovim-trust.lua'
--
-- lsp/clients_trust_test.go runs it with REASONIX_LSP (the server
-- command), REASONIX_TEST_ROOT (the workspace folder), REASONIX_TEST_MARKS
-- (where the repository's programs and servers leave a file when they
-- act: empty until trusted), REASONIX_TEST_STARTED (the marks to wait for
-- once trusted) and REASONIX_TEST_ENTRIES (what the trust question must
-- list), both |-separated. The trust question is answered here, as a user
-- would: "Keep disabled", then, asked again through reasonix.trust,
-- "Trust and enable". Exits 0 only if every check held.

local T = dofile('reasonix_test.lua')
local say, getenv, wait = T.say, T.getenv, T.wait

local TRUST = 'Trust and enable|Keep disabled'
local root = getenv('REASONIX_TEST_ROOT')
local marks = getenv('REASONIX_TEST_MARKS')

local answer = 'Keep disabled'
local dialogs = T.answer_dialogs(function()
  return answer
end)

--- The marks left so far.
local function acted()
  local names = vim.fn.readdir(marks)
  table.sort(names)
  return names
end

local function main()
  local client = T.start({
    name = 'reasonix',
    cmd = { getenv('REASONIX_LSP') },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = 'ws' } },
  })

  -- Opening the folder asks; nothing of the repository's has acted.
  wait('the trust question', function()
    return #dialogs > 0 or #acted() > 0
  end)
  assert(#acted() == 0, "the repository's configuration acted before it was trusted: " .. table.concat(acted(), ' '))
  local question = dialogs[1]
  assert(question.actions == TRUST, 'the trust question offers ' .. question.actions)
  for _, entry in ipairs(vim.split(getenv('REASONIX_TEST_ENTRIES'), '|', { plain = true })) do
    assert(question.message:find(entry, 1, true), 'the trust question does not list ' .. entry .. ':\n' .. question.message)
  end

  -- Kept disabled, everything else works.
  local function command(name, arg)
    return T.command(client, name, arg)
  end
  local turn = command('reasonix.ask', { prompt = 'Say hello' })
  assert(turn.text == 'Hello from your own model.', 'the turn: ' .. vim.inspect(turn))
  local mcp = command('reasonix.ask', { prompt = '/mcp' })
  assert(mcp.text:find('No MCP servers are configured', 1, true), '/mcp lists ' .. mcp.text)
  assert(#acted() == 0, "the repository's configuration acted though kept disabled: " .. table.concat(acted(), ' '))
  assert(#dialogs == 1, #dialogs .. ' dialogs: ' .. vim.inspect(dialogs))

  -- Asked again and trusted: its servers start.
  answer = 'Trust and enable'
  local trust = command('reasonix.trust', { action = 'review' })
  assert(trust.trusted and trust.granted, 'reasonix.trust answered ' .. vim.inspect(trust))
  assert(#dialogs == 2 and dialogs[2].actions == TRUST, 'the dialogs: ' .. vim.inspect(dialogs))
  local started = vim.split(getenv('REASONIX_TEST_STARTED'), '|', { plain = true })
  wait('the marks ' .. table.concat(started, ' '), function()
    local now = acted()
    for _, m in ipairs(started) do
      if not vim.tbl_contains(now, m) then
        return false
      end
    end
    return true
  end)

  T.stop(client)
  say('ok: kept disabled, nothing acted; trusted, %s', table.concat(acted(), ' '))
end

T.run(main)
