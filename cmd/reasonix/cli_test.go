package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noTrace fails if a Go panic or stack trace reached the user.
func noTrace(t *testing.T, r run) {
	t.Helper()
	for _, s := range []string{"goroutine ", "panic:", ".go:"} {
		if strings.Contains(r.stderr, s) {
			t.Fatalf("stderr shows a trace (%q):\n%s", s, r.stderr)
		}
	}
}

func TestConfigErrorsReachTheUser(t *testing.T) {
	tests := []struct {
		name, project, want string
		env                 []string
	}{
		{"malformed toml", "[agent\nmax_steps = 1\n", "reasonix.toml:1: invalid TOML", nil},
		{"unknown kind", "default_model = \"x\"\n[[providers]]\nname = \"x\"\nkind = \"grpc\"\nbase_url = \"u\"\nmodel = \"m\"\n",
			`reasonix.toml:4: provider "x" has unknown kind "grpc"`, nil},
		{"missing key", "", "set the environment variable DEEPSEEK_API_KEY", nil},
		{"unresolvable model", "default_model = \"gpt-7\"\n", `reasonix.toml:1: model "gpt-7" matches no provider`, nil},
		// The warning about the misspelt key comes with the error it causes.
		{"misspelt model key", "default_model = \"x\"\n[[providers]]\nname = \"x\"\nbase_url = \"u\"\nmodell = \"m\"\n",
			"reasonix: warning: " + `PROJECT:5: unknown setting "providers.modell" (ignored)` + "\nreasonix: " + `PROJECT:2: provider "x" declares no model`, nil},
		{"wrong type", "[agent]\nmax_steps = \"ten\"\n", `reasonix.toml:2: "agent.max_steps" must be an integer, not a string`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home := t.TempDir()
			if tt.project != "" {
				os.WriteFile(filepath.Join(dir, "reasonix.toml"), []byte(tt.project), 0o644)
				if strings.Contains(tt.project, "[[providers]]") {
					trustWorkspace(t, dir, home)
				}
			}
			r := runReasonix(t, dir, home, tt.env, "run", "hello")
			want := strings.ReplaceAll(tt.want, "PROJECT", filepath.Join(dir, "reasonix.toml"))
			if r.exit != 1 || !strings.Contains(r.stderr, want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant %q", r.exit, r.stderr, want)
			}
			noTrace(t, r)
		})
	}
}

// TestUsageErrors: a wrong use of the command line exits 64 (2 is the
// token budget's) with the project's own usage for that command.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	type usageCase struct{ args, want []string }
	tests := []usageCase{
		{[]string{}, []string{"Usage:\n  reasonix lsp"}},
		{[]string{"run"}, []string{"reasonix run: a prompt is required", "usage: reasonix run [--model REF]"}},
		{[]string{"frobnicate"}, []string{`unknown command "frobnicate"`}},
		{[]string{"run", "--approval", "reckless", "hello"}, []string{`--approval must be ask, auto or yolo, not "reckless"`}},
		{[]string{"help", "frobnicate"}, []string{`unknown command "frobnicate"`}},
		{[]string{"mcp"}, []string{"reasonix mcp: a subcommand is required", "usage: reasonix mcp list"}},
		{[]string{"mcp", "lst"}, []string{`unknown subcommand "lst"`}},
		{[]string{"sessions", "extra"}, []string{`unexpected argument "extra"`}},
	}
	// Every subcommand's flag error prints its own usage, not Go's.
	for _, c := range commands {
		args := append(strings.Fields(c.name), "--bogus")
		tests = append(tests, usageCase{args, []string{"reasonix " + c.name + ": unknown flag --bogus", "usage: reasonix " + c.synopsis + "\n"}})
	}
	for _, tt := range tests {
		r := runReasonix(t, dir, t.TempDir(), nil, tt.args...)
		if r.exit != exitUsage || strings.Contains(r.stderr, "Usage of") {
			t.Errorf("%q: exit %d, want %d; stderr:\n%s", tt.args, r.exit, exitUsage, r.stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%q: stderr does not say %q:\n%s", tt.args, w, r.stderr)
			}
		}
	}
	if r := runReasonix(t, dir, t.TempDir(), nil, "version"); r.exit != 0 || !strings.HasPrefix(r.stdout, "reasonix ") {
		t.Fatalf("version: %+v", r)
	}
}

