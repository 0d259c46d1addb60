// Package compact decides what a compaction of a session keeps and what it
// folds, and shapes the requests that have a model summarise what is
// folded. It is pure — no model, no session, no files — so its rules are
// tested without either; the agent sends the requests and rewrites the
// session.
//
// A compacted view is
//
//	system message · kept messages · digest · tail
//
// The tail is the most recent work, kept as it was. Everything between the
// system message and the tail is the fold region: its user messages of
// normal size and the digests of earlier compactions are kept verbatim, in
// their order, and everything else (assistant messages, tool results,
// oversized user messages) is summarised into the new digest and moved to
// the archive.
package compact

import (
	"math"

	"github.com/reasonix/reasonix/agent/provider"
)

// DefaultTokensPerByte estimates prompt tokens before any request has
// reported its count: a little above what BPE tokenizers give English and
// code, so the first estimate errs towards compacting early.
const DefaultTokensPerByte = 0.4

// Per-message overhead, in bytes, of the role and framing a provider adds.
const (
	messageOverhead = 12
	callOverhead    = 24
)

// messageBytes is the size of a message as the estimates count it.
func messageBytes(m provider.Message) int {
	n := len(m.Content) + len(m.Reasoning) + len(m.ToolCallID) + len(m.Name) + messageOverhead
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Name) + len(c.Arguments) + callOverhead
	}
	return n
}

// MessagesBytes is the size of msgs as the estimates count them.
func MessagesBytes(msgs []provider.Message) int {
	n := 0
	for _, m := range msgs {
		n += messageBytes(m)
	}
	return n
}

// SchemasBytes is the size of tool schemas as the estimates count them.
func SchemasBytes(ts []provider.ToolSchema) int {
	n := 0
	for _, t := range ts {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + callOverhead
	}
	return n
}

// A Sizer turns bytes into estimated tokens: it is the tokens per byte of
// the provider's tokenizer, as last measured.
type Sizer float64

// Tokens is the estimate of bytes bytes.
func (k Sizer) Tokens(bytes int) int { return int(math.Ceil(float64(k) * float64(bytes))) }

// Of is the estimate of one message.
func (k Sizer) Of(m provider.Message) int {
	return k.Tokens(messageBytes(m))
}

// OfAll is the estimate of msgs.
func (k Sizer) OfAll(msgs []provider.Message) int { return k.Tokens(MessagesBytes(msgs)) }
