// Package wire is the LSP wire layer shared by both directions of
// Reasonix's language-server traffic: the server that editors talk to
// (package lsp) and the client that drives gopls and other language
// servers (package graph). It holds the base protocol's framing
// (NewStream), the JSON codec (Codec), position conversion between byte
// offsets and UTF-8, UTF-16 or UTF-32 positions (Offset, Position, Text),
// and text edits (TextEdits, the line diff; ApplyEdits).
//
// It imports no other package of this module.
package wire
