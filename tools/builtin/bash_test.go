package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
	"github.com/reasonix/reasonix/tools/sandbox/sandboxtest"
)

// needBash skips tests whose commands are bash syntax when there is no bash.
func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not in PATH")
	}
}

// needProcessGroups skips tests that look for processes by pid after the
// tool killed their group.
func needProcessGroups(t *testing.T) {
	t.Helper()
	needBash(t)
	if runtime.GOOS == "windows" {
		t.Skip("process group checks are Unix-only")
	}
}

func TestBashRuns(t *testing.T) {
	needBash(t)
	tests := []struct {
		name    string
		command string
		want    string
		isError bool
		summary string
	}{
		{"success", "echo hello", "hello\nExit code: 0", false, "exit 0"},
		{"no output", "true", "(no output)\nExit code: 0", false, "exit 0"},
		{"non-zero exit", "echo failing; exit 3", "failing\nExit code: 3", true, "exit 3"},
		{"stderr and stdout in order", "echo out; echo err >&2; echo out2", "out\nerr\nout2\nExit code: 0", false, "exit 0"},
		{"last line without newline", "printf partial", "partial\nExit code: 0", false, "exit 0"},
		{"ansi escapes stripped", `printf '\033[1;31mred\033[0m \033]0;title\007plain\n'`, "red plain\nExit code: 0", false, "exit 0"},
		{"invalid utf-8 replaced", `printf 'a\377\376b\n'`, "a\uFFFDb\nExit code: 0", false, "exit 0"},
		{"stdin is empty", "cat; echo done", "done\nExit code: 0", false, "exit 0"},
		{"non-interactive env", `echo "$GIT_TERMINAL_PROMPT $GIT_PAGER $PAGER $NO_COLOR $GIT_EDITOR"`, "0 cat cat 1 true\nExit code: 0", false, "exit 0"},
		{"killed by a signal", "kill -9 $$", "(no output)\nKilled by signal 9 (killed).", true, "killed by signal 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.name == "killed by a signal" && runtime.GOOS == "windows" {
				t.Skip("no signals on Windows")
			}
			res := call(t, testEnv(t, nil), "bash", map[string]any{"command": tt.command})
			if res.Content != tt.want || res.IsError != tt.isError || res.Summary != tt.summary {
				t.Errorf("got %q (IsError %v, Summary %q), want %q (IsError %v, Summary %q)",
					res.Content, res.IsError, res.Summary, tt.want, tt.isError, tt.summary)
			}
		})
	}
}

func TestBashWorkingDirectoryIsRoot(t *testing.T) {
	needBash(t)
	t.Parallel()
	env := testEnv(t, map[string]string{"sub/marker.txt": "x"})
	res := call(t, env, "bash", map[string]any{"command": "pwd -P; ls sub"})
	want := env.Root + "\nmarker.txt\nExit code: 0"
	// On Windows bash prints an MSYS path; only the listing is comparable.
	if runtime.GOOS == "windows" && strings.Contains(res.Content, "\nmarker.txt\n") {
		want = res.Content
	}
	if res.Content != want {
		t.Errorf("got %q, want %q", res.Content, want)
	}
}

func TestBashBadArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args string
		want string
	}{
		{"missing command", `{}`, "command is required"},
		{"blank command", `{"command": "  "}`, "command is required"},
		{"unknown field", `{"command": "true", "cwd": "/"}`, `unknown field "cwd"`},
		{"negative timeout", `{"command": "true", "timeout_seconds": -1}`, "timeout_seconds must be a positive"},
		{"zero timeout", `{"command": "true", "timeout_seconds": 0}`, "timeout_seconds must be a positive"},
		{"fractional timeout", `{"command": "true", "timeout_seconds": 1.5}`, "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, testEnv(t, nil), "bash", tt.args)
			if !res.IsError || !strings.Contains(res.Content, tt.want) {
				t.Errorf("got %q (IsError %v), want an error containing %q", res.Content, res.IsError, tt.want)
			}
		})
	}
}

func TestBashShellCannotStart(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	env.Shell = filepath.Join(env.Root, "no-such-shell")
	res := call(t, env, "bash", map[string]any{"command": "true"})
	if !res.IsError || !strings.Contains(res.Content, "cannot start the shell") {
		t.Errorf("got %q (IsError %v), want a start error", res.Content, res.IsError)
	}
}