// TestHelp: --help and `help COMMAND` print a command's usage on stdout
// and succeed.
func TestHelp(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"run", "--help"}, {"help", "run"}, {"run", "-h"}} {
		r := runReasonix(t, dir, t.TempDir(), nil, args...)
		if r.exit != 0 || !strings.HasPrefix(r.stdout, "Usage: reasonix run [--model REF]") || !strings.Contains(r.stdout, "  --approval ask|auto|yolo  ") {
			t.Errorf("%q: %+v", args, r)
		}
		// The slash commands and @ references are found from the help.
		if !strings.Contains(r.stdout, "reasonix run /help lists them") || !strings.Contains(r.stdout, "@path attaches a\nfile") {
			t.Errorf("%q says nothing of slash commands and references:\n%s", args, r.stdout)
		}
	}
	for _, args := range [][]string{{"mcp", "--help"}, {"mcp", "list", "--help"}, {"help", "mcp"}} {
		r := runReasonix(t, dir, t.TempDir(), nil, args...)
		if r.exit != 0 || !strings.HasPrefix(r.stdout, "Usage: reasonix mcp list [--verbose] [--json] [--config FILE]") || !strings.Contains(r.stdout, "  --verbose ") {
			t.Errorf("%q: %+v", args, r)
		}
	}
	r := runReasonix(t, dir, t.TempDir(), nil, "--help")
	if r.exit != 0 || !strings.Contains(r.stdout, "reasonix lsp") || !strings.Contains(r.stdout, "64 usage error") {
		t.Errorf("--help: %+v", r)
	}
}

func TestSetupWritesAConfigThatLoads(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	r := runReasonix(t, dir, home, nil, "setup")
	if r.exit != 0 || !strings.Contains(r.stdout, filepath.Join(home, "config.toml")) {
		t.Fatalf("setup: %+v", r)
	}
	if r := runReasonix(t, dir, home, nil, "setup"); r.exit != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("second setup: %+v", r)
	}
	// The written config is valid: a run gets as far as the missing key.
	r = runReasonix(t, dir, home, nil, "run", "hi")
	if r.exit != 1 || !strings.Contains(r.stderr, "DEEPSEEK_API_KEY") || strings.Contains(r.stderr, "warning") {
		t.Fatalf("run with setup config: %+v", r)
	}
}

