package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/projectdoc"
	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/tools/permission"
)

// TestInit: /init drafts AGENTS.md locally and writes it through a
// write_file call of the agent's own, which the user is asked about as
// any: declined, nothing is written and the draft is the answer; allowed,
// the draft is the file. Run again, it finds nothing to add; over a file
// of the user's, it adds the sections it lacks and keeps the rest. No
// request reaches the model, and the conversation is left alone.
func TestInit(t *testing.T) {
	ap := &fakeApprover{answers: []permission.Answer{permission.AnswerDeny, permission.AnswerOnce, permission.AnswerOnce}}
	h, root := buildWriteAgent(t, "", ap)
	writeFiles(t, root, map[string]string{"go.mod": "module example.com/w\n\ngo 1.22\n", "w.go": "package w\n\ntype Widget struct{}\n"})
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	logged := len(s.Messages())
	path := filepath.Join(root, "AGENTS.md")
	draft, err := projectdoc.Draft(t.Context(), root, projectdoc.Options{Withhold: func(p string) bool { return h.a.Env.CheckReadUnasked(p) != nil }})
	if err != nil {
		t.Fatal(err)
	}

	res, err := h.a.Run(t.Context(), s, "/init")
	if err == nil || !strings.HasPrefix(err.Error(), "/init: AGENTS.md was not written: ") || res.Stop != StopError || res.Text != "The draft:\n\n"+draft {
		t.Fatalf("declined: %+v, %v", res, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("AGENTS.md after a denial: %v", err)
	}

	res, err = h.a.Run(t.Context(), s, "/init")
	if err != nil || res.Action == nil || res.Action.Kind != ActionInit || !strings.HasPrefix(res.Text, "Wrote AGENTS.md: Build and test, Layout, Go packages.") {
		t.Fatalf("allowed: %+v, %v", res, err)
	}
	if got, _ := os.ReadFile(path); string(got) != draft || !strings.Contains(draft, "Types: Widget.") {
		t.Errorf("AGENTS.md holds\n%s\nwant the draft\n%s", got, draft)
	}
	if len(ap.prompts) != 2 || ap.prompts[1].Tool != "write_file" || !strings.HasSuffix(ap.prompts[1].Paths[0], "AGENTS.md") {
		t.Errorf("prompts %+v", ap.prompts)
	}

	res, err = h.a.Run(t.Context(), s, "/init")
	if err != nil || !strings.Contains(res.Text, "already has every section") || len(ap.prompts) != 2 {
		t.Errorf("again: %+v, %v (%d prompts)", res, err, len(ap.prompts))
	}

	mine := "# Notes\n\nTabs, not spaces.\n\n## Layout\n\nMine.\n"
	writeFiles(t, root, map[string]string{"AGENTS.md": mine})
	res, err = h.a.Run(t.Context(), s, "/init")
	if err != nil || !strings.Contains(res.Text, "added the sections it lacked (Build and test, Go packages)") {
		t.Fatalf("over the user's file: %+v, %v", res, err)
	}
	got, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(got), mine) || strings.Count(string(got), "## Layout") != 1 || !strings.Contains(string(got), "\n## Go packages\n") {
		t.Errorf("the merged AGENTS.md:\n%s", got)
	}

	if n := len(h.prov.requests); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
	if n := len(s.Messages()); n != logged {
		t.Errorf("/init changed the conversation: %d messages, had %d", n, logged)
	}
}

