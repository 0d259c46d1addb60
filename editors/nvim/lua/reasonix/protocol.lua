--- The custom part of the Reasonix protocol (docs/PROTOCOL.md): every
--- `reasonix/...` method and server command the plugin uses, by direction.
--- It mirrors the server's tables (customMethods in lsp/custom.go,
--- commands in lsp/command.go); nothing else in the plugin spells one of
--- these names. lsp/protocol_tables_test.go reads the three tables below
--- with a regular expression: keep one `key = 'name',` entry a line.
local M = {}

--- Requests the plugin sends the server.
M.to_server = {
  listSessions = 'reasonix/listSessions',
  newSession = 'reasonix/newSession',
  resumeSession = 'reasonix/resumeSession',
  mcpServers = 'reasonix/mcpServers',
  listCommands = 'reasonix/listCommands',
  memory = 'reasonix/memory',
  review = 'reasonix/review',
}

--- Requests and notifications the server sends, which the plugin handles.
M.to_client = {
  saveDocuments = 'reasonix/saveDocuments',
  approve = 'reasonix/approve',
  ask = 'reasonix/ask',
  event = 'reasonix/event',
}

--- The server's commands, run with workspace/executeCommand.
M.commands = {
  ask = 'reasonix.ask',
  start = 'reasonix.start',
  fix = 'reasonix.fix',
  cancel = 'reasonix.cancel',
  reviewAccept = 'reasonix.review.accept',
  reviewReject = 'reasonix.review.reject',
  reviewDiff = 'reasonix.review.diff',
  trust = 'reasonix.trust',
  rewind = 'reasonix.rewind',
  checkpoints = 'reasonix.checkpoints',
}

--- The actions of the trust question (window/showMessageRequest), in the
--- server's order: whether to trust a workspace's own configuration.
M.trust_actions = { 'Trust and enable', 'Keep disabled' }

--- What the plugin declares in capabilities.experimental.reasonix: it
--- handles every method of M.to_client.
---@return table
function M.client_features()
  return { saveDocuments = true, events = true, approvals = true, questions = true }
end

return M