// TestSessionsAndResume runs a task, lists it, and resumes it: the resumed
// request must carry the first turn's messages unchanged.
func TestSessionsAndResume(t *testing.T) {
	srv, cfg := startScripted(t, "text first answer\n---\nexpect user second question\ntext second answer\n")
	home, work := t.TempDir(), t.TempDir()

	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "first question")
	if r.exit != 0 || strings.TrimSpace(r.stdout) != "first answer" {
		t.Fatalf("first run: %+v", r)
	}
	r = runReasonix(t, work, home, nil, "sessions", "--json")
	var list []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Turns int    `json:"turns"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 || list[0].Title != "first question" {
		t.Fatalf("sessions: %v %+v\n%s", err, list, r.stdout)
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--resume", list[0].ID, "second question")
	if r.exit != 0 || strings.TrimSpace(r.stdout) != "second answer" {
		t.Fatalf("resumed run: %+v", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	first, second := reqs[0].Messages, reqs[1].Messages
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second[:len(first)])
	if string(a) != string(b) {
		t.Fatalf("the resumed request does not extend the first:\n%s\n%s", a, b)
	}
	if second[len(first)].Role != "assistant" || reqs[1].Usage == nil || reqs[1].Usage.PromptCacheHitTokens == 0 {
		t.Fatalf("resume: %+v usage %+v", second[len(first)], reqs[1].Usage)
	}
	r = runReasonix(t, work, home, nil, "sessions")
	if !strings.Contains(r.stdout, list[0].ID) || !strings.Contains(r.stdout, "first question") {
		t.Fatalf("sessions table:\n%s", r.stdout)
	}
}

// TestFailedRunLeavesNoSession: a run whose model request fails has no
// turn to resume, so it leaves no session behind.
func TestFailedRunLeavesNoSession(t *testing.T) {
	_, cfg := startScripted(t, "fault 401 invalid api key\n")
	home, work := t.TempDir(), t.TempDir()
	if r := runReasonix(t, work, home, nil, "run", "--config", cfg, "hello"); r.exit != exitError {
		t.Fatalf("run: %+v", r)
	}
	r := runReasonix(t, work, home, nil, "sessions", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("sessions after a failed run:\n%s", r.stdout)
	}
}

// TestLSPWithoutAClient: standard input that ends before any message is
// no client at all: the server says so and exits 0. A client that goes
// away mid-message has left without shutdown and exit: 1.
func TestLSPWithoutAClient(t *testing.T) {
	r := runReasonix(t, t.TempDir(), t.TempDir(), nil, "lsp") // stdin is /dev/null
	if r.exit != 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "standard input ended before any message") {
		t.Fatalf("lsp with empty stdin: %+v", r)
	}
	cmd := exec.Command(reasonixBin, "lsp")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "REASONIX_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("Content-Length: 50\r\n\r\n{")
	var ee *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("lsp with a client that vanished: %v", err)
	}
}

// TestACPWithoutAClient: `reasonix acp` with nothing on stdin says so in
// one line and exits 0; a client that speaks and leaves gets its answer
// and exit 0 too (ACP has no shutdown request: closing stdin is the end).
func TestACPWithoutAClient(t *testing.T) {
	r := runReasonix(t, t.TempDir(), t.TempDir(), nil, "acp")
	if r.exit != 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "standard input ended before any message") {
		t.Fatalf("acp with empty stdin: %+v", r)
	}
	cmd := exec.Command(reasonixBin, "acp")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "REASONIX_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), `"protocolVersion":1`) {
		t.Fatalf("acp with a client that initialized and left: %v\n%s", err, out)
	}
}

// TestInterrupt sends SIGINT while the model is still streaming: the run
// stops at once with exit code 130 and says how to resume, and the saved
// session ends with a note rather than a dangling request.
func TestInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on Windows")
	}
	srv, cfg := startScripted(t, "delay 100ms\ntext "+strings.Repeat("slow words ", 200)+"\n")
	home, work := t.TempDir(), t.TempDir()

	cmd := exec.Command(reasonixBin, "run", "--config", cfg, "talk slowly")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "REASONIX_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(srv.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v to stop", d)
	}
	if !strings.Contains(stderr.String(), "interrupted; resume with: reasonix run --resume") {
		t.Fatalf("stderr:\n%s", stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), "interrupted by the user") {
		t.Fatalf("session file:\n%s", data)
	}
}

// TestInterruptWhilePluginsStart: Ctrl-C while an MCP server is still
// starting ends the run (130) and stops the server, which runs in a
// process group of its own that the terminal's signal does not reach.
func TestInterruptWhilePluginsStart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on Windows")
	}
	_, cfg := startScripted(t, "text never asked\n")
	home, work := t.TempDir(), t.TempDir()
	// The plugin holds the write end of a FIFO: opening the read end
	// returns once it has started, reading it ends when it is gone.
	fifo := filepath.Join(t.TempDir(), "alive")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "reasonix.toml"), []byte(fmt.Sprintf(`
[[plugins]]
name    = "slow"
command = "sh"
args    = ["-c", "exec sleep 3600 3>%s"]
start_timeout_seconds = 3600
`, fifo)), 0o644)
	trustWorkspace(t, work, home)

	cmd := exec.Command(reasonixBin, "run", "--config", cfg, "hello")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "REASONIX_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	alive := openWithin(t, fifo, time.Minute)
	defer alive.Close()

	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	gone := make(chan error, 1)
	go func() { _, err := io.ReadAll(alive); gone <- err }()
	select {
	case <-gone:
	case <-time.After(time.Minute):
		t.Fatal("the starting plugin outlived reasonix")
	}
}

// openWithin opens path for reading, which for a FIFO waits for a writer.
func openWithin(t *testing.T, path string, d time.Duration) *os.File {
	t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	select {
	case f := <-opened:
		if f == nil {
			t.FailNow()
		}
		return f
	case <-time.After(d):
		t.Fatalf("no writer opened %s within %s", path, d)
	}
	return nil
}

// TestMCPList starts the configured MCP servers — the example plugin, one
// that exits at start-up, and one from .mcp.json — and reports them
// without a model or an API key.
func TestMCPList(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "reasonix.toml"), []byte(`
[[plugins]]
name    = "example"
command = "reasonix-plugin-example"

