package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

// digestText is the content of the digest that replaces n folded
// messages, users of them the user's.
func digestText(n, users int, summary string) string {
	kept := "the user's own messages are kept above"
	if users > 0 {
		kept = fmt.Sprintf("%d of them the user's; the user's other messages are kept above", users)
	}
	return fmt.Sprintf("Summary of the earlier work in this session (%d messages were folded into it, %s):\n\n%s", n, kept, summary)
}

// summarize has the summary model summarise fold, the fold region of a
// compaction, and returns the summary.
//
// The request reuses the session's cached prefix: the same system message
// and tools, the fold region as the session sent it, then the
// instruction as the last user message; since the fold region is where
// the history begins, most of the request is a cache hit.
//
// A fold region too large for the model's window even in such a request
// (a long session resumed against a smaller model) is summarised in
// pieces: runs of whole message groups that fit, in order, each request
// opening with the summary of the pieces before it, so the last summary
// covers everything. A group that alone does not fit is clipped for the
// request (its head and tail kept; the archive keeps it whole). If the
// provider still refuses a request as too long — the estimates are
// estimates — the pieces are made smaller once.
func (t *turn) summarize(ctx context.Context, system provider.Message, fold []provider.Message, foldsUser bool, schemas []provider.ToolSchema, b budgets, res *CompactResult) (string, error) {
	sm := t.a.summarizer()
	if t.a.Summarizer == nil {
		sm.Window = t.window() // the session's own model, as its provider named it
	}
	instruction := summarizeInstruction
	if foldsUser {
		instruction += userNote
	}
	k := t.s.sizer()
	fixed := k.of(system) + k.tokens(schemasBytes(schemas)+len(instruction)+len(rollingNote)+len(rollingPrefix)+3*messageOverhead)
	// Estimates are estimates: leave a twentieth of the window spare, and
	// if the provider still refuses, try again with pieces of half the
	// window.
	windows := []int{sm.Window * 19 / 20, sm.Window / 2}
	if sm.Window <= 0 {
		// The window is unknown: one request, and only if the provider
		// refuses it, pieces sized for a common window.
		windows = []int{0, defaultPlanWindow * 19 / 20, defaultPlanWindow / 2}
	}
	var err error
	for _, w := range windows {
		room := 0 // no limit
		if w > 0 {
			// A piece shares the window with the fixed part and the
			// answer.
			room = max(w-fixed-b.summary, 2*b.summary)
		}
		var text string
		text, err = t.summarizePieces(ctx, sm, system, fold, instruction, schemas, k, room, b.summary, res)
		if err == nil || !provider.IsContextLength(err) {
			return text, err
		}
	}
	return "", err
}

// summarizePieces summarises fold in pieces of at most room tokens (all
// at once when room is 0), each request ending with instruction.
func (t *turn) summarizePieces(ctx context.Context, sm Summarizer, system provider.Message, fold []provider.Message, instruction string, schemas []provider.ToolSchema, k sizer, room, maxOut int, res *CompactResult) (string, error) {
	chunks := [][]provider.Message{fold}
	if room > 0 {
		// Pieces after the first also carry the summary so far.
		chunks = splitPieces(fold, k, room, room-maxOut)
	}
	summary := ""
	for _, chunk := range chunks {
		msgs := []provider.Message{system}
		last := instruction
		if summary != "" {
			msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: rollingPrefix + summary})
			last += rollingNote
		}
		msgs = append(msgs, chunk...)
		msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: last})
		text, err := t.summaryRequest(ctx, sm, msgs, schemas, maxOut, res)
		if err != nil {
			return "", err
		}
		if text = strings.TrimSpace(text); text == "" {
			// The model answered with tool calls or nothing: list what
			// the piece did, which beats losing track of it.
			text = strings.TrimSpace(summary + "\n\n" + outline(chunk, 3*maxOut))
		}
		summary = text
	}
	res.Pieces = len(chunks)
	return summary, nil
}

// summaryRequest sends one summary request and accounts for it.
func (t *turn) summaryRequest(ctx context.Context, sm Summarizer, msgs []provider.Message, schemas []provider.ToolSchema, maxOut int, res *CompactResult) (string, error) {
	req := provider.Request{Model: sm.Model, Messages: msgs, Tools: schemas, Temperature: t.a.Temperature, MaxTokens: maxOut}
	bytes := messagesBytes(msgs) + schemasBytes(schemas)
	resp, err := t.send(ctx, sm.Provider, sm.model(), "summary", req, t.s.sizer().tokens(bytes), bytes, t.forwardRetries)
	if err != nil {
		return "", err
	}
	res.Requests++
	cost, err := t.account(resp, bytes, sm.model())
	res.Usage.Add(resp.Usage)
	res.Cost += cost
	if t.a.Summarizer == nil {
		// The session's own model: its tokenizer is the session's.
		t.s.calibrate(resp.Usage.PromptTokens, bytes)
	}
	if err != nil {
		return "", err
	}
	return resp.Message.Content, nil
}

// forwardRetries reports a summary request's retries; its text is not
// the answer of the turn and is not shown.
func (t *turn) forwardRetries(c provider.Chunk) {
	if c.Kind == provider.ChunkRetry {
		t.forward(c)
	}
}

// splitPieces cuts msgs into runs of whole groups — a message and the tool
// results after it — in order: the first of at most first estimated
// tokens, the others of at most rest. A group larger than its room is
// clipped to fit.
func splitPieces(msgs []provider.Message, k sizer, first, rest int) [][]provider.Message {
	var out [][]provider.Message
	var cur []provider.Message
	size, room := 0, first
	for i := 0; i < len(msgs); {
		j := i + 1
		for j < len(msgs) && msgs[j].Role == provider.RoleTool {
			j++
		}
		group := msgs[i:j]
		gs := k.ofAll(group)
		if gs > room {
			group = clipGroup(group, k, room)
			gs = k.ofAll(group)
		}
		if len(cur) > 0 && size+gs > room {
			out = append(out, cur)
			cur, size, room = nil, 0, rest
			if gs > room {
				group = clipGroup(group, k, room)
				gs = k.ofAll(group)
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
func clipGroup(group []provider.Message, k sizer, room int) []provider.Message {
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

// outline lists what msgs did, within about n bytes: the calls made, the
// first line of each assistant message, and the user messages folded.
// It stands in for a summary the model did not write.
func outline(msgs []provider.Message, n int) string {
	var b strings.Builder
	b.WriteString("Folded without a summary; what happened:\n")
	for _, m := range msgs {
		line := ""
		switch {
		case m.Role == provider.RoleAssistant && len(m.ToolCalls) > 0:
			var calls []string
			for _, c := range m.ToolCalls {
				calls = append(calls, DescribeCall(c.Name, rawOrString(c.Arguments)))
			}
			line = "- called " + strings.Join(calls, "; ")
		case m.Role == provider.RoleAssistant || m.Role == provider.RoleUser:
			first, _, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
			if first != "" {
				line = fmt.Sprintf("- %s: %s", m.Role, abbreviate(first, 160))
			}
		}
		if line == "" {
			continue
		}
		if b.Len()+len(line) > n {
			b.WriteString("- …\n")
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