func TestBashBeforeShell(t *testing.T) {
	needBash(t)
	t.Parallel()
	t.Run("note shown first", func(t *testing.T) {
		env := testEnv(t, nil)
		env.BeforeShell = func(context.Context) (string, error) { return "Saved 2 editor buffers.\n", nil }
		res := call(t, env, "bash", map[string]any{"command": "echo hi"})
		if want := "Saved 2 editor buffers.\n\nhi\nExit code: 0"; res.Content != want {
			t.Errorf("got %q, want %q", res.Content, want)
		}
	})
	t.Run("error reported, command not run", func(t *testing.T) {
		env := testEnv(t, nil)
		env.BeforeShell = func(context.Context) (string, error) { return "", errors.New("disk full") }
		res := call(t, env, "bash", map[string]any{"command": "touch ran"})
		if !res.IsError || !strings.Contains(res.Content, "disk full") {
			t.Errorf("got %q (IsError %v), want the BeforeShell error", res.Content, res.IsError)
		}
		if _, err := os.Stat(filepath.Join(env.Root, "ran")); err == nil {
			t.Error("the command ran although BeforeShell failed")
		}
	})
}

func TestBashTimeout(t *testing.T) {
	needBash(t)
	tests := []struct {
		name  string
		limit time.Duration
		arg   *int
		want  string
	}{
		{"argument", 0, ptr(1), "1s"},
		{"argument capped by the limit", 500 * time.Millisecond, ptr(60), "500ms"},
		{"limit as default", 500 * time.Millisecond, nil, "500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t, nil)
			env.BashTimeout = tt.limit
			args := map[string]any{"command": "echo started; sleep 30"}
			if tt.arg != nil {
				args["timeout_seconds"] = *tt.arg
			}
			start := time.Now()
			res := call(t, env, "bash", args)
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %v", took)
			}
			want := "started\nTimed out after " + tt.want + "; the command and its child processes were killed."
			if res.Content != want || !res.IsError || res.Summary != "timed out after "+tt.want {
				t.Errorf("got %q (IsError %v, Summary %q), want %q", res.Content, res.IsError, res.Summary, want)
			}
		})
	}
}

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	needProcessGroups(t)
	t.Parallel()
	env := testEnv(t, nil)
	res := call(t, env, "bash", map[string]any{
		"command":         "sleep 100 & echo $! > pid.tmp && mv pid.tmp pid; sleep 100",
		"timeout_seconds": 1,
	})
	if !strings.HasPrefix(res.Summary, "timed out") {
		t.Fatalf("got %q, want a timeout", res.Content)
	}
	waitGone(t, readPID(t, env))
}

