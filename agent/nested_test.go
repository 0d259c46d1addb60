package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/memory"
	"github.com/reasonix/reasonix/tools/sandbox"
)

func builtin(t *testing.T, names ...string) []tools.Tool {
	t.Helper()
	var out []tools.Tool
	for _, n := range names {
		found := false
		for _, b := range tools.Builtins() {
			if b.Name() == n {
				out, found = append(out, b), true
			}
		}
		if !found {
			t.Fatalf("no built-in tool %q", n)
		}
	}
	return out
}

// TestProjectMemoryPrecedence: every memory file present is read, in the
// order REASONIX.md, AGENTS.md, CLAUDE.md, with a sentence saying which
// wins; one that says what an earlier one says (a link, a copy) is left
// out.
func TestProjectMemoryPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		link  string // CLAUDE.md links to this, when set
		want  []string
		not   []string
	}{
		{"all three", map[string]string{"REASONIX.md": "Use make.", "AGENTS.md": "Use go test.", "CLAUDE.md": "Use bazel."}, "",
			[]string{"# Project memory (REASONIX.md)\nUse make.", "# Project memory (AGENTS.md)\nUse go test.", "# Project memory (CLAUDE.md)\nUse bazel.",
				"Where these files disagree, REASONIX.md takes precedence over AGENTS.md, and AGENTS.md over CLAUDE.md."}, nil},
		{"claude only", map[string]string{"CLAUDE.md": "Use bazel."}, "",
			[]string{"# Project memory (CLAUDE.md)\nUse bazel."}, []string{"disagree"}},
		{"claude links to agents", map[string]string{"AGENTS.md": "Use go test."}, "AGENTS.md",
			[]string{"# Project memory (AGENTS.md)\nUse go test."}, []string{"(CLAUDE.md)", "disagree"}},
		{"claude copies agents", map[string]string{"AGENTS.md": "Use go test.\n", "CLAUDE.md": "\nUse go test."}, "",
			[]string{"# Project memory (AGENTS.md)\nUse go test."}, []string{"(CLAUDE.md)"}},
		{"two", map[string]string{"AGENTS.md": "a", "CLAUDE.md": "c"}, "",
			[]string{"Where these files disagree, AGENTS.md takes precedence over CLAUDE.md.\n"}, []string{"REASONIX.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, tc.files)
			if tc.link != "" {
				if err := os.Symlink(tc.link, filepath.Join(root, "CLAUDE.md")); err != nil {
					t.Skip("no symlinks:", err)
				}
			}
			p := BuildSystemPrompt("", root, nil)
			last := 0
			for _, w := range tc.want {
				i := strings.Index(p, w)
				if i < last {
					t.Errorf("prompt lacks %q after byte %d:\n%s", w, last, p)
					continue
				}
				last = i
			}
			for _, n := range tc.not {
				if strings.Contains(p, n) {
					t.Errorf("prompt has %q:\n%s", n, p)
				}
			}
		})
	}
}

// TestMemoryIndexIsTakenAtStart: a session's system message lists the
// notes as they were when it started; a note saved during it reaches the
// next session's, not its own, and the memory tool sees it at once.
func TestMemoryIndexIsTakenAtStart(t *testing.T) {
	h := newHarness(t, []provider.Response{
		calls(tc("1", "memory", `{"action":"search","query":"docker"}`)),
		answer("ok"),
	}, builtin(t, "memory")...)
	h.a.Env.Home = t.TempDir()
	store := memory.ForEnv(h.a.Env)
	ctx := context.Background()
	store.Save(ctx, memory.Note{Scope: memory.User, Name: "style", Description: "The user's style", Content: "Tabs."})
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	system := s.Messages()[0].Content
	if !strings.Contains(system, "# Memory\n") || !strings.Contains(system, "- user/style: The user's style") {
		t.Fatalf("system message:\n%s", system)
	}
	store.Save(ctx, memory.Note{Scope: memory.Project, Name: "build", Description: "How to build", Content: "It needs Docker."})
	if _, err := h.a.Run(ctx, s, "go"); err != nil {
		t.Fatal(err)
	}
	for _, req := range h.prov.requests {
		if req.Messages[0].Content != system {
			t.Fatal("the system message changed during the session")
		}
	}
	if r := h.kinds(EventToolResult)[0].Tool.Result; !strings.Contains(r, "project/build: How to build") {
		t.Fatalf("the memory tool does not see the new note: %s", r)
	}
	next, _ := h.a.NewSession()
	if !strings.Contains(next.Messages()[0].Content, "- project/build: How to build") {
		t.Fatalf("the next session's index:\n%s", next.Messages()[0].Content)
	}

	// Without the memory tool ([tools] enabled leaves it out) nothing
	// could read the notes: no index.
	h.a.Tools, _ = tools.NewRegistry(builtin(t, "read_file")...)
	if other, _ := h.a.NewSession(); strings.Contains(other.Messages()[0].Content, "# Memory") {
		t.Fatalf("an index without the memory tool:\n%s", other.Messages()[0].Content)
	}
}

