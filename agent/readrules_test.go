package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools/permission"
)

// TestReadDenyHoldsForEveryReader: with `Read(secrets/**)` denied and
// everything else allowed, no call reads, moves or copies a file under
// secrets/, by any name, and its text reaches no result.
func TestReadDenyHoldsForEveryReader(t *testing.T) {
	const rules = "[permissions]\nmode = \"allow\"\ndeny = [\"Read(secrets/**)\"]\n"
	patch := func(s string) map[string]string { return map[string]string{"patch": s} }
	tests := []struct {
		name string
		tool string
		args any
	}{
		{"read through a file link", "read_file", map[string]string{"path": "docs/k.txt"}},
		{"read through a directory link", "read_file", map[string]string{"path": "s/k.txt"}},
		{"grep through a link", "grep", map[string]string{"pattern": "key", "path": "docs/elsewhere"}},
		{"list through a link", "ls", map[string]string{"path": "s"}},
		{"move", "move_file", map[string]string{"source": "secrets/k.txt", "destination": "docs/k2.txt"}},
		{"move through a link", "move_file", map[string]string{"source": "s/k.txt", "destination": "docs/k2.txt"}},
		{"move the directory", "move_file", map[string]string{"source": "secrets", "destination": "open"}},
		{"edit through a link", "edit_file", map[string]string{"path": "docs/k.txt", "old_string": "key", "new_string": "KEY"}},
		{"patch rename", "apply_patch", patch("diff --git a/secrets/k.txt b/docs/k2.txt\nrename from secrets/k.txt\nrename to docs/k2.txt\n")},
		{"patch copy through a link", "apply_patch", patch("diff --git a/s/k.txt b/docs/k2.txt\ncopy from s/k.txt\ncopy to docs/k2.txt\n")},
		{"cat", "bash", map[string]string{"command": "cat secrets/k.txt"}},
		{"cat through a link", "bash", map[string]string{"command": "cat docs/k.txt"}},
		{"copy", "bash", map[string]string{"command": "cp s/k.txt docs/k2.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, root := buildWriteAgent(t, rules, nil)
			raw := argsJSON(t, tt.args)
			h.prov.responses = []provider.Response{calls(tc("1", tt.tool, raw)), answer("done")}
			before := snapshot(t, root)
			res := h.runTurn(t)
			if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Result, "Read(secrets/**)") || strings.Contains(res[0].Result, "key\n") {
				t.Fatalf("%s %s was not refused by the rule: %s", tt.tool, raw, res[0].Result)
			}
			if after := snapshot(t, root); !sameTree(before, after) {
				t.Errorf("%s %s changed the workspace:\nbefore %v\nafter  %v", tt.tool, raw, before, after)
			}
		})
	}
}

// TestReadAskAtTheGate: a call that reads a file an ask rule covers is
// asked about, naming the call, through a link too; a move into the
// covered directory is not a read.
func TestReadAskAtTheGate(t *testing.T) {
	ap := &fakeApprover{answers: []permission.Answer{permission.AnswerDeny, permission.AnswerOnce}}
	h, root := buildWriteAgent(t, "[permissions]\nmode = \"allow\"\nask = [\"Read(secrets/**)\"]\n", ap,
		tc("1", "move_file", `{"source": "s/k.txt", "destination": "docs/k2.txt"}`),
		tc("2", "bash", `{"command": "cat docs/k.txt"}`),
		tc("3", "move_file", `{"source": "docs/a.md", "destination": "secrets/a.md"}`))
	res := h.runTurn(t)
	if len(ap.prompts) != 2 || !strings.Contains(ap.prompts[0].Why, "Read(secrets/**)") {
		t.Fatalf("prompts %+v", ap.prompts)
	}
	if !res[0].IsError || res[1].IsError || res[2].IsError {
		t.Errorf("results %+v %+v %+v", res[0], res[1], res[2])
	}
	if got := snapshot(t, root); got["secrets/k.txt"] != "key\n" || got["secrets/a.md"] != "a\n" {
		t.Errorf("workspace %v", got)
	}
}

// TestWriteSeamJudgesMovedReads: a rename the call did not declare is
// held to the rules about reading at the write seam: its source, and
// everything below a directory it moves.
func TestWriteSeamJudgesMovedReads(t *testing.T) {
	for _, tt := range []struct{ name, rules, from string }{
		{"file", "deny = [\"Read(secrets/**)\"]", "secrets/k.txt"},
		{"directory", "deny = [\"Read(secrets/*.txt)\"]", "secrets"},
		{"directory through a link", "deny = [\"Read(secrets/*.txt)\"]", "docs/elsewhere"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, root := buildWriteAgent(t, "[permissions]\nmode = \"allow\"\n"+tt.rules+"\n", nil,
				tc("1", "sneaky_write", argsJSON(t, map[string]string{"From": tt.from, "To": "open"})))
			withSneakyWriter(t, h.a)
			before := snapshot(t, root)
			res := h.runTurn(t)
			if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Result, "Read(secrets/") {
				t.Fatalf("result %+v", res[0])
			}
			if after := snapshot(t, root); !sameTree(before, after) {
				t.Errorf("workspace changed: %v", after)
			}
		})
	}
}

