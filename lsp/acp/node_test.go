//go:build unix

package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools/sandbox"
)

// nodeScript is the model of the Node client's three prompts: a fix that
// reads the unsaved buffer and edits it, a shell command (run in the
// client's terminal), then a write cancelled while its permission request
// is open (no step follows it: a turn that went on
// would find none and fail).
const nodeScript = `match Fix Add
reasoning Add subtracts instead of adding.
call read_file {"path": "calc.go"}
---
match Fix Add
expect tool unsaved note
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
match Fix Add
expect tool calc.go
text Fixed: Add adds now.
---
match Run the check
call bash {"command": "echo from the terminal; exit 4"}
---
match Run the check
expect tool from the terminal
expect tool Exit code: 4
text Checked.
---
match notes.txt
call write_file {"path": "notes.txt", "content": "never"}
`

// nodeReport is what testdata/node/client.mjs prints.
type nodeReport struct {
	ProtocolVersion   int `json:"protocolVersion"`
	AgentCapabilities struct {
		LoadSession        bool `json:"loadSession"`
		PromptCapabilities struct {
			Image           bool `json:"image"`
			EmbeddedContext bool `json:"embeddedContext"`
		} `json:"promptCapabilities"`
	} `json:"agentCapabilities"`
	Updates []struct {
		SessionUpdate string `json:"sessionUpdate"`
		Content       any    `json:"content"`
		ToolCallID    string `json:"toolCallId"`
		Kind          string `json:"kind"`
		Status        string `json:"status"`
	} `json:"updates"`
	Permissions []struct {
		ToolCall struct {
			ToolCallID string `json:"toolCallId"`
		} `json:"toolCall"`
		Options []struct {
			Kind string `json:"kind"`
		} `json:"options"`
	} `json:"permissions"`
	Writes []struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"writes"`
	Terminals []struct {
		ID              string   `json:"id"`
		Command         string   `json:"command"`
		Args            []string `json:"args"`
		Cwd             string   `json:"cwd"`
		OutputByteLimit int      `json:"outputByteLimit"`
	} `json:"terminals"`
	Released []string `json:"released"`
	Reads    []string `json:"reads"`
	Stops    []string `json:"stops"`
	ExitCode int      `json:"exitCode"`
}

// TestNodeClient drives the real binary with @agentclientprotocol/sdk,
// the client library of ACP editors: prompt → streamed answer →
// permission request → edit as a diff tool call → the edit written
// through fs/write_text_file; a shell command run in the client's
// terminal (the jail's executable where the jail works), shown in its
// tool call, its output and exit code back to the model; then a turn
// cancelled during its permission request answers cancelled.
func TestNodeClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	clientDir := requireNodeClient(t)
	root := workspace(t, nodeScript)
	appendConfig(t, root, "[sandbox]\nclient_terminal = true\n")
	var r nodeReport
	runNodeClient(t, nil, &r, filepath.Join(clientDir, "client.mjs"), buildReasonix(t), root)
	calc := filepath.Join(root, "calc.go")

	if r.ProtocolVersion != 1 || !r.AgentCapabilities.LoadSession || r.AgentCapabilities.PromptCapabilities.Image ||
		!r.AgentCapabilities.PromptCapabilities.EmbeddedContext {
		t.Errorf("initialize: version %d, capabilities %+v", r.ProtocolVersion, r.AgentCapabilities)
	}
	if strings.Join(r.Stops, ",") != "end_turn,end_turn,cancelled" {
		t.Errorf("stop reasons = %v, want end_turn twice then cancelled", r.Stops)
	}
	var answer strings.Builder
	editID, diffSeen := "", false
	bashID, terminalShown, bashResult := "", false, ""
	for _, u := range r.Updates {
		switch u.SessionUpdate {
		case "agent_message_chunk":
			if c, ok := u.Content.(map[string]any); ok {
				answer.WriteString(fmt.Sprint(c["text"]))
			}
		case "tool_call":
			if u.Kind == "edit" && editID == "" {
				editID = u.ToolCallID
			}
			if u.Kind == "execute" {
				bashID = u.ToolCallID
			}
		case "tool_call_update":
			items, _ := u.Content.([]any)
			for _, it := range items {
				m, _ := it.(map[string]any)
				if u.ToolCallID == bashID && m["type"] == "terminal" && len(r.Terminals) == 1 && m["terminalId"] == r.Terminals[0].ID {
					terminalShown = true
				}
				if c, ok := m["content"].(map[string]any); ok && u.ToolCallID == bashID && u.Status == "failed" { // exit 4
					bashResult = fmt.Sprint(c["text"])
				}
			}
			if u.ToolCallID == editID && u.Status == "completed" {
				items, _ := u.Content.([]any)
				for _, it := range items {
					if m, ok := it.(map[string]any); ok && m["type"] == "diff" && m["path"] == calc &&
						strings.Contains(fmt.Sprint(m["oldText"]), "return a - b") && strings.Contains(fmt.Sprint(m["newText"]), "return a + b") {
						diffSeen = true
					}
				}
			}
		}
	}
	if answer.String() != "Fixed: Add adds now.Checked." {
		t.Errorf("streamed answer = %q", answer.String())
	}
	if !diffSeen {
		t.Errorf("no completed edit tool call %q with the diff of calc.go", editID)
	}
	if len(r.Terminals) != 1 || r.Terminals[0].Cwd != root || r.Terminals[0].OutputByteLimit != 32<<10 ||
		!slices.Equal(r.Released, []string{r.Terminals[0].ID}) {
		t.Fatalf("terminals created %+v, released %v; want one, released", r.Terminals, r.Released)
	}
	if jailed := len(r.Terminals[0].Args) > 0 && r.Terminals[0].Args[0] == "__reasonix_jail__"; jailed != (sandbox.Available() == nil) {
		t.Errorf("the terminal ran %s %q; the jail works here: %v", r.Terminals[0].Command, r.Terminals[0].Args, sandbox.Available() == nil)
	}
	if !terminalShown {
		t.Errorf("the bash call %q never showed its terminal", bashID)
	}
	if bashResult != "from the terminal\nExit code: 4" {
		t.Errorf("the bash call's result = %q", bashResult)
	}
	if len(r.Permissions) != 3 || r.Permissions[0].ToolCall.ToolCallID != editID || len(r.Permissions[0].Options) != 5 {
		t.Errorf("permission requests = %+v (the edit is %q)", r.Permissions, editID)
	}
	if len(r.Writes) != 1 || r.Writes[0].Path != calc || !strings.HasPrefix(r.Writes[0].Content, "// unsaved note\n") ||
		!strings.Contains(r.Writes[0].Content, "return a + b") {
		t.Errorf("fs/write_text_file calls = %+v", r.Writes)
	}
	if len(r.Reads) == 0 {
		t.Error("the agent read nothing through fs/read_text_file")
	}
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); err == nil {
		t.Error("notes.txt was written although its turn was cancelled")
	}
	if r.ExitCode != 0 {
		t.Errorf("reasonix acp exited %d", r.ExitCode)
	}
}

// requireNodeClient returns the directory of the Node client programs,
// and skips the test (or fails it, under REASONIX_REQUIRE_PEERS=1) when
// Node or the client library is not installed.
func requireNodeClient(t *testing.T) string {
	t.Helper()
	clientDir, _ := filepath.Abs(filepath.Join("testdata", "node"))
	if err := peer(clientDir); err != nil {
		missing(t, fmt.Sprintf("Node with @agentclientprotocol/sdk is not installed (%v); `make peers` installs it", err))
	}
	return clientDir
}

// missing skips a test whose peer is not here, or fails it under
// REASONIX_REQUIRE_PEERS=1.
func missing(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
		t.Fatal(msg + ", and REASONIX_REQUIRE_PEERS=1 requires it")
	}
	t.Skip(msg)
}

// buildReasonix builds cmd/reasonix, as `make build` does, and returns
// the binary.
func buildReasonix(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "reasonix")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/reasonix/reasonix/cmd/reasonix")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runNodeClient runs a Node client program with args, env added to the
// environment, and decodes the JSON report it prints into report; it
// returns what the program wrote on stderr (the server's log among it).
func runNodeClient(t *testing.T, env []string, report any, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client: %v\nstderr:\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), report); err != nil {
		t.Fatalf("report: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("report: %s", stdout.String())
	return stderr.String()
}

// peer checks that node and the client library are installed.
func peer(dir string) error {
	if out, err := exec.Command("node", "--version").CombinedOutput(); err != nil {
		return fmt.Errorf("node --version: %v: %s", err, bytes.TrimSpace(out))
	}
	_, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json"))
	return err
}
