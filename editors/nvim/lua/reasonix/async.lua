--- Answering a server request after the user has answered a picker.
---
--- Neovim's LSP client calls the handler of a server → client request and
--- sends whatever it returns as the response, so a handler that must wait
--- for the user (a permission question) has to hold its answer back without
--- holding up the editor. Neovim 0.9+ calls those handlers inside a
--- coroutine (runtime/lua/vim/lsp/rpc.lua wraps the dispatch in
--- coroutine.wrap), so a handler can yield and be resumed from
--- vim.ui.select's callback — the way Neovim's own showMessageRequest
--- handler uses vim.ui.select.
---
--- Neovim 0.7 and 0.8 call the handler from a plain scheduled function.
--- For them, `M.enable_request_coroutines` gives vim.lsp.rpc the same
--- behaviour: the module's private `schedule` (which it uses only to
--- dispatch server requests) becomes `vim.schedule(coroutine.wrap(fn))`.
--- A handler that never yields runs exactly as before. If the patch is
--- turned off (`request_coroutines = false`) or cannot be applied, `M.await`
--- falls back to vim.wait: timers, RPC and scheduled callbacks keep
--- running, a picker that answers synchronously (the built-in inputlist)
--- works, and <C-c> gives up (Deny); but an asynchronous picker (telescope,
--- snacks...) gets no keys until the wait ends, which is why the patch is
--- the default.

local M = {}

--- How long the fallback waits for an answer before giving up.
M.fallback_timeout_ms = 10 * 60 * 1000

local patched = false

--- Whether server request handlers run in a coroutine they may yield.
---@return boolean
function M.requests_yieldable()
  return patched or vim.fn.has('nvim-0.9') == 1
end

--- Finds the upvalue `name` of fn, or of a function among fn's upvalues.
---@return function|nil fn
---@return integer|nil index
local function find_upvalue(fn, name, want, depth, seen)
  if seen[fn] then
    return nil
  end
  seen[fn] = true
  local i = 1
  while true do
    local n, v = debug.getupvalue(fn, i)
    if not n then
      break
    end
    if n == name and v == want then
      return fn, i
    end
    i = i + 1
  end
  if depth > 0 then
    i = 1
    while true do
      local n, v = debug.getupvalue(fn, i)
      if not n then
        break
      end
      if type(v) == 'function' then
        local f, j = find_upvalue(v, name, want, depth - 1, seen)
        if f then
          return f, j
        end
      end
      i = i + 1
    end
  end
  return nil
end

--- Makes vim.lsp.rpc dispatch server requests inside a coroutine on
--- Neovim 0.7–0.8, as 0.9+ does. Idempotent.
---@return boolean ok whether handlers may now yield
function M.enable_request_coroutines()
  if M.requests_yieldable() then
    return true
  end
  local ok, rpc = pcall(require, 'vim.lsp.rpc')
  if not ok or type(rpc.start) ~= 'function' then
    return false
  end
  -- The upvalue is shared by every closure of rpc.lua that uses it, so
  -- setting it once through rpc.start reaches the request dispatcher of
  -- clients started before and after.
  local fn, index = find_upvalue(rpc.start, 'schedule', vim.schedule, 2, {})
  if not fn then
    return false
  end
  debug.setupvalue(fn, index, function(cb)
    return vim.schedule(coroutine.wrap(cb))
  end)
  patched = true
  return true
end

--- Calls ask(done) and returns the value passed to done. If done is
--- called at once (a synchronous picker, a test stub), so is the return;
--- otherwise the calling coroutine yields until done runs, or, outside a
--- coroutine, the event loop runs until done or the timeout (nil).
---@param ask fun(done: fun(value: any))
---@return any
function M.await(ask)
  local co, is_main = coroutine.running()
  local yieldable = co ~= nil and not is_main
  local finished, result, waiting = false, nil, false
  ask(function(value)
    if finished then
      return
    end
    finished, result = true, value
    if waiting then
      -- Resume from the main loop, never from inside the picker's code.
      vim.schedule(function()
        local ok, err = coroutine.resume(co, value)
        if not ok then
          vim.notify('reasonix: ' .. tostring(err), vim.log.levels.ERROR)
        end
      end)
    end
  end)
  if finished then
    return result
  end
  if yieldable then
    waiting = true
    return coroutine.yield()
  end
  vim.wait(M.fallback_timeout_ms, function()
    return finished
  end, 20)
  return result
end

return M
