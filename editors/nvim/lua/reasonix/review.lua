--- The agent's proposed changes (review = "propose"): the server keeps its
--- edits as hunks and shows each as a diagnostic with accept and reject
--- code actions. This module shows them in the buffer as well — the lines
--- a hunk replaces highlighted, the lines it adds as virtual lines — and
--- accepts or rejects the hunk under the cursor or the whole file, with
--- reasonix/review and the reasonix.review.* commands.
local lsp = require('reasonix.lsp')
local protocol = require('reasonix.protocol')

local api = vim.api
local M = {}

M.ns = api.nvim_create_namespace('reasonix_review')

--- The hunks of each buffer as reasonix/review last listed them.
---@type table<integer, table[]>
local pending = {}

local notify = require('reasonix.commands').notify
local error_text = require('reasonix.commands').error_text

--- The lines a hunk replaces: [first, last) rows.
local function rows(h)
  local first, last = h.range.start.line, h.range['end'].line
  if h.range['end'].character > 0 then
    last = last + 1
  end
  return first, last
end

--- Shows hunks in bufnr, replacing what was shown.
---@param bufnr integer
---@param hunks table[] as reasonix/review lists them
function M.draw(bufnr, hunks)
  if not api.nvim_buf_is_valid(bufnr) then
    return
  end
  api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  pending[bufnr] = hunks
  local count = api.nvim_buf_line_count(bufnr)
  for _, h in ipairs(hunks) do
    local first, last = rows(h)
    if h.stale then
      api.nvim_buf_set_extmark(bufnr, M.ns, math.min(first, count - 1), 0, {
        virt_text = { { 'stale proposed change: reject it', 'DiagnosticWarn' } },
      })
    else
      if last > first then
        api.nvim_buf_set_extmark(bufnr, M.ns, first, 0, {
          end_row = math.min(last, count), end_col = 0, hl_group = 'DiffDelete', hl_eol = true,
        })
      end
      local added = vim.split(h.newText, '\n', { plain = true })
      if added[#added] == '' then
        table.remove(added)
      end
      if #added > 0 then
        local virt = {}
        for _, l in ipairs(added) do
          table.insert(virt, { { '+ ' .. l:gsub('\t', '    '), 'DiffAdd' } })
        end
        -- Above the line after the replaced ones, or below the last line.
        local row, above = last, true
        if row >= count then
          row, above = count - 1, false
        end
        api.nvim_buf_set_extmark(bufnr, M.ns, math.max(row, 0), 0, { virt_lines = virt, virt_lines_above = above })
      end
    end
  end
end

--- Asks the server for bufnr's proposal and shows it.
---@param client table
---@param bufnr integer
function M.refresh(client, bufnr)
  local uri = vim.uri_from_bufnr(bufnr)
  lsp.request(client, protocol.to_server.review, { uri = uri }, function(err, result)
    if err or type(result) ~= 'table' then
      return
    end
    local file = (result.files or {})[1]
    M.draw(bufnr, file and file.hunks or {})
  end, bufnr)
end

--- Called with each textDocument/publishDiagnostics: a buffer that shows
--- or gets proposals is shown again.
---@param result table the notification's params
---@param ctx table
function M.on_diagnostics(result, ctx)
  local bufnr = vim.uri_to_bufnr(result.uri)
  local ours = pending[bufnr] and #pending[bufnr] > 0
  for _, d in ipairs(result.diagnostics or {}) do
    if d.source == 'reasonix' then
      ours = true
    end
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if ours and client and api.nvim_buf_is_loaded(bufnr) then
    M.refresh(client, bufnr)
  end
end

--- The hunk at row (0-based) of bufnr, if any.
---@return table|nil
function M.hunk_at(bufnr, row)
  for _, h in ipairs(pending[bufnr] or {}) do
    local first, last = rows(h)
    if (row >= first and row < last) or row == first then
      return h
    end
  end
  return nil
end

--- The client of the current buffer, or nil after saying why there is
--- none.
---@return table|nil client
---@return integer bufnr
local function current_client()
  local bufnr = api.nvim_get_current_buf()
  local client, why = lsp.client_for(bufnr)
  if not client then
    notify(why, vim.log.levels.WARN)
  end
  return client, bufnr
end

--- Accepts or rejects the hunk under the cursor, or every hunk of the
--- current file.
---@param verb 'accept'|'reject'
---@param scope 'hunk'|'file'
function M.decide(verb, scope)
  local client, bufnr = current_client()
  if not client then
    return
  end
  local args = { uri = vim.uri_from_bufnr(bufnr) }
  if scope == 'hunk' then
    local h = M.hunk_at(bufnr, api.nvim_win_get_cursor(0)[1] - 1)
    if not h then
      notify('no proposed change on this line', vim.log.levels.WARN)
      return
    end
    args.hunk = h.id
  end
  local command = verb == 'accept' and protocol.commands.reviewAccept or protocol.commands.reviewReject
  lsp.request(client, 'workspace/executeCommand', { command = command, arguments = { args } }, function(err, res)
    if err then
      notify('cannot ' .. verb .. ': ' .. error_text(err), vim.log.levels.ERROR)
    elseif type(res) == 'table' then
      local done = verb == 'accept' and 'accepted' or 'rejected'
      notify(string.format('%s %d change%s; %d left in this file', done, res.hunks, res.hunks == 1 and '' or 's', res.pending))
    end
    M.refresh(client, bufnr)
  end, bufnr)
end

--- Fills the quickfix list with every pending hunk of the workspace and
--- opens it.
function M.list()
  local client, bufnr = current_client()
  if not client then
    return
  end
  -- An empty Lua table would go as [], not {}.
  lsp.request(client, protocol.to_server.review, vim.empty_dict(), function(err, result)
    if err or type(result) ~= 'table' then
      notify('cannot list the proposed changes: ' .. error_text(err), vim.log.levels.ERROR)
      return
    end
    local items = {}
    for _, f in ipairs(result.files or {}) do
      for _, h in ipairs(f.hunks or {}) do
        local first = vim.split(h.newText, '\n', { plain = true })[1]
        local what = h.stale and 'stale: reject it' or (h.newText == '' and 'delete' or ('→ ' .. first))
        table.insert(items, {
          filename = vim.uri_to_fname(f.uri),
          lnum = h.range.start.line + 1,
          col = 1,
          text = string.format('%s change %d: %s', f.kind, h.id, what),
        })
      end
    end
    vim.fn.setqflist({}, ' ', { title = 'Reasonix: proposed changes', items = items })
    if #items == 0 then
      notify('no proposed changes')
      return
    end
    vim.cmd('copen')
  end, bufnr)
end

return M
