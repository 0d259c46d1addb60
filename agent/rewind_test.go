package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// rewindScript: turn 1 edits main.go and user.txt with edit_file and,
// with one shell command, creates made.txt, deletes gone.txt and appends
// to mod.txt; turn 2 edits main.go again; turn 3 runs after the rewind.
const rewindScript = `match first
call edit_file {"path": "main.go", "old_string": "helper1()", "new_string": "helper2()"}
call edit_file {"path": "user.txt", "old_string": "user one", "new_string": "agent one"}
---
match first
call bash {"command": "echo made > made.txt && rm gone.txt && echo more >> mod.txt"}
---
match first
text first done
---
match second
call edit_file {"path": "main.go", "old_string": "helper2()", "new_string": "helper3()"}
---
match second
text second done
---
match third
text third done
`

// seed writes files below root.
func seed(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// read returns a file's text, or "<absent>".
func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// actions renders a plan's files as "rel action", sorted.
func actions(root string, p agent.RewindPlan) []string {
	var out []string
	for _, f := range p.Files {
		rel, _ := filepath.Rel(root, f.Path)
		out = append(out, rel+" "+f.Action)
	}
	slices.Sort(out)
	return out
}

// turnsOf lists the turn numbers of checkpoints.
func turnsOf(cs []agent.Checkpoint) []int {
	var out []int
	for _, c := range cs {
		out = append(out, c.Turn)
	}
	return out
}

// contents lists the contents of a request's messages.
func contents(r scripted.Request) []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Role+": "+m.Content)
	}
	return out
}

func TestRewindRestoresFilesAndConversation(t *testing.T) {
	a, srv := newScriptedAgent(t, rewindScript)
	defer a.Close()
	root := a.Env.Root
	seed(t, root, map[string]string{"gone.txt": "gone\n", "mod.txt": "mod\n", "user.txt": "user one\n"})
	mainBefore := read(t, filepath.Join(root, "main.go"))
	var rewinds []agent.Event
	a.Sink = func(e agent.Event) {
		if e.Kind == agent.EventRewind {
			rewinds = append(rewinds, e)
		}
	}
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, p := range []string{"first", "second"} {
		if _, err := a.Run(ctx, s, p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	cs, err := a.Checkpoints(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := turnsOf(cs); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("checkpoints %v, want turns 1 and 2", got)
	}
	if len(cs[0].Files) != 5 || cs[0].Prompt != "first" {
		t.Errorf("turn 1's checkpoint: %+v, want prompt first and 5 files", cs[0])
	}
	// Someone else changes user.txt after the turns.
	seed(t, root, map[string]string{"user.txt": "the user's own\n"})

	preview, err := a.PlanRewind(ctx, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"gone.txt recreate", "made.txt remove", "main.go restore", "mod.txt restore", "user.txt conflict"}
	if got := actions(root, preview); !slices.Equal(got, want) || preview.Done {
		t.Fatalf("preview %q (done %v), want %q", got, preview.Done, want)
	}
	if read(t, filepath.Join(root, "made.txt")) != "made\n" {
		t.Fatal("the preview changed a file")
	}

	plan, err := a.Rewind(ctx, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(root, plan); !slices.Equal(got, want) || !plan.Done || !slices.Equal(plan.Turns, []int{1, 2}) {
		t.Fatalf("rewind %q turns %v (done %v), want %q", got, plan.Turns, plan.Done, want)
	}
	for name, want := range map[string]string{
		"main.go": mainBefore, "made.txt": "<absent>", "gone.txt": "gone\n", "mod.txt": "mod\n",
		"user.txt": "the user's own\n",
	} {
		if got := read(t, filepath.Join(root, name)); got != want {
			t.Errorf("%s after the rewind: %q, want %q", name, got, want)
		}
	}
	for _, f := range plan.Files {
		if f.Action != agent.RewindConflict {
			continue
		}
		if f.Saved == "" || strings.HasPrefix(f.Saved, root) {
			t.Errorf("conflict saved in %q, want a file outside the workspace", f.Saved)
		} else if got := read(t, f.Saved); got != "user one\n" {
			t.Errorf("conflict's saved text %q, want the text before turn 1", got)
		}
	}
	if len(rewinds) != 1 || rewinds[0].Rewind == nil || !rewinds[0].Rewind.Done {
		t.Errorf("rewind events %+v, want one with the plan", rewinds)
	}
	if len(s.Messages()) != 1 {
		t.Errorf("conversation after rewinding to turn 1: %d messages, want the system message", len(s.Messages()))
	}

	res, err := a.Run(ctx, s, "third")
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn != 3 {
		t.Errorf("the turn after the rewind is %d, want 3 (numbers are not reused)", res.Turn)
	}
	reqs := srv.Requests()
	last := contents(reqs[len(reqs)-1])
	if len(last) != 2 || last[1] != "user: third" {
		t.Errorf("the request after the rewind holds %q, want the system message and the new prompt", last)
	}
	cs, _ = a.Checkpoints(s)
	if got := turnsOf(cs); !slices.Equal(got, []int{3}) {
		t.Errorf("checkpoints after the rewind: %v, want [3]", got)
	}
	if _, err := a.Rewind(ctx, s, 2); err == nil {
		t.Error("rewinding to a rewound turn succeeded")
	}
}