func TestBashCancelKillsProcessGroup(t *testing.T) {
	needProcessGroups(t)
	t.Parallel()
	env := testEnv(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type outcome struct {
		res tools.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		raw := json.RawMessage(`{"command": "sleep 100 & echo $! > pid.tmp && mv pid.tmp pid; sleep 100"}`)
		res, err := lookup(t, "bash").Execute(ctx, env, raw)
		done <- outcome{res, err}
	}()
	pid := pollPID(t, env)
	cancel()
	select {
	case o := <-done:
		if !errors.Is(o.err, context.Canceled) {
			t.Errorf("got error %v (result %q), want context.Canceled", o.err, o.res.Content)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Execute did not return after cancellation")
	}
	waitGone(t, pid)
}

func TestBashBackgroundProcessDoesNotHang(t *testing.T) {
	needProcessGroups(t)
	t.Parallel()
	env := testEnv(t, nil)
	start := time.Now()
	// The background sleep inherits the output pipe and holds it open.
	res := call(t, env, "bash", map[string]any{"command": "sleep 30 & echo $! > pid; echo started"})
	took := time.Since(start)
	if p, err := os.FindProcess(readPID(t, env)); err == nil {
		defer p.Kill()
	}
	if took > 3*time.Second {
		t.Errorf("took %v with a background process holding the output", took)
	}
	if !strings.HasPrefix(res.Content, "started\n") || !strings.Contains(res.Content, "Output collection stopped") ||
		!strings.HasSuffix(res.Content, "\nExit code: 0") || res.IsError {
		t.Errorf("got %q (IsError %v)", res.Content, res.IsError)
	}
}

func TestBashHugeOutput(t *testing.T) {
	needBash(t)
	t.Parallel()
	t.Run("repeated lines", func(t *testing.T) {
		res := call(t, testEnv(t, nil), "bash", map[string]any{"command": "yes | head -c 5000000"})
		const kept = bashHeadBytes + bashTailBytes
		marker := fmt.Sprintf("y\n[... %d bytes omitted ...]\ny\n", 5000000-kept)
		if !strings.HasPrefix(res.Content, "y\ny\n") || !strings.HasSuffix(res.Content, "y\nExit code: 0") ||
			strings.Count(res.Content, marker) != 1 || len(res.Content) > kept+100 {
			t.Errorf("got %d bytes: %.80q … %q", len(res.Content), res.Content, res.Content[max(0, len(res.Content)-80):])
		}
	})
	t.Run("cut on line boundaries", func(t *testing.T) {
		const n = 1000000
		res := call(t, testEnv(t, nil), "bash", map[string]any{"command": fmt.Sprintf("seq 1 %d", n)})
		body, ok := strings.CutSuffix(res.Content, "\nExit code: 0")
		if !ok {
			t.Fatalf("no exit code: %q", res.Content[max(0, len(res.Content)-80):])
		}
		head, rest, ok := strings.Cut(body, "[... ")
		if !ok {
			t.Fatal("no omitted-bytes marker")
		}
		count, tail, _ := strings.Cut(rest, " bytes omitted ...]\n")
		headLines := strings.Split(strings.TrimSuffix(head, "\n"), "\n")
		tailLines := strings.Split(tail, "\n")
		for i, l := range headLines {
			if l != strconv.Itoa(i+1) {
				t.Fatalf("head line %d is %q", i+1, l)
			}
		}
		first := n - len(tailLines) + 1
		for i, l := range tailLines {
			if l != strconv.Itoa(first+i) {
				t.Fatalf("tail line %d is %q, want %d", i, l, first+i)
			}
		}
		total := 0
		for i := 1; i <= n; i++ {
			total += len(strconv.Itoa(i)) + 1
		}
		if want := strconv.Itoa(total - len(head) - len(tail) - 1); count != want {
			t.Errorf("omitted %s bytes, want %s", count, want)
		}
	})
}

func TestCapture(t *testing.T) {
	// Lines of varying length so the cuts land in different places.
	var data []byte
	for i := 0; len(data) < 3*(bashHeadBytes+bashTailBytes); i++ {
		data = fmt.Appendf(data, "line %d %s\n", i, strings.Repeat("é", i%50))
	}
	for _, size := range []int{len(data), bashHeadBytes + bashTailBytes, bashHeadBytes + 10, bashHeadBytes, 100, 0} {
		for _, chunk := range []int{1, 7, 4096, bashTailBytes + 1, 1 << 20} {
			t.Run(fmt.Sprintf("%d bytes in chunks of %d", size, chunk), func(t *testing.T) {
				in := data[:size]
				in = in[:bytes.LastIndexByte(in, '\n')+1] // whole lines, so whole runes
				var c capture
				for p := in; len(p) > 0; {
					k := min(chunk, len(p))
					if n, err := c.Write(p[:k]); n != k || err != nil {
						t.Fatalf("Write = %d, %v", n, err)
					}
					p = p[k:]
				}
				got := c.text()
				if size <= bashHeadBytes+bashTailBytes {
					if got != string(in) {
						t.Errorf("output within the cap changed: got %d bytes, want %d", len(got), size)
					}
					return
				}
				head, tail, ok := strings.Cut(got, "[... ")
				if !ok {
					t.Fatal("no marker")
				}
				_, tail, _ = strings.Cut(tail, " bytes omitted ...]\n")
				if !bytes.HasPrefix(in, []byte(head)) || !bytes.HasSuffix(in, []byte(tail)) {
					t.Error("head or tail is not the start or end of the input")
				}
				if !strings.HasSuffix(head, "\n") || !strings.HasPrefix(tail, "line ") || !utf8.ValidString(got) {
					t.Errorf("not cut on line boundaries: …%q [cut] %q…", head[len(head)-20:], tail[:20])
				}
			})
		}
	}
}

func TestCaptureLongLine(t *testing.T) {
	// One line far longer than the cap is cut inside the line, on rune
	// boundaries.
	var c capture
	c.Write([]byte("x" + strings.Repeat("é", 100000)))
	got := c.text()
	if !utf8.ValidString(got) || strings.ContainsRune(got, utf8.RuneError) || !strings.Contains(got, " bytes omitted ...]") {
		t.Errorf("got %.100q", got)
	}
}

func ptr[T any](v T) *T { return &v }

// readPID reads the pid a test command wrote to the file "pid".
func readPID(t *testing.T, env *tools.Env) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(fileContent(t, env, "pid")))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// pollPID waits for a running command to write its pid file.
func pollPID(t *testing.T, env *tools.Env) int {
	t.Helper()
	path := filepath.Join(env.Root, "pid")
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return readPID(t, env)
		}
	}
	t.Fatal("the command never wrote its pid")
	return 0
}

