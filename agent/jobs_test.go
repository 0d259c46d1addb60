package agent_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// TestBackgroundJobsEndWithTheAgent: a job the model starts with
// run_in_background outlives the turn, and ends when the agent closes, as
// everything its commands leave running does.
func TestBackgroundJobsEndWithTheAgent(t *testing.T) {
	if _, err := exec.LookPath("tail"); err != nil {
		t.Skip(err)
	}
	t.Setenv("REASONIX_HOME", t.TempDir())
	const script = `call bash {"command": "tail -f /dev/null", "run_in_background": true}
---
expect tool Started background job bg1.
text started
`
	_, url := agenttest.Serve(t, script, scripted.Options{})
	cfg, err := config.Load(config.Options{SkipUser: true})
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf("default_model = \"s\"\n[[providers]]\nname = \"s\"\nbase_url = %q\nmodel = \"deepseek-flash\"\n[permissions]\nmode = \"allow\"\n", url)
	if err := cfg.OverlayTOML("test", src); err != nil {
		t.Fatal(err)
	}
	a, err := agent.Build(cfg, agent.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.NewSession()
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), s, "start it")
	if err != nil || res.Text != "started" {
		a.Close()
		t.Fatalf("turn: %+v, %v", res, err)
	}
	job := a.Env.Jobs.Get("bg1")
	if job == nil || !job.Peek().Running {
		a.Close()
		t.Fatalf("job bg1 after the turn: %+v", job)
	}
	a.Close()
	select {
	case <-job.Finished():
	case <-time.After(10 * time.Second):
		t.Fatal("the job still runs after the agent closed")
	}
	if job.Peek().Running {
		t.Error("the job says it runs after the agent closed")
	}
}