// TestNestedMemory: a subdirectory's memory files reach the model with the
// result of the first call that touches something under it, once per
// session, outermost first, and never through the system message; a link
// into a forbidden file, or out of the workspace, brings nothing.
func TestNestedMemory(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".aws/credentials": "aws_secret=s3cr3t", "elsewhere/AGENTS.md": "OUTSIDE"})
	rs := []provider.Response{
		calls(tc("1", "read_file", `{"path":"top.go"}`)),
		calls(tc("2", "read_file", `{"path":"svc/api/h.go"}`)),
		calls(tc("3", "read_file", `{"path":"svc/x.go"}`), tc("4", "edit_file", `{"path":"svc/api/h.go","old_string":"h","new_string":"H"}`)),
		calls(tc("5", "ls", `{"path":"web"}`)),
		calls(tc("6", "read_file", `{"path":"leak/a.go"}`), tc("7", "read_file", `{"path":"out/a.go"}`)),
		calls(tc("8", "read_file", `{"path":"nope/missing.go"}`)),
		answer("done"),
	}
	h := newHarness(t, rs, builtin(t, "read_file", "edit_file", "ls")...)
	root, _ := filepath.EvalSymlinks(h.a.Env.Root)
	h.a.Env.Root = root
	h.a.Env.Guard = sandbox.New([]string{root}, sandbox.HomeDefaults(home))
	writeFiles(t, root, map[string]string{
		"AGENTS.md":           "ROOT RULES",
		"top.go":              "package top",
		"svc/AGENTS.md":       "SVC RULES",
		"svc/CLAUDE.md":       "SVC RULES\n", // a copy: left out
		"svc/x.go":            "package svc",
		"svc/api/REASONIX.md": "API RULES",
		"svc/api/CLAUDE.md":   "API CLAUDE",
		"svc/api/h.go":        "package h",
		"web/AGENTS.md":       "WEB RULES",
		"web/index.js":        "",
		"leak/a.go":           "",
		"out/a.go":            "",
		"nope/AGENTS.md":      "ROOT RULES", // says what the root's says
	})
	if os.Symlink(filepath.Join(home, ".aws", "credentials"), filepath.Join(root, "leak", "AGENTS.md")) != nil ||
		os.Symlink(filepath.Join(home, "elsewhere", "AGENTS.md"), filepath.Join(root, "out", "AGENTS.md")) != nil {
		t.Skip("no symlinks")
	}
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	system := s.Messages()[0].Content
	if _, err := h.a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, m := range s.Messages() {
		if m.Role == provider.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	attached := func(id string) []string {
		var out []string
		for _, sub := range attachedMemory.FindAllStringSubmatch(results[id], -1) {
			out = append(out, sub[1])
		}
		return out
	}
	for id, want := range map[string]string{
		"1": "",
		"2": "svc/AGENTS.md svc/api/REASONIX.md svc/api/CLAUDE.md",
		"3": "", "4": "",
		"5": "web/AGENTS.md",
		"6": "", "7": "", "8": "",
	} {
		if got := strings.Join(attached(id), " "); got != want {
			t.Errorf("call %s attached %q, want %q:\n%s", id, got, want, results[id])
		}
	}
	if !strings.Contains(results["2"], "Project memory for svc/api/") || !strings.Contains(results["2"], "API RULES") {
		t.Errorf("the attachment:\n%s", results["2"])
	}
	all := strings.Join([]string{results["6"], results["7"]}, "\n")
	if strings.Contains(all, "s3cr3t") || strings.Contains(all, "OUTSIDE") {
		t.Errorf("a linked memory file was attached:\n%s", all)
	}
	for _, req := range h.prov.requests {
		if req.Messages[0].Content != system {
			t.Fatal("the system message changed")
		}
	}

	// Resumed, the session knows what its log carries.
	s.Close()
	h.prov.responses = []provider.Response{calls(tc("9", "read_file", `{"path":"svc/api/h.go"}`)), answer("done")}
	r, err := h.a.Resume(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.a.Run(context.Background(), r, "again"); err != nil {
		t.Fatal(err)
	}
	msgs := r.Messages()
	for _, m := range msgs {
		if m.ToolCallID == "9" && strings.Contains(m.Content, "<project-memory") {
			t.Errorf("attached again after resuming:\n%s", m.Content)
		}
	}
}
