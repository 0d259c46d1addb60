package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
)

const twoShellTurns = `call bash {"command": "echo one > one.txt"}
---
text done
---
call bash {"command": "echo three > three.txt"}
---
text done again
`

// changeNames renders a turn's changes as "path status".
func changeNames(res agent.TurnResult) []string {
	var out []string
	for _, c := range res.Changes {
		out = append(out, c.Path+" "+string(c.Status))
	}
	slices.Sort(out)
	return out
}

// TestShellTrackingOutlivesTheTurn: an agent that tracks shell commands
// for its life reports each turn's commands' changes, and not a change
// made by someone else between turns.
func TestShellTrackingOutlivesTheTurn(t *testing.T) {
	a, _ := newScriptedAgent(t, twoShellTurns)
	agent.TrackShellsForLife(a, 0)
	defer a.Close()
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "go")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeNames(res), []string{"one.txt created"}; !slices.Equal(got, want) {
		t.Errorf("first turn: %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(a.Env.Root, "two.txt"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = a.Run(context.Background(), s, "again")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeNames(res), []string{"three.txt created"}; !slices.Equal(got, want) {
		t.Errorf("second turn: %q, want %q", got, want)
	}
}

// TestShellTrackingOffIsTold: when the workspace cannot be listed, the
// user (the result's notice) and the model (its content) are told that
// the command's changes are not tracked, once a turn.
func TestShellTrackingOffIsTold(t *testing.T) {
	a, _ := newScriptedAgent(t, `call bash {"command": "echo one > one.txt"}
---
call bash {"command": "echo two > two.txt"}
---
text done
`)
	agent.TrackShellsForLife(a, 1) // the workspace holds more
	defer a.Close()
	r := &recorder{}
	a.Sink = r.add
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	var model, user int
	for _, e := range r.of(agent.EventToolResult) {
		if strings.Contains(e.Tool.Result, "not tracked") {
			model++
		}
	}
	for _, e := range r.of(agent.EventNotice) {
		if strings.HasPrefix(e.Text, "bash: ") && strings.Contains(e.Text, "not tracked") {
			user++
		}
	}
	if model != 1 || user != 1 {
		t.Errorf("the model was told %d times, the user %d; want once each", model, user)
	}
}

// warmToml is the configuration of TestShellTrackingWarmStart's agents.
const warmToml = `default_model = "scripted"
[permissions]
allow = ["Bash"]
`

// TestShellTrackingWarmStart: an agent Build makes starts tracking
// before its first command, and that command's changes deep in the
// tree are reported with their texts before, whatever the warm-up had
// done when it came; Close ends a warm-up still under way.
func TestShellTrackingWarmStart(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "old.txt"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := builtAgent(t, `call bash {"command": "echo after > a/b/c/old.txt && echo new > a/b/c/new.txt"}
---
text done
`, warmToml, dir)
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := a.Run(context.Background(), s, "go")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeNames(res), []string{"a/b/c/new.txt created", "a/b/c/old.txt modified"}; !slices.Equal(got, want) {
		t.Fatalf("changes %q, want %q", got, want)
	}
	for _, c := range res.Changes {
		if c.Status == agent.FileModified && (!c.BeforeKnown || string(c.BeforeData) != "before\n") {
			t.Errorf("%s: before %q (known %v), want %q", c.Path, c.BeforeData, c.BeforeKnown, "before\n")
		}
	}

	// Closed at once: the warm-up ends with it.
	b, _ := builtAgent(t, "text done\n", warmToml, dir)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	agent.WaitShellsWarm(b)
}

// TestShellTrackingShared: agents an editor builds for one workspace
// with the same Services (it rebuilds one whenever its settings change)
// share one tracking, warmed once; other sandbox settings get their own.
func TestShellTrackingShared(t *testing.T) {
	dir := t.TempDir()
	svc := &agent.Services{}
	a, _ := builtAgentWith(t, "text done\n", warmToml, agent.Options{Dir: dir, Services: svc})
	b, _ := builtAgentWith(t, "text done\n", warmToml, agent.Options{Dir: dir, Services: svc})
	if !agent.SharesShells(a, b) {
		t.Error("two agents of one workspace and Services track shell commands apart")
	}
	c, _ := builtAgentWith(t, "text done\n", warmToml+"\n[sandbox]\nforbid_read = [\"secret/**\"]\n", agent.Options{Dir: dir, Services: svc})
	if agent.SharesShells(a, c) {
		t.Error("an agent with other sandbox settings shares the tracking, which skips other files")
	}
	agent.WaitShellsWarm(a)
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
}
