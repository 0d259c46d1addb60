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
	"github.com/reasonix/reasonix/agent/agenttest"
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

// roles renders a conversation's roles, a digest as "digest".
func roles(s *agent.Session) []string {
	var out []string
	for _, m := range s.Messages() {
		r := string(m.Role)
		if m.Digest {
			r = "digest"
		}
		out = append(out, r)
	}
	return out
}

// TestRewindAfterCompaction: a rewind to a turn after the latest
// compaction's digest cuts the conversation, keeping what precedes; one to
// a turn the digest folded rebuilds it from the originals of the earlier
// turns, without the digest, and the next request holds just those.
func TestRewindAfterCompaction(t *testing.T) {
	a, srv, _ := windowedAgent(t, agenttest.Script(6, 30), 0)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	runTurns(t, a, s, 1, 3)
	if _, err := a.Compact(ctx, s); err != nil {
		t.Fatal(err)
	}
	runTurns(t, a, s, 4, 4)
	before5 := s.Messages()
	runTurns(t, a, s, 5, 5)

	plan, err := a.Rewind(ctx, s, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Messages(); len(got) != len(before5) || plan.Messages != 4 {
		t.Errorf("after rewinding to 5: %d messages (%d cut), want the %d before turn 5", len(got), plan.Messages, len(before5))
	} else {
		for i := range got {
			if got[i].Content != before5[i].Content || got[i].Role != before5[i].Role {
				t.Errorf("message %d changed by the cut: %q, was %q", i, got[i].Content, before5[i].Content)
			}
		}
	}

	if _, err := a.Rewind(ctx, s, 2); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(roles(s), " "), "system user assistant tool assistant"; got != want {
		t.Fatalf("after rewinding to 2 the conversation is %s, want %s (turn 1 in full)", got, want)
	}
	if m := s.Messages()[1]; m.Content != agenttest.Prompt(1) {
		t.Errorf("the rebuilt conversation starts with %q", m.Content)
	}
	res, err := a.Run(ctx, s, agenttest.Prompt(6))
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn != 6 {
		t.Errorf("the turn after the rewinds is %d, want 6", res.Turn)
	}
	reqs := srv.Requests()
	var first scripted.Request
	for _, r := range reqs {
		if strings.Contains(r.Body, "Turn 6:") {
			first = r
			break
		}
	}
	sent := strings.Join(contents(first), "\n")
	for n := 2; n <= 5; n++ {
		if strings.Contains(sent, agenttest.Prompt(n)) {
			t.Errorf("the request after the rewind holds turn %d's prompt", n)
		}
	}
	if !strings.Contains(sent, agenttest.Prompt(1)) || strings.Contains(sent, "Summary") {
		t.Errorf("the request after the rewind: %s", sent)
	}
}

// TestRewindAfterResume: a session resumed by another agent lists its
// checkpoints, rewinds, and numbers its turns on from the latest, also
// when resumed once more after the rewind.
func TestRewindAfterResume(t *testing.T) {
	a, _ := newScriptedAgent(t, `match first
call edit_file {"path": "main.go", "old_string": "helper1()", "new_string": "helper2()"}
---
match first
text done
---
match second
text done
---
match third
text done
`)
	root := a.Env.Root
	mainBefore := read(t, filepath.Join(root, "main.go"))
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{"first", "second"} {
		if _, err := a.Run(ctx, s, p); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	again := func() (*agent.Agent, *agent.Session) {
		b := &agent.Agent{Provider: a.Provider, Model: a.Model, ModelRef: a.ModelRef, Tools: a.Tools,
			Env: a.Env, Gate: a.Gate, Store: &agent.Store{Dir: a.Store.Dir}}
		s, err := b.Resume(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return b, s
	}
	b, s2 := again()
	cs, err := b.Checkpoints(s2)
	if err != nil || !slices.Equal(turnsOf(cs), []int{1, 2}) {
		t.Fatalf("checkpoints after resume: %v, %v", turnsOf(cs), err)
	}
	if _, err := b.Rewind(ctx, s2, 1); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(root, "main.go")); got != mainBefore {
		t.Errorf("main.go after the rewind: %q", got)
	}
	s2.Close()
	c, s3 := again()
	if cs, _ := c.Checkpoints(s3); len(cs) != 0 || len(s3.Messages()) != 1 {
		t.Errorf("resumed after the rewind: checkpoints %v, %d messages", turnsOf(cs), len(s3.Messages()))
	}
	res, err := c.Run(ctx, s3, "third")
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn != 3 {
		t.Errorf("the turn after the rewind and a resume is %d, want 3", res.Turn)
	}
}

// TestRewindUndoesATasksChanges: what a task's tools change belongs to
// the turn that ran it.
func TestRewindUndoesATasksChanges(t *testing.T) {
	a, _, _ := newTaskAgent(t, `match start
call task {"description": "write", "prompt": "gamma: write it", "read_only": false}
---
match gamma:
call bash {"command": "echo by task > task.txt"}
---
match gamma:
text Written.
---
match start
text All done.
`)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := a.Run(t.Context(), s, "start"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(a.Env.Root, "task.txt")
	if read(t, path) != "by task\n" {
		t.Fatal("the task did not write")
	}
	plan, err := a.Rewind(t.Context(), s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(a.Env.Root, plan); !slices.Equal(got, []string{"task.txt remove"}) || read(t, path) != "<absent>" {
		t.Errorf("rewind %q; task.txt %q", got, read(t, path))
	}
}

// TestRewindCommand: /rewind lists the turns and /rewind N rewinds,
// through Run, as every front end runs them; a turn that is not there is
// an error.
func TestRewindCommand(t *testing.T) {
	a, _ := newScriptedAgent(t, `match first
call bash {"command": "echo x > x.txt"}
---
match first
text done
`)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	res, err := a.Run(ctx, s, "/rewind")
	if err != nil || res.Action == nil || res.Action.Kind != agent.ActionRewind || res.Text != "No turn to rewind to yet." {
		t.Fatalf("/rewind before any turn: %+v, %v", res, err)
	}
	if _, err := a.Run(ctx, s, "first\nwith more"); err != nil {
		t.Fatal(err)
	}
	res, err = a.Run(ctx, s, "/rewind")
	if err != nil || !strings.Contains(res.Text, "\n  1  first  (1 file: x.txt)") {
		t.Fatalf("/rewind lists %q, %v", res.Text, err)
	}
	if _, err := a.Run(ctx, s, "/rewind 7"); err == nil || !strings.Contains(err.Error(), "no turn 7") {
		t.Errorf("/rewind 7: %v", err)
	}
	if _, err := a.Run(ctx, s, "/rewind x"); err == nil {
		t.Error("/rewind x succeeded")
	}
	res, err = a.Run(ctx, s, "/rewind 1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Action == nil || res.Action.Turn != 1 || res.Action.Rewind == nil || !res.Action.Rewind.Done ||
		!strings.HasPrefix(res.Text, "Rewound to before turn 1: 1 file removed, 4 messages cut") {
		t.Errorf("/rewind 1: %+v %q", res.Action, res.Text)
	}
	if read(t, filepath.Join(a.Env.Root, "x.txt")) != "<absent>" {
		t.Error("x.txt is still there")
	}
}

// TestRewindMergesAroundOthersChanges: a file someone else changed after
// the turn, away from the turn's own change, gets the turn's change taken
// out and keeps theirs; where the changes touch, it is left alone.
func TestRewindMergesAroundOthersChanges(t *testing.T) {
	a, _ := newScriptedAgent(t, `match first
call edit_file {"path": "apart.txt", "old_string": "b\n", "new_string": "B\n"}
call edit_file {"path": "touch.txt", "old_string": "b\n", "new_string": "B\n"}
---
match first
text done
`)
	defer a.Close()
	root := a.Env.Root
	seed(t, root, map[string]string{"apart.txt": "a\nb\nc\nd\ne\n", "touch.txt": "a\nb\nc\nd\ne\n"})
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := a.Run(ctx, s, "first"); err != nil {
		t.Fatal(err)
	}
	seed(t, root, map[string]string{"apart.txt": "a\nB\nc\nd\nE\n", "touch.txt": "a\nB\nC\nd\ne\n"})
	plan, err := a.Rewind(ctx, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(root, plan), []string{"apart.txt merge", "touch.txt conflict"}; !slices.Equal(got, want) {
		t.Fatalf("rewind %q, want %q", got, want)
	}
	if got := read(t, filepath.Join(root, "apart.txt")); got != "a\nb\nc\nd\nE\n" {
		t.Errorf("apart.txt after the rewind: %q, want the turn's change out and the other kept", got)
	}
	if got := read(t, filepath.Join(root, "touch.txt")); got != "a\nB\nC\nd\ne\n" {
		t.Errorf("touch.txt after the rewind: %q, want it left as it was", got)
	}
}
