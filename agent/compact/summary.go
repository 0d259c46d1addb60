package compact

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/reasonix/reasonix/agent/provider"
)

// summarizeInstruction ends a summary request, as the last user message.
// It is not part of any later prompt, so it may change between versions.
const summarizeInstruction = "Summarise the conversation above for your own later use. " +
	"This summary will replace your messages and the tool results above in your context; " +
	"the user's messages stay as they are, so do not repeat them. Keep what you need to go on: " +
	"what was asked and done, what you found (file paths, names, numbers, errors), " +
	"decisions and why, what changed, and what is left to do. Be brief and specific. " +
	"Answer with the summary alone, in plain text, and call no tool."

// userNote follows the instruction when user messages are folded too:
// oversized ones, or the oldest when the kept ones outgrow their budget.
const userNote = " Some of the user's messages above are folded too (very long ones, or the oldest): " +
	"keep what they asked for and the facts they stated."

// rollingNote follows the instruction when the conversation is summarised
// in pieces and an earlier piece's summary opens the request.
const rollingNote = " The first user message above summarises the part of the conversation before it: " +
	"fold it into yours, so that your summary covers the whole conversation so far."

// rollingPrefix opens the user message carrying an earlier piece's summary.
const rollingPrefix = "Summary of the earlier part of this conversation:\n\n"

// Digest is the content of the digest that replaces n folded
// messages, users of them the user's.
func Digest(n, users int, summary string) string {
	kept := "the user's own messages are kept above"
	if users > 0 {
		kept = fmt.Sprintf("%d of them the user's; the user's other messages are kept above", users)
	}
	return fmt.Sprintf("Summary of the earlier work in this session (%d messages were folded into it, %s):\n\n%s", n, kept, summary)
}

// Instruction is the instruction that ends a summary request; foldsUser
// says the fold region holds user messages that are folded too.
func Instruction(foldsUser bool) string {
	if foldsUser {
		return summarizeInstruction + userNote
	}
	return summarizeInstruction
}

// PieceOverhead is the size in bytes of what a summary request ending
// with instruction adds to its piece of the fold region, besides the
// system message and the tools: the instruction, and the summary of the
// pieces before it with its framing.
func PieceOverhead(instruction string) int {
	return len(instruction) + len(rollingNote) + len(rollingPrefix) + 3*messageOverhead
}

// PieceMessages is the conversation of the request that summarises
// piece: the system message; the summary of the pieces before it, when
// there is one; the piece; and instruction, extended to fold that summary
// in.
func PieceMessages(system provider.Message, summary string, piece []provider.Message, instruction string) []provider.Message {
	msgs := []provider.Message{system}
	last := instruction
	if summary != "" {
		msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: rollingPrefix + summary})
		last += rollingNote
	}
	msgs = append(msgs, piece...)
	return append(msgs, provider.Message{Role: provider.RoleUser, Content: last})
}

// SplitPieces cuts msgs into runs of whole groups — a message and the tool
// results after it — in order: the first of at most first estimated
// tokens, the others of at most rest. A group larger than its room is
// clipped to fit.
func SplitPieces(msgs []provider.Message, k Sizer, first, rest int) [][]provider.Message {
	var out [][]provider.Message
	var cur []provider.Message
	size, room := 0, first
	for i := 0; i < len(msgs); {
		j := i + 1
		for j < len(msgs) && msgs[j].Role == provider.RoleTool {
			j++
		}
		group := msgs[i:j]
		gs := k.OfAll(group)
		if gs > room {
			group = clipGroup(group, k, room)
			gs = k.OfAll(group)
		}
		if len(cur) > 0 && size+gs > room {
			out = append(out, cur)
			cur, size, room = nil, 0, rest
			if gs > room {
				group = clipGroup(group, k, room)
				gs = k.OfAll(group)
			}
		}
		cur = append(cur, group...)
		size += gs
		i = j
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// clipGroup shortens the messages of a group so that together they fit
// room tokens: each gets an equal share of bytes, keeping its head and
// tail. Tool-call arguments over the share become a JSON object holding
// their clipped text, so they stay valid JSON.
func clipGroup(group []provider.Message, k Sizer, room int) []provider.Message {
	share := int(float64(room)/float64(k)) / (2 * len(group))
	out := make([]provider.Message, len(group))
	for i, m := range group {
		m.Content = clipText(m.Content, share)
		m.Reasoning = clipText(m.Reasoning, share/4)
		if len(m.ToolCalls) > 0 {
			calls := make([]provider.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				if len(c.Arguments) > share/len(calls) {
					b, _ := json.Marshal(map[string]string{"clipped": clipText(c.Arguments, share/len(calls))})
					c.Arguments = string(b)
				}
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		out[i] = m
	}
	return out
}

// clipText keeps the head and tail of s within about n bytes, on rune
// boundaries, with a note of what was left out between them.
func clipText(s string, n int) string {
	if len(s) <= n || n <= 0 {
		return s
	}
	h, t := n/2, len(s)-n/2
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	head, tail := s[:h], s[t:]
	return fmt.Sprintf("%s\n[… %d bytes left out of this summary request …]\n%s", head, len(s)-len(head)-len(tail), tail)
}
