--- What the plugin remembers between commands. One table, so the chat,
--- the commands and :checkhealth agree on it.
---@class reasonix.State
---@field client_id integer|nil The client of the chat's session.
---@field session string|nil The chat's session: `:Reasonix ask` continues it.
---@field running table<string, boolean> Sessions with a turn in progress.
---@field errors table<integer, string> The last error each client's server showed.
---@field last_file_buf integer|nil The last file buffer entered, for commands run from the chat.
---@field context table<string, {window: integer, tokens: integer}> How full each session's context window is.
---@field todos table<string, {content: string, status: string, activeForm: string|nil}[]> Each session's todo list.
return {
  client_id = nil,
  session = nil,
  running = {},
  errors = {},
  last_file_buf = nil,
  context = {},
  todos = {},
}
