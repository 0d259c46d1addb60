package agent

import (
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/compact"
	"github.com/reasonix/reasonix/agent/provider"
)

// TestContextUse: /context splits the next request's prompt into the
// prefix's parts and the conversation's, counts the window's free room
// and the compaction point from it, and tells the provider's measured
// figure from the estimates.
func TestContextUse(t *testing.T) {
	probe := &probeTool{name: "probe", readOnly: true}
	first := calls(tc("c1", "probe", `{}`))
	first.Usage = provider.Usage{PromptTokens: 4000, CompletionTokens: 10}
	done := answer("done")
	done.Usage = provider.Usage{PromptTokens: 4100, CompletionTokens: 20}
	h := newHarness(t, []provider.Response{first, done}, probe)
	h.a.ContextWindow, h.a.CompactRatio = 100_000, 0.5
	writeFiles(t, h.a.Env.Root, map[string]string{"AGENTS.md": "Run go test ./... before you finish.\n"})
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}

	before := h.a.ContextUse(s)
	if before.Measured != 0 || before.Calibrated || before.TokensPerByte != float64(compact.DefaultTokensPerByte) {
		t.Errorf("before any request: %+v", before)
	}
	if text := h.a.contextText(s); !strings.Contains(text, "Estimated: every figure") || strings.Contains(text, "Measured") {
		t.Errorf("before any request, /context says:\n%s", text)
	}

	if _, err := h.a.Run(t.Context(), s, "look"); err != nil {
		t.Fatal(err)
	}
	u := h.a.ContextUse(s)
	parts := map[string]ContextPart{}
	for _, p := range u.Parts {
		parts[p.Name] = p
	}
	checks := []struct {
		name  string
		count int
	}{
		{"system prompt", 0}, {"memory files", 1}, {"tool schemas", len(s.tools.Names())},
		{"user messages", 1}, {"assistant messages", 2}, {"tool results", 1},
	}
	for _, c := range checks {
		p, ok := parts[c.name]
		if !ok || p.Tokens <= 0 || p.Count != c.count {
			t.Errorf("%s: %+v, want %d of them and some tokens", c.name, p, c.count)
		}
	}
	if d := parts["memory files"].Detail; d != "AGENTS.md" {
		t.Errorf("memory files named %q", d)
	}
	if p := parts["summaries"]; p.Count != 0 || p.Tokens != 0 {
		t.Errorf("summaries before any compaction: %+v", p)
	}
	if u.Measured != 4100 || !u.Calibrated {
		t.Errorf("measured %d (calibrated %v), want the last request's 4100", u.Measured, u.Calibrated)
	}
	// The answer came after the last request: in use is more than it.
	if u.InUse <= u.Measured || u.Window != 100_000 || u.CompactAt != 50_000 || u.Free() != u.Window-u.InUse {
		t.Errorf("window %d, in use %d, compacts at %d, free %d", u.Window, u.InUse, u.CompactAt, u.Free())
	}
	if u.Percent() != 100*u.InUse/u.Window {
		t.Errorf("percent %d", u.Percent())
	}

	// The accounting carries how full the window is: each request's
	// usage event, and the turn's result.
	usage := h.kinds(EventUsage)
	if len(usage) != 2 || usage[1].Usage.ContextWindow != 100_000 || usage[1].Usage.ContextTokens != u.InUse {
		t.Errorf("the last usage event %+v", *usage[len(usage)-1].Usage)
	}
	ends := h.kinds(EventTurnDone)
	if len(ends) != 1 || ends[0].Done.ContextFill != (ContextFill{ContextWindow: 100_000, ContextTokens: u.InUse}) {
		t.Errorf("turn_done %+v, want the window and %d tokens", ends, u.InUse)
	}

	res, err := h.a.Run(t.Context(), s, "/context")
	if err != nil || res.Action == nil || res.Action.Kind != ActionContext || res.ContextFill.ContextTokens != u.InUse {
		t.Fatalf("/context: %+v, %v", res, err)
	}
	for _, want := range []string{
		"Context of session " + s.ID + " on fake/m: ", " of 100k tokens (4%)",
		"memory files (AGENTS.md)", "tool results (1)", "free", "Compacts before a request reaching 50k tokens",
		"Measured: the last request's prompt was 4.1k tokens", "Estimated: the parts",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("/context lacks %q:\n%s", want, res.Text)
		}
	}
}

// TestSystemParts: the system message is cut at the headings the prompt
// builder writes, the indexes found from the end, so a memory file's own
// "# Skills" heading stays in the memory files' part.
func TestSystemParts(t *testing.T) {
	const base = "You are Reasonix."
	files := "\n# Project memory (AGENTS.md)\nNotes.\n# Skills\nnot the index\n" + "\n# Project memory (CLAUDE.md)\nMore.\n"
	index := "\n# Memory\nNotes saved in earlier sessions.\n- user/style: terse\n"
	skills := "\n# Skills\n\nSkills are instructions.\n\n- pdf: read PDFs\n- sql: write SQL\n"
	k := compact.Sizer(1)
	cases := []struct {
		system string
		want   []ContextPart
	}{
		{base, []ContextPart{{Name: "system prompt", Tokens: len(base)}, {Name: "memory files"}}},
		{base + files + index + skills, []ContextPart{
			{Name: "system prompt", Tokens: len(base)},
			{Name: "memory files", Tokens: len(files), Count: 2, Detail: "AGENTS.md, CLAUDE.md"},
			{Name: "memory index", Tokens: len(index), Count: 1},
			{Name: "skills", Tokens: len(skills), Count: 2},
		}},
	}
	for _, c := range cases {
		got := systemParts(c.system, k)
		if len(got) != len(c.want) {
			t.Errorf("%q: %+v", c.system, got)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: part %d is %+v, want %+v", c.system, i, got[i], c.want[i])
			}
		}
	}
}
