//go:build unix

package lsp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/lsp/lsptest"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// askWithJob starts a reasonix.ask turn on prompt and returns once the
// job of f started and holds its Alive, with the channel the turn's
// result (its text, or why it failed, and its session) comes on.
func askWithJob(t *testing.T, ed *lsptest.Editor, f agenttest.JobFifos, prompt string) (<-chan jobTurn, *os.File) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"prompt": prompt})
	done, ended := make(chan jobTurn, 1), make(chan struct{})
	var out jobTurn
	go func() {
		defer close(ended)
		res, err := ed.Server().ExecuteCommand(ctx(t), &protocol.ExecuteCommandParams{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
		switch {
		case err != nil:
			out.Text = "reasonix.ask: " + err.Error()
		case json.Unmarshal(res, &out) != nil:
			out.Text = fmt.Sprintf("reasonix.ask result %s", res)
		}
		done <- out
	}()
	alive := f.OpenAlive(t, ended, func() string { return out.Text })
	return done, alive
}

// jobTurn is what askWithJob's turn answered.
type jobTurn struct {
	Text      string `json:"text"`
	SessionID string `json:"sessionId"`
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
	if r := <-done; r.Text != "stopped" {
		t.Fatalf("the turn: %s", r.Text)
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
			if r := <-done; r.Text != "started" {
				t.Fatalf("the turn: %s", r.Text)
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
	if r := <-done; r.Text != "started" {
		t.Fatalf("the turn: %s", r.Text)
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

// TestOpenSessionFollowsTheSettings: a change of the editor's settings
// applies to the next turn of a session already open, not only to new
// ones. Taking Bash back from the allow list refuses the session's next
// command (fail closed); the background job it started before the change
// is still its own to stop (the workspace's jobs outlive the agent the
// settings rebuilt).
func TestOpenSessionFollowsTheSettings(t *testing.T) {
	f := agenttest.MakeJobFifos(t)
	script := f.LeaveScript(t, "start", "serving") + "\n---\n" + strings.Join([]string{
		"match stop",
		`call bash {"command": "echo after"}`,
		"---",
		"match stop",
		"expect tool Permission denied",
		`call kill_shell {"id": "bg1"}`,
		"---",
		"match stop",
		"expect tool Stopped job bg1",
		"text stopped",
	}, "\n")
	root, _ := workspace(t, script, "")
	ed := lsptest.New(t, lsptest.Options{Root: root, Settings: map[string]any{
		"reasonix": map[string]any{"permissions": map[string]any{"allow": []string{"Bash"}}},
	}})
	done, alive := askWithJob(t, ed, f, "start")
	first := <-done
	if first.Text != "started" {
		t.Fatalf("the turn: %s", first.Text)
	}
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"deny": []string{"Bash(echo:*)"}}})
	if err := ed.Server().DidChangeConfiguration(ctx(t), &protocol.DidChangeConfigurationParams{Settings: settings}); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"prompt": "stop", "sessionId": first.SessionID})
	if res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}}); res["text"] != "stopped" {
		t.Fatalf("the turn after the settings changed: %v", res)
	}
	agenttest.AssertJobGone(t, alive)
}

// TestRemovedFolderEndsItsWork: removing a workspace folder from the
// editor ends what its workspace left running — here a background job,
// with every process it started — while the server goes on with the
// folder added in its place; the removed folder's open session then says
// why it runs no more turns.
func TestRemovedFolderEndsItsWork(t *testing.T) {
	f := agenttest.MakeJobFifos(t)
	root, _ := workspace(t, f.LeaveScript(t, "start", "serving"), "[permissions]\napproval = \"auto\"\n")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	done, alive := askWithJob(t, ed, f, "start")
	first := <-done
	if first.Text != "started" {
		t.Fatalf("the turn: %s", first.Text)
	}
	if err := ed.Server().DidChangeWorkspaceFolders(ctx(t), &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Removed: []protocol.WorkspaceFolder{{URI: ed.URI(""), Name: filepath.Base(root)}},
		Added:   []protocol.WorkspaceFolder{{URI: uri.File(t.TempDir()), Name: "other"}},
	}}); err != nil {
		t.Fatal(err)
	}
	agenttest.AssertJobGone(t, alive)
	b, _ := json.Marshal(map[string]any{"prompt": "more", "sessionId": first.SessionID})
	res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
	if msg, _ := res["error"].(string); !strings.Contains(msg, "is no longer open in the editor") {
		t.Errorf("a turn in the removed folder's session: %v", res)
	}
}

// TestFolderRemovedWhileItsWorkspaceIsBuilt: a folder the editor removes
// while its workspace is still being built (an MCP server starting) has
// what that build started stopped once it ends: the server, here held at
// its start until the folder is gone, does not outlive the removal.
func TestFolderRemovedWhileItsWorkspaceIsBuilt(t *testing.T) {
	bin := mcptest.Require(t, "mcp-server-everything")
	dir := t.TempDir()
	alive, gate := filepath.Join(dir, "alive"), filepath.Join(dir, "gate")
	for _, p := range []string{alive, gate} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
	}
	// The server holds alive's writing end from its start, and waits for
	// gate before it answers.
	root, _ := workspace(t, "text unused\n", fmt.Sprintf(`
[[plugins]]
name    = "gated"
command = "sh"
args    = ["-c", "exec 3>%s; cat %s >/dev/null; exec %s"]
start_timeout_seconds = 120
`, alive, gate, bin))
	ed := lsptest.New(t, lsptest.Options{Root: root})
	ended := make(chan struct{}) // never closed: the server's start is what opens alive
	r := agenttest.JobFifos{Alive: alive}.OpenAlive(t, ended, func() string { return "" })

	if err := ed.Server().DidChangeWorkspaceFolders(ctx(t), &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Removed: []protocol.WorkspaceFolder{{URI: ed.URI(""), Name: filepath.Base(root)}},
		Added:   []protocol.WorkspaceFolder{{URI: uri.File(t.TempDir()), Name: "other"}},
	}}); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close() // the server goes on, and the build ends
	agenttest.AssertJobGone(t, r)
}
