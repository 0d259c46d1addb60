package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/projectdoc"
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
