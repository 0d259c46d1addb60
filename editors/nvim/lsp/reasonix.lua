-- Reasonix as a language server, as plain data for Neovim 0.11+:
--
--   vim.lsp.enable('reasonix')
--
-- This is what works with Neovim's client alone: code actions ("Ask
-- Reasonix to fix: ..."), permission dialogs (window/showMessageRequest),
-- edits (workspace/applyEdit) and progress. It declares none of the Reasonix
-- extensions, because those need handlers that data cannot hold. The
-- reasonix.nvim plugin, when loaded, extends this config with
-- vim.lsp.config('reasonix', {...}): it declares
-- capabilities.experimental.reasonix = {saveDocuments, events, approvals},
-- adds the handlers for reasonix/saveDocuments, reasonix/approve and
-- reasonix/event, and the :Reasonix command. See :help reasonix-0.11.
return {
  cmd = { 'reasonix', 'lsp' },
  root_markers = { 'reasonix.toml', '.git', '.hg', 'go.mod', 'package.json', 'Cargo.toml', 'pyproject.toml' },
}
