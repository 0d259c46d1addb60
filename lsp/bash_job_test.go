//go:build unix

package lsp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/lsp/lsptest"
)

// askWithJob starts a reasonix.ask turn on prompt and returns once the
// job of f started and holds its Alive, with the channel the turn's
// result (its text, or why it failed) comes on.
func askWithJob(t *testing.T, ed *lsptest.Editor, f agenttest.JobFifos, prompt string) (<-chan string, *os.File) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"prompt": prompt})
	done, ended := make(chan string, 1), make(chan struct{})
	var text string
	go func() {
		defer close(ended)
		res, err := ed.Server().ExecuteCommand(ctx(t), &protocol.ExecuteCommandParams{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
		var out struct {
			Text string `json:"text"`
		}
		switch {
		case err != nil:
			text = "reasonix.ask: " + err.Error()
		case json.Unmarshal(res, &out) != nil:
			text = fmt.Sprintf("reasonix.ask result %s", res)
		default:
			text = out.Text
		}
		done <- text
	}()
	alive := f.OpenAlive(t, ended, func() string { return text })
	return done, alive
}

// TestBackgroundJobOverLSP: in the editor, the model starts a job with
// run_in_background, reads what it printed with bash_output (the job
// still runs), stops it with kill_shell, and reads that it was killed;
// no process of the job is left while the server goes on.
func TestBackgroundJobOverLSP(t *testing.T) {
	f := agenttest.MakeJobFifos(t)
	const prompt = "watch the server"
	root, srv := workspace(t, f.StopScript(t, prompt, "serving-on-8080"), "[permissions]\napproval = \"auto\"\n")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	done, alive := askWithJob(t, ed, f, prompt)
	if text := <-done; text != "stopped" {
		t.Fatalf("the turn: %s", text)
	}
	agenttest.CheckJobRead(t, srv.Requests(), "serving-on-8080")
	agenttest.AssertJobGone(t, alive)
}

// TestServerEndsBackgroundJob: a job the model never stops outlives its
// turn, and ends, with every process it started, when the server does:
// on shutdown and exit, or when the editor vanishes.
func TestServerEndsBackgroundJob(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(*lsptest.Editor) int
	}{
		{"shutdown", (*lsptest.Editor).Shutdown},
		{"disconnect", (*lsptest.Editor).Disconnect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := agenttest.MakeJobFifos(t)
			const prompt = "start the server"
			root, _ := workspace(t, f.LeaveScript(t, prompt, "serving"), "[permissions]\napproval = \"auto\"\n")
			ed := lsptest.New(t, lsptest.Options{Root: root})
			done, alive := askWithJob(t, ed, f, prompt)
			if text := <-done; text != "started" {
				t.Fatalf("the turn: %s", text)
			}
			tc.end(ed)
			agenttest.AssertJobGone(t, alive)
		})
	}
}

// TestShutdownReleasesBeforeItAnswers: by the time shutdown answers, the
// background job has ended and the private cache layers its commands used
// are gone from the Reasonix home, so an editor that waits for the answer
// and then removes that home (or the workspace) races with nothing.
func TestShutdownReleasesBeforeItAnswers(t *testing.T) {
	f := agenttest.MakeJobFifos(t)
	const prompt = "start the server"
	root, _ := workspace(t, f.LeaveScript(t, prompt, "serving"), "[permissions]\napproval = \"auto\"\n")
	layers := filepath.Join(os.Getenv("REASONIX_HOME"), "layers")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	done, alive := askWithJob(t, ed, f, prompt)
	if text := <-done; text != "started" {
		t.Fatalf("the turn: %s", text)
	}
	before, _ := os.ReadDir(layers)
	if err := ed.Server().Shutdown(ctx(t)); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadDir(layers)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var left []string
	for _, e := range after {
		left = append(left, e.Name())
	}
	if len(left) > 0 {
		t.Errorf("after shutdown answered, %s still holds %v", layers, left)
	}
	if len(before) == 0 {
		t.Logf("no private cache layers were made here (%s is empty): only the job is checked", layers)
	}
	agenttest.AssertJobGone(t, alive)
	if code := ed.Disconnect(); code != 0 {
		t.Errorf("exit code %d after shutdown", code)
	}
}
