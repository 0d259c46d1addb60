package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/reasonix/reasonix/agent/compact"
	"github.com/reasonix/reasonix/agent/provider"
)

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
func (t *turn) summarize(ctx context.Context, system provider.Message, fold []provider.Message, foldsUser bool, schemas []provider.ToolSchema, b compact.Budgets, res *CompactResult) (string, error) {
	sm := t.a.summarizer()
	if t.a.Summarizer == nil {
		sm.Window = t.window() // the session's own model, as its provider named it
	}
	instruction := compact.Instruction(foldsUser)
	k := t.s.sizer()
	fixed := k.Of(system) + k.Tokens(compact.SchemasBytes(schemas)+compact.PieceOverhead(instruction))
	// Estimates are estimates: leave a twentieth of the window spare, and
	// if the provider still refuses, try again with pieces of half the
	// window.
	windows := []int{sm.Window * 19 / 20, sm.Window / 2}
	if sm.Window <= 0 {
		// The window is unknown: one request, and only if the provider
		// refuses it, pieces sized for a common window.
		windows = []int{0, compact.DefaultPlanWindow * 19 / 20, compact.DefaultPlanWindow / 2}
	}
	var err error
	for _, w := range windows {
		room := 0 // no limit
		if w > 0 {
			// A piece shares the window with the fixed part and the
			// answer.
			room = max(w-fixed-b.Summary, 2*b.Summary)
		}
		var text string
		text, err = t.summarizePieces(ctx, sm, system, fold, instruction, schemas, k, room, b.Summary, res)
		if err == nil || !provider.IsContextLength(err) {
			return text, err
		}
	}
	return "", err
}

// summarizePieces summarises fold in pieces of at most room tokens (all
// at once when room is 0), each request ending with instruction.
func (t *turn) summarizePieces(ctx context.Context, sm Summarizer, system provider.Message, fold []provider.Message, instruction string, schemas []provider.ToolSchema, k compact.Sizer, room, maxOut int, res *CompactResult) (string, error) {
	chunks := [][]provider.Message{fold}
	if room > 0 {
		// Pieces after the first also carry the summary so far.
		chunks = compact.SplitPieces(fold, k, room, room-maxOut)
	}
	summary := ""
	for _, chunk := range chunks {
		msgs := compact.PieceMessages(system, summary, chunk, instruction)
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
	bytes := compact.MessagesBytes(msgs) + compact.SchemasBytes(schemas)
	resp, err := t.send(ctx, sm.Provider, sm.model(), "summary", req, t.s.sizer().Tokens(bytes), bytes, t.forwardRetries)
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