// TestInitInPlanMode: plan mode holds for /init's write as for a model's.
func TestInitInPlanMode(t *testing.T) {
	h, root := buildWriteAgent(t, "", &fakeApprover{answers: []permission.Answer{permission.AnswerOnce}})
	s, err := h.a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	s.SetPlanMode(true)
	if _, err := h.a.Run(t.Context(), s, "/init"); err == nil || !strings.Contains(err.Error(), "Plan mode") {
		t.Errorf("/init in plan mode: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "AGENTS.md")); !os.IsNotExist(err) {
		t.Errorf("AGENTS.md in plan mode: %v", err)
	}
}

// TestInitServerSymbols: with the project graph, /init's draft names what
// the language server reports and go/parser cannot: a Go package's
// exported functions (gopls), a Python package's public classes and
// functions (pyright), private ones left out. The server is warmed first
// by a question of the test's own, so that /init's bounded wait is not
// spent on its start.
func TestInitServerSymbols(t *testing.T) {
	for _, c := range []struct {
		server, command, file string
		files                 map[string]string
		want                  string
	}{
		{
			server: "gopls", command: "gopls", file: "calc/calc.go",
			files: map[string]string{
				"go.mod":       "module example.com/w\n\ngo 1.22\n",
				"calc/calc.go": "// Package calc adds.\npackage calc\n\ntype Calc struct{ sum int }\n\nfunc NewCalc() *Calc { return &Calc{} }\n\nfunc (c *Calc) Add(n int) { c.sum += n }\n\nfunc helper() {}\n",
			},
			want: "\n- `calc` (package calc): Package calc adds. Types: Calc. Funcs: NewCalc.\n",
		},
		{
			server: "pyright", command: "pyright-langserver", file: "calc/__init__.py",
			files: map[string]string{
				"pyproject.toml":   "[project]\nname = \"calc\"\n",
				"calc/__init__.py": "LIMIT = 10\n\n\nclass Calc:\n    def add(self, n):\n        return n\n\n\nclass _Memo:\n    pass\n\n\ndef total(xs):\n    return sum(xs)\n\n\ndef _helper():\n    pass\n",
			},
			want: "\n## Main modules\n\n- `calc/__init__.py` Classes: Calc. Functions: total.\n",
		},
	} {
		t.Run(c.server, func(t *testing.T) {
			spec := serverSpec(t, c.server, c.command)
			h, root := buildWriteAgent(t, "", &fakeApprover{answers: []permission.Answer{permission.AnswerOnce}})
			writeFiles(t, root, c.files)
			g := graph.New(graph.Options{Root: root, Servers: []graph.ServerSpec{spec}})
			t.Cleanup(func() { g.Close() })
			if _, err := g.Declarations(t.Context(), filepath.Join(root, filepath.FromSlash(c.file))); err != nil {
				t.Fatal(err)
			}
			h.a.Env.Graph = g
			s, err := h.a.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if _, err := h.a.Run(t.Context(), s, "/init"); err != nil {
				t.Fatal(err)
			}
			t.Logf("/init with %s warm: %v", c.server, time.Since(start))
			got, _ := os.ReadFile(filepath.Join(root, "AGENTS.md"))
			if !strings.Contains(string(got), c.want) {
				t.Errorf("AGENTS.md lacks %q:\n%s", c.want, got)
			}
			for _, private := range []string{"helper", "_Memo", "LIMIT"} {
				if strings.Contains(string(got), private) {
					t.Errorf("AGENTS.md names %s:\n%s", private, got)
				}
			}
		})
	}
}

// serverSpec returns the built-in configuration of a language server with
// its program found: in graph/testdata/servers/node_modules, where
// install.sh there puts the npm servers, or on PATH (gopls also in
// $(go env GOPATH)/bin). A missing server skips the test, or fails it
// when REASONIX_REQUIRE_PEERS=1.
func serverSpec(t *testing.T, name, command string) graph.ServerSpec {
	t.Helper()
	i := slices.IndexFunc(graph.DefaultServers(), func(s graph.ServerSpec) bool { return s.Name == name })
	spec := graph.DefaultServers()[i]
	prog, err := filepath.Abs(filepath.Join("..", "graph", "testdata", "servers", "node_modules", ".bin", command))
	if _, statErr := os.Stat(prog); err != nil || statErr != nil {
		if prog, err = graph.LookPath(command); err != nil {
			if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
				t.Fatalf("%v; REASONIX_REQUIRE_PEERS=1 requires it", err)
			}
			t.Skipf("%v (graph/testdata/servers/install.sh installs it)", err)
		}
	}
	spec.Command = append([]string{prog}, spec.Command[1:]...)
	return spec
}