[[plugins]]
name    = "broken"
command = "sh"
args    = ["-c", "echo cannot open the database >&2; exit 3"]

[[plugins]]
name    = "off"
enabled = false
`), 0o644)
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"again": {"command": "reasonix-plugin-example", "args": []}}}`), 0o644)

	home := t.TempDir()
	trustWorkspace(t, dir, home)
	r := runReasonix(t, dir, home, nil, "mcp", "list")
	noTrace(t, r)
	if r.exit != exitError {
		t.Fatalf("exit %d with a failed server, want %d; stderr:\n%s", r.exit, exitError, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	wantRows := [][]string{
		{"SERVER", "TRANSPORT", "STATE", "TOOLS", "PROMPTS", "RESOURCES"},
		{"again", "stdio", "connected", "3", "1", "1"}, // by name
		{"broken", "stdio", "failed", "0", "0", "0"},
		{"example", "stdio", "connected", "3", "1", "1"},
		{"off", "stdio", "disabled", "0", "0", "0"},
	}
	if len(lines) < len(wantRows) {
		t.Fatalf("stdout:\n%s", r.stdout)
	}
	for i, want := range wantRows {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("row %d = %q, want %q", i, got, want)
		}
	}
	if !strings.Contains(r.stdout, "broken: ") || !strings.Contains(r.stdout, "cannot open the database") {
		t.Errorf("the failed server's reason is missing:\n%s", r.stdout)
	}
	// Once: the report says why the server failed, so stderr does not.
	if n := strings.Count(r.stdout+r.stderr, "exited with status 3"); n != 1 {
		t.Errorf("the failure is reported %d times, want once:\n%s\n%s", n, r.stdout, r.stderr)
	}

	r = runReasonix(t, dir, home, nil, "mcp", "list", "--verbose")
	for _, want := range []string{
		"\nexample\n  tools      mcp__example__echo\n             mcp__example__lookup (read-only)\n",
		"  prompts    /mcp__example__review <focus> [path]\n",
		"  resources  @example:note://greeting",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--verbose does not show %q:\n%s", want, r.stdout)
		}
	}

	r = runReasonix(t, dir, home, nil, "mcp", "list", "--json")
	var out struct {
		Servers []struct {
			Name, Transport, State, Error string
			Tools, Prompts, Resources     int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if len(out.Servers) != 4 || out.Servers[2].Name != "example" || out.Servers[2].Tools != 3 || out.Servers[1].State != "failed" || out.Servers[1].Error == "" {
		t.Errorf("--json servers: %+v", out.Servers)
	}

	// Without the failing server the listing succeeds.
	os.WriteFile(filepath.Join(dir, "reasonix.toml"), []byte("[[plugins]]\nname = \"example\"\ncommand = \"reasonix-plugin-example\"\n"), 0o644)
	if r := runReasonix(t, dir, home, nil, "mcp", "list"); r.exit != exitOK {
		t.Errorf("mcp list with working servers: %+v", r)
	}

	// In a home that has not trusted the workspace, nothing of its own
	// starts.
	r = runReasonix(t, dir, t.TempDir(), nil, "mcp", "list", "--json")
	out.Servers = nil
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Servers) != 0 || !strings.Contains(r.stderr, "takes effect only once you trust it") {
		t.Errorf("untrusted: %v, servers %+v, stderr:\n%s", err, out.Servers, r.stderr)
	}
}

// TestMCPListClaudeCodeServers: a server added with Claude Code's `claude
// mcp add` (its user scope in ~/.claude.json) starts and is listed, with
// no trust asked: it is the user's own.
func TestMCPListClaudeCodeServers(t *testing.T) {
	dir, home, userHome := t.TempDir(), t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(userHome, ".claude.json"), `{"numStartups": 3, "mcpServers": {"from-claude": {"type": "stdio", "command": "reasonix-plugin-example", "args": []}}}`)
	r := runReasonix(t, dir, home, []string{"HOME=" + userHome}, "mcp", "list")
	noTrace(t, r)
	if r.exit != exitOK {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 2 || strings.Join(strings.Fields(lines[1]), " ") != "from-claude stdio connected 3 1 1" {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}
