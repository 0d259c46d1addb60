package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/agent/compact"
	"github.com/reasonix/reasonix/agent/provider"
)

// Where a session's tokens go: the /context command. The prompt of the
// next request is split into what the prefix holds (the system prompt,
// the memory files and indexes in the system message, the tool schemas)
// and what the conversation holds (the user's messages, the model's, the
// tools' results, the summaries of compactions). The provider counts only
// whole prompts, so each part is an estimate at the session's tokens per
// byte — measured by its last request, or compact.DefaultTokensPerByte
// before any — while the last request's prompt tokens, when there was
// one, are the provider's own figure.

// ContextPart is one part of a session's prompt.
type ContextPart struct {
	// Name says what the part is: "system prompt", "tool schemas",
	// "memory files", "memory index", "skills", "user messages",
	// "assistant messages", "tool results", "summaries".
	Name string `json:"name"`
	// Tokens is the part's estimate.
	Tokens int `json:"tokens"`
	// Count is how many things the part holds (tools, messages), and
	// Detail names them where a few names say more (the memory files).
	Count  int    `json:"count,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// ContextUse is how a session's context window is used.
type ContextUse struct {
	Model string `json:"model"`
	// Window is the model's context window in tokens; 0 when unknown,
	// and then nothing compacts by itself.
	Window int `json:"window"`
	// CompactAt is the prompt size at which a turn compacts the
	// session before its next request: compact_ratio of Window.
	CompactAt int `json:"compactAt,omitempty"`
	// InUse is the estimate of the next request's prompt, as compaction
	// judges it: the last request's measured count and the messages
	// appended since, or the whole prompt at TokensPerByte.
	InUse int `json:"inUse"`
	// Measured is the prompt tokens the provider reported for the
	// session's last request; 0 before any.
	Measured int `json:"measured,omitempty"`
	// TokensPerByte is what the estimates use; Calibrated says it was
	// measured from one of the session's requests rather than assumed.
	TokensPerByte float64       `json:"tokensPerByte"`
	Calibrated    bool          `json:"calibrated"`
	Parts         []ContextPart `json:"parts"`
}

// Free is the room left in the window; 0 when the window is unknown or
// full.
func (u ContextUse) Free() int { return max(u.Window-u.InUse, 0) }

// Percent is how full the window is, in whole percent; -1 when the
// window is unknown.
func (u ContextUse) Percent() int {
	return ContextFill{ContextWindow: u.Window, ContextTokens: u.InUse}.Percent()
}

// Percent is how full the window is, in whole percent, at most 100; -1
// when the window is unknown.
func (f ContextFill) Percent() int {
	if f.ContextWindow <= 0 {
		return -1
	}
	return min(100*f.ContextTokens/f.ContextWindow, 100)
}

// ContextUse reports how the session uses its model's context window.
func (a *Agent) ContextUse(s *Session) ContextUse {
	a = a.sessionModel(s)
	schemas := toolSchemas(s.tools)
	msgs := s.Messages()
	s.mu.Lock()
	k := s.sizerLocked()
	use := ContextUse{Model: a.ModelRef, TokensPerByte: float64(k), Calibrated: s.perByte > 0}
	use.Measured = s.lastPrompt
	s.mu.Unlock()
	use.InUse = s.estimate(schemas)
	use.Window = a.windowOf(s)
	if use.Window > 0 {
		use.CompactAt = int(a.compactRatio() * float64(use.Window))
	}
	if len(msgs) > 0 && msgs[0].Role == provider.RoleSystem {
		use.Parts = systemParts(msgs[0].Content, k)
		msgs = msgs[1:]
	}
	use.Parts = append(use.Parts, ContextPart{Name: "tool schemas", Tokens: k.Tokens(compact.SchemasBytes(schemas)), Count: len(schemas)})
	use.Parts = append(use.Parts, conversationParts(msgs, k)...)
	return use
}

// sessionModel is the agent of the model s runs on, which /model may
// have switched: a itself when it has not, or when the switch no longer
// resolves (the turn says why).
func (a *Agent) sessionModel(s *Session) *Agent {
	if ref := s.Model(); ref != "" {
		if on, err := a.onModel(ref); err == nil {
			return on
		}
	}
	return a
}

// contextFill is how full s's window is: its window and the estimate of
// its next prompt.
func (a *Agent) contextFill(s *Session) ContextFill {
	return ContextFill{ContextWindow: a.windowOf(s), ContextTokens: s.estimate(toolSchemas(s.tools))}
}

// windowOf is the context window s's turns work in: the agent's
// configured one, or the smaller one its provider named when it refused
// a request (turn.learnWindow).
func (a *Agent) windowOf(s *Session) int {
	w := a.ContextWindow
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.windows[a.ModelRef]; ok && w > 0 && l < w {
		w = l
	}
	return w
}

// The headings that open the parts of a system message after the base
// prompt (prompt.go: BuildSystemPrompt, memory.Store.Index, skills.Index).
const (
	memoryFileHeading  = "\n# Project memory ("
	userMemoryHeading  = "\n# User memory ("
	memoryIndexHeading = "\n# Memory\n"
	skillsHeading      = "\n# Skills\n"
)

// systemParts splits the system message into the base prompt (with the
// environment and the tools' conventions), the project memory files, the
// memory's index and the skills' list. The indexes come last, so they are
// found from the end: a memory file may hold a heading of the same words.
func systemParts(system string, k compact.Sizer) []ContextPart {
	end := len(system)
	cut := func(heading string) string {
		i := strings.LastIndex(system[:end], heading)
		if i < 0 {
			return ""
		}
		part := system[i:end]
		end = i
		return part
	}
	skills := cut(skillsHeading)
	index := cut(memoryIndexHeading)
	files := ""
	first := -1
	for _, h := range []string{memoryFileHeading, userMemoryHeading} {
		if i := strings.Index(system[:end], h); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first >= 0 {
		files, end = system[first:end], first
	}
	var names []string
	for _, n := range append(slices.Clone(MemoryFiles), UserMemoryName, LocalMemoryFile) {
		if strings.Contains(files, memoryFileHeading+n+")\n") || strings.Contains(files, userMemoryHeading+n+")\n") {
			names = append(names, n)
		}
	}
	parts := []ContextPart{{Name: "system prompt", Tokens: k.Tokens(end)}}
	parts = append(parts, ContextPart{Name: "memory files", Tokens: k.Tokens(len(files)), Count: len(names), Detail: strings.Join(names, ", ")})
	if index != "" {
		parts = append(parts, ContextPart{Name: "memory index", Tokens: k.Tokens(len(index)), Count: strings.Count(index, "\n- ")})
	}
	if skills != "" {
		parts = append(parts, ContextPart{Name: "skills", Tokens: k.Tokens(len(skills)), Count: strings.Count(skills, "\n- ")})
	}
	return parts
}

// conversationParts sums the conversation by who wrote it.
func conversationParts(msgs []provider.Message, k compact.Sizer) []ContextPart {
	parts := []ContextPart{{Name: "user messages"}, {Name: "assistant messages"}, {Name: "tool results"}, {Name: "summaries"}}
	bytes := make([]int, len(parts))
	for _, m := range msgs {
		i := 1
		switch {
		case m.Digest:
			i = 3
		case m.Role == provider.RoleUser:
			i = 0
		case m.Role == provider.RoleTool:
			i = 2
		}
		parts[i].Count++
		bytes[i] += compact.MessagesBytes([]provider.Message{m})
	}
	for i := range parts {
		parts[i].Tokens = k.Tokens(bytes[i])
	}
	return parts
}

// contextText is /context's answer.
func (a *Agent) contextText(s *Session) string {
	u := a.ContextUse(s)
	var b strings.Builder
	if u.Window > 0 {
		fmt.Fprintf(&b, "Context of session %s on %s: %s of %s tokens (%d%%)\n", s.ID, u.Model, FormatTokens(u.InUse), FormatTokens(u.Window), u.Percent())
	} else {
		fmt.Fprintf(&b, "Context of session %s on %s: %s tokens; the context window is unknown (set context_window for the provider)\n", s.ID, u.Model, FormatTokens(u.InUse))
	}
	rows := make([][2]string, 0, len(u.Parts)+1)
	for _, p := range u.Parts {
		name := p.Name
		switch {
		case p.Detail != "":
			name += " (" + p.Detail + ")"
		case p.Count > 0:
			name += fmt.Sprintf(" (%d)", p.Count)
		}
		rows = append(rows, [2]string{name, FormatTokens(p.Tokens)})
	}
	if u.Window > 0 {
		rows = append(rows, [2]string{"free", FormatTokens(u.Free())})
	}
	nameW, numW := 0, 0
	for _, r := range rows {
		nameW, numW = max(nameW, len([]rune(r[0]))), max(numW, len(r[1]))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "  %s%s  %*s\n", r[0], strings.Repeat(" ", nameW-len([]rune(r[0]))), numW, r[1])
	}
	if u.Window > 0 {
		fmt.Fprintf(&b, "Compacts before a request reaching %s tokens (compact_ratio %.2g of the window).\n", FormatTokens(u.CompactAt), a.compactRatio())
	}
	how := fmt.Sprintf("assumed %.2g tokens per byte (no request has measured it yet)", u.TokensPerByte)
	if u.Calibrated {
		how = fmt.Sprintf("%.2g tokens per byte, as the session's last request measured it", u.TokensPerByte)
	}
	if u.Measured > 0 {
		fmt.Fprintf(&b, "Measured: the last request's prompt was %s tokens, as the provider reported it. Estimated: the parts, at %s.", FormatTokens(u.Measured), how)
	} else {
		fmt.Fprintf(&b, "Estimated: every figure, at %s.", how)
	}
	return b.String()
}