// waitGone fails the test unless process pid ends soon.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !processRunning(pid) {
			return
		}
	}
	t.Errorf("process %d is still running", pid)
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// waitNoSleep fails the test unless every `sleep tag` ends soon.
func waitNoSleep(t *testing.T, tag string) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if len(sandboxtest.Running("sleep", tag)) == 0 {
			return
		}
	}
	t.Errorf("sleep %s is still running", tag)
	for _, pid := range sandboxtest.Running("sleep", tag) {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

// pollFile waits for a running command to create path.
func pollFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("the command never created %s", path)
}

// processRunning reports whether pid is a live process. A zombie counts as
// gone: it has exited, and where PID 1 does not reap orphans (containers)
// it stays in the process table.
func processRunning(pid int) bool {
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil || runtime.GOOS == "linux" {
		// The state follows the parenthesised command name.
		i := bytes.LastIndexByte(stat, ')')
		return err == nil && i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// fakeJail reports output holding "Permission denied" as blocked.
type fakeJail struct{}

func (fakeJail) Explain(output string) (string, string) {
	if !strings.Contains(output, "Permission denied") {
		return "", ""
	}
	return "Sandbox: blocked.", "the shell sandbox may have blocked it: Permission denied"
}

// fakeHost confines nothing: it runs commands for real, unconfined, but
// reports those it was asked to confine as confined — or, when
// unavailable is set, as unconfined with that note, once.
type fakeHost struct {
	tools.ProcessHost
	unavailable string
	told        bool
}

func newFakeHost(t *testing.T, unavailable string) *fakeHost {
	h := &fakeHost{ProcessHost: sandbox.NewHost(nil), unavailable: unavailable}
	t.Cleanup(func() { h.Close() })
	return h
}

func (h *fakeHost) Start(cmd *exec.Cmd, confine bool) (tools.ShellProcess, error) {
	p, err := h.ProcessHost.Start(cmd, false)
	if err != nil {
		return nil, err
	}
	fp := &fakeProcess{ShellProcess: p, confined: confine && h.unavailable == ""}
	if confine && h.unavailable != "" && !h.told {
		h.told = true
		fp.note = h.unavailable
	}
	return fp, nil
}

type fakeProcess struct {
	tools.ShellProcess
	confined bool
	note     string
}

func (p *fakeProcess) Confined() bool { return p.confined }

func (p *fakeProcess) Wait() tools.ExitStatus {
	st := p.ShellProcess.Wait()
	if p.note != "" {
		st.Notes = append([]string{p.note}, st.Notes...)
	}
	return st
}

func TestBashJailNotes(t *testing.T) {
	needBash(t)
	t.Parallel()
	t.Run("unavailable, said once", func(t *testing.T) {
		env := testEnv(t, nil)
		env.Jail = fakeJail{}
		env.Procs = newFakeHost(t, "Note: no sandbox here.")
		first := call(t, env, "bash", map[string]any{"command": "echo hi"})
		second := call(t, env, "bash", map[string]any{"command": "echo hi"})
		if first.Content != "Note: no sandbox here.\n\nhi\nExit code: 0" || second.Content != "hi\nExit code: 0" {
			t.Errorf("got %q then %q", first.Content, second.Content)
		}
	})
	denied := "echo 'x: Permission denied' >&2; exit 1"
	tests := []struct {
		name    string
		command string
		jail    tools.ShellJail
		note    string // the host cannot confine, and says this
		hook    bool   // whether an escalation hook is set
		approve bool
		asked   bool
		want    string
	}{
		{"blocked, no hook", denied, fakeJail{}, "", false, false, false,
			"x: Permission denied\nSandbox: blocked.\nExit code: 1"},
		{"blocked, declined", denied, fakeJail{}, "", true, false, true,
			"x: Permission denied\nSandbox: blocked. " + declinedNote + "\nExit code: 1"},
		{"blocked, approved", `test -e again || { touch again; echo 'x: Permission denied'; exit 1; }; echo second run`, fakeJail{}, "", true, true, true,
			escalatedNote + "\n\nsecond run\nExit code: 0"},
		{"failed for another reason", "echo broken; exit 2", fakeJail{}, "", true, true, false,
			"broken\nExit code: 2"},
		{"succeeded despite the words", "echo 'Permission denied'", fakeJail{}, "", true, true, false,
			"Permission denied\nExit code: 0"},
		{"not confined", denied, fakeJail{}, "Note: none.", true, true, false,
			"Note: none.\n\nx: Permission denied\nExit code: 1"},
		{"no jail", denied, nil, "", true, true, false,
			"x: Permission denied\nExit code: 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t, nil)
			env.Jail = tt.jail
			env.Procs = newFakeHost(t, tt.note)
			var asked bool
			if tt.hook {
				env.EscalateUnconfined = func(_ context.Context, command, reason string) bool {
					asked = true
					if command != tt.command || !strings.Contains(reason, "Permission denied") {
						t.Errorf("asked with %q, %q", command, reason)
					}
					return tt.approve
				}
			}
			res := call(t, env, "bash", map[string]any{"command": tt.command})
			if res.Content != tt.want || asked != tt.asked {
				t.Errorf("got %q (asked %v), want %q (asked %v)", res.Content, asked, tt.want, tt.asked)
			}
		})
	}
	t.Run("timeouts are not the sandbox", func(t *testing.T) {
		env := testEnv(t, nil)
		env.Jail = fakeJail{}
		env.Procs = newFakeHost(t, "")
		env.EscalateUnconfined = func(context.Context, string, string) bool {
			t.Error("asked about a timeout")
			return true
		}
		res := call(t, env, "bash", map[string]any{"command": "echo Permission denied; sleep 30", "timeout_seconds": 1})
		if !strings.HasPrefix(res.Summary, "timed out") || strings.Contains(res.Content, "Sandbox") {
			t.Errorf("got %q", res.Content)
		}
	})
}

func TestBashHidesSecretVariables(t *testing.T) {
	t.Setenv("REASONIX_TEST_SECRET", "sk-do-not-show")
	env := testEnv(t, nil)
	env.HideEnv = []string{"REASONIX_TEST_SECRET"}
	res := call(t, env, "bash", map[string]any{"command": `echo "[${REASONIX_TEST_SECRET:-unset}]"`})
	if !strings.Contains(res.Content, "[unset]") {
		t.Fatalf("the secret reached the command: %s", res.Content)
	}
}

func TestBashRefusesForbiddenReads(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("KEY"), 0o600)
	env := testEnv(t, nil)
	env.Guard = sandbox.New([]string{env.Root}, sandbox.HomeDefaults(home))
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(env.Root, "keys"))
	for _, cmd := range []string{
		"cat ~/.ssh/id_rsa",
		"true && head -c 10 $HOME/.ssh/id_rsa",
		"bash -c 'cat ${HOME}/.ssh/id_rsa'",
		"cat keys/id_rsa",
		"wc < ~/.ssh/id_rsa",
	} {
		res := call(t, env, "bash", map[string]any{"command": cmd})
		if !res.IsError || !strings.Contains(res.Content, "forbid_read protects") || strings.Contains(res.Content, "KEY") {
			t.Errorf("%s: %s", cmd, res.Content)
		}
	}
	if res := call(t, env, "bash", map[string]any{"command": "ls ~ > /dev/null; echo fine"}); res.IsError {
		t.Errorf("listing home refused: %s", res.Content)
	}
}