// TestReadRulesInReferences: an @ directory lists what the rules let be
// read, counting the rest; a command's text attaches no file an ask
// rule covers, which the user may still attach by typing it.
func TestReadRulesInReferences(t *testing.T) {
	a, root, _ := referenceAgent(t)
	writeFiles(t, root, map[string]string{"notes/private.md": "PRIVATE NOTE\n", "notes/draft.md": "DRAFT NOTE\n"})
	p, _ := permission.NewPolicy("ask", nil, []string{"Read(notes/draft.md)"}, []string{"Read(notes/private.md)"})
	p.Root = root
	a.Env.ReadRules = p.ReadRules()

	attached, notices := a.attach(t.Context(), "see @notes/ and @notes/private.md", "see @notes/ and @notes/private.md", nil)
	if !strings.Contains(attached, "todo.md\n") || strings.Contains(attached, "private.md\n") || strings.Contains(attached, "PRIVATE") ||
		!strings.Contains(attached, "(1 path left out: the permission rules deny reading it.)") {
		t.Errorf("attached:\n%s", attached)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "@notes/private.md not attached: the permission rules deny reading it") {
		t.Errorf("notices %q", notices)
	}

	// A command's text names the draft: not attached; typed, it is.
	attached, notices = a.attach(t.Context(), "review @notes/draft.md", "/review", nil)
	if strings.Contains(attached, "DRAFT NOTE") || len(notices) != 1 || !strings.Contains(notices[0], "ask before") {
		t.Errorf("from a command: %q %q", attached, notices)
	}
	attached, _ = a.attach(t.Context(), "review @notes/draft.md", "review @notes/draft.md", nil)
	if !strings.Contains(attached, "DRAFT NOTE") {
		t.Errorf("typed: %q", attached)
	}
}

// TestNestedMemoryUnderReadRules: a memory file a rule about reading
// covers is not attached on its own, whether the rule denies or asks.
func TestNestedMemoryUnderReadRules(t *testing.T) {
	rs := []provider.Response{
		calls(tc("1", "write_file", `{"path":"secret/new.go","content":"package s"}`), tc("2", "write_file", `{"path":"drafts/new.go","content":"package d"}`)),
		answer("done"),
	}
	h := newHarness(t, rs, builtin(t, "write_file")...)
	root, _ := filepath.EvalSymlinks(h.a.Env.Root)
	h.a.Env.Root = root
	writeFiles(t, root, map[string]string{"secret/AGENTS.md": "SECRET RULES", "drafts/AGENTS.md": "DRAFT RULES", "AGENTS.md": "ROOT"})
	if err := os.WriteFile(filepath.Join(root, "REASONIX.md"), []byte("MORE ROOT"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := runUnderReadRules(t, h, []string{"Read(drafts/**)", "Read(REASONIX.md)"}, []string{"Read(secret/**)"})
	for _, m := range s.Messages() {
		for _, leak := range []string{"SECRET RULES", "DRAFT RULES", "MORE ROOT"} {
			if strings.Contains(m.Content, leak) {
				t.Errorf("%s message holds %q:\n%s", m.Role, leak, m.Content)
			}
		}
	}
	if system := s.Messages()[0].Content; !strings.Contains(system, "ROOT") {
		t.Errorf("the root's memory is missing")
	}
}

// TestNoDiagnosticsOfCoveredFiles: the diagnostics after an edit quote
// the file, so a file a rule about reading covers is not verified.
func TestNoDiagnosticsOfCoveredFiles(t *testing.T) {
	changer := &changeTool{}
	h := newHarness(t, []provider.Response{
		calls(tc("1", "change", `{"path":"/w/private.go"}`)),
		calls(tc("2", "change", `{"path":"/w/a.go"}`)),
		answer("done"),
	}, changer)
	fake := &fakeGraph{}
	h.a.Env.Graph = fake
	h.a.VerifyAfterEdit = true
	runUnderReadRules(t, h, nil, []string{"Read(/w/private.go)"})
	if want := [][]string{{"/w/a.go"}}; !slices.EqualFunc(fake.verified, want, slices.Equal) {
		t.Errorf("verified %v, want %v", fake.verified, want)
	}
}

// runUnderReadRules gives h's agent the rules about reading among ask
// and deny, and runs one turn of a new session.
func runUnderReadRules(t *testing.T, h *harness, ask, deny []string) *Session {
	t.Helper()
	p, err := permission.NewPolicy("ask", nil, ask, deny)
	if err != nil {
		t.Fatal(err)
	}
	p.Root = h.a.Env.Root
	h.a.Env.ReadRules = p.ReadRules()
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.a.Run(t.Context(), s, "go"); err != nil {
		t.Fatal(err)
	}
	return s
}