// savedCall is the read_file call a marker names.
type savedCall struct {
	Path          string
	Offset, Limit int
}

// seqSaved runs `seq 1 n` with an output file and returns the saved
// file, the head and the tail of the result, and the read_file call its
// marker names, which must end with ends.
func seqSaved(t *testing.T, env *tools.Env, n int, ends string) (saved, head, tail string, c savedCall, raw string) {
	t.Helper()
	needBash(t)
	path := filepath.Join(t.TempDir(), "outputs", "call.txt")
	ctx := tools.WithOutputFile(context.Background(), path)
	res, err := lookup(t, "bash").Execute(ctx, env, json.RawMessage(fmt.Sprintf(`{"command": "seq 1 %d"}`, n)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(res.Content, "[... ")
	note, tail, _ := strings.Cut(rest, "\n")
	m := regexp.MustCompile(`read_file (\{.*\}) ` + ends).FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("no read_file call in the marker %q", note)
	}
	json.Unmarshal([]byte(m[1]), &c)
	if c.Path != path {
		t.Fatalf("the marker names %s", m[1])
	}
	return string(b), head, tail, c, m[1]
}

// TestBashSavesLongOutput: with an output file, a long output is saved
// whole, and the marker's read_file call shows exactly the lines left out.
func TestBashSavesLongOutput(t *testing.T) {
	const n = 200000
	env := testEnv(t, nil)
	saved, head, tail, args, raw := seqSaved(t, env, n, "shows them")
	if want := seqOutput(n); saved != want {
		t.Fatalf("saved %d bytes, want %d", len(saved), len(want))
	}
	headLines := strings.Split(strings.TrimSuffix(head, "\n"), "\n")
	lastShown, _ := strconv.Atoi(headLines[len(headLines)-1])
	firstTail, _ := strconv.Atoi(strings.SplitN(tail, "\n", 2)[0])
	if args.Offset != lastShown+1 || args.Offset+args.Limit != firstTail {
		t.Fatalf("read_file %s; the head ends at %d and the tail starts at %d", raw, lastShown, firstTail)
	}
	// The saved file is readable with that call.
	got := call(t, env, "read_file", raw)
	if !strings.HasPrefix(strings.TrimLeft(got.Content, " "), fmt.Sprintf("%d\t%d\n", args.Offset, args.Offset)) {
		t.Fatalf("read_file shows %.60q", got.Content)
	}
}

// TestBashSavesTheEdgesOfAHugeOutput: an output longer than what is
// saved of one output (tools.SavedHeadBytes and SavedTailBytes) is saved
// as its first and last parts, and the marker's read_file call shows the
// saved file's lines between the head and the tail the model was given.
func TestBashSavesTheEdgesOfAHugeOutput(t *testing.T) {
	const n = 4_000_000 // 30.9 MB
	saved, head, tail, args, raw := seqSaved(t, testEnv(t, nil), n, "shows what was kept")
	whole := seqOutput(n)
	if len(saved) > tools.SavedHeadBytes+tools.SavedTailBytes+200 ||
		!strings.HasPrefix(saved, whole[:tools.SavedHeadBytes]) || !strings.HasSuffix(saved, whole[len(whole)-tools.SavedTailBytes:]) {
		t.Fatalf("saved %d bytes of %d, not its edges", len(saved), len(whole))
	}
	tail, _, _ = strings.Cut(tail, "Exit code:")
	if shown := strings.Join(strings.SplitAfter(saved, "\n")[args.Offset-1:args.Offset-1+args.Limit], ""); head+shown+tail != saved {
		t.Fatalf("read_file %s does not show the saved lines between the head and the tail", raw)
	}
}

// TestBashHoldsAHugeOutputInBoundedMemory: a command printing 200 MB is
// read to its end, with what is saved of it and what is held in memory
// bounded by the caps, not by the output.
func TestBashHoldsAHugeOutputInBoundedMemory(t *testing.T) {
	needBash(t)
	env := testEnv(t, nil)
	path := filepath.Join(t.TempDir(), "outputs", "call.txt")
	ctx := tools.WithOutputFile(context.Background(), path)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := lookup(t, "bash").Execute(ctx, env, json.RawMessage(`{"command": "head -c 200000000 /dev/zero | tr '\\0' x; echo; echo end"}`))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, "\nend\n") || !strings.Contains(res.Content, "Exit code: 0") {
		t.Fatalf("the output was not read to its end: %.200q", res.Content[len(res.Content)-200:])
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > tools.SavedHeadBytes+tools.SavedTailBytes+1<<10 {
		t.Errorf("%d bytes saved", fi.Size())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("reading 200 MB of output allocated %d MiB", alloc>>20)
	}
}

func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	return b.String()
}
