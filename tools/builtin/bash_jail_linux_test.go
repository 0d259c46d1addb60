package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
	"github.com/reasonix/reasonix/tools/sandbox/sandboxtest"
)

// The tests here run real commands through the bash tool inside the
// Landlock jail. The jail re-executes this test binary, which links
// tools/sandbox and so confines itself and execs the shell.

const sandboxNote = "Sandbox: this command ran in Reasonix's shell sandbox"

// jailEnv returns a test Env whose commands run in a jail with the given
// write roots (besides the workspace) and forbidden paths, and no scratch
// directories: t.TempDir is below /tmp, which would otherwise be writable.
func jailEnv(t *testing.T, network bool, writeRoots, forbid []string) *tools.Env {
	t.Helper()
	return jailEnvAt(t, testEnv(t, nil), network, forbid, writeRoots...)
}

// jailEnvAt confines env's commands as jailEnv does.
func jailEnvAt(t *testing.T, env *tools.Env, network bool, forbid []string, writeRoots ...string) *tools.Env {
	t.Helper()
	needBash(t)
	if err := sandbox.Available(); err != nil {
		t.Skipf("the shell sandbox is unavailable here: %v", err)
	}
	policy := sandbox.New(append([]string{env.Root}, writeRoots...), forbid)
	env.Guard = policy
	env.Jail = &sandbox.Jail{Policy: policy, Network: network}
	return env
}

// wantBlocked checks that a command failed because the jail refused it,
// and that the result says the sandbox may be why.
func wantBlocked(t *testing.T, res tools.Result) {
	t.Helper()
	if !res.IsError || !strings.Contains(res.Content, "Permission denied") || !strings.Contains(res.Content, sandboxNote) {
		t.Errorf("not blocked, or no sandbox note: %q", res.Content)
	}
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestBashJail(t *testing.T) {
	t.Parallel()
	outside := realDir(t)
	private := realDir(t)
	for name, content := range map[string]string{"secret/key": "hunter2", "public/notes": "hello"} {
		p := filepath.Join(private, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := jailEnv(t, false, nil, []string{filepath.Join(private, "secret")})
	tests := []struct {
		name, command string
		want          string // a prefix of the result
		blocked       bool
	}{
		{"write inside the workspace", "echo hi > f.txt && cat f.txt", "hi\nExit code: 0", false},
		{"write outside the write roots", "echo hi > " + outside + "/f.txt", "", true},
		{"write under /etc", "touch /etc/reasonix-jail-test", "", true},
		// The path is built at run time, so only the jail can stop it
		// (a plain path is refused before running: bash_test.go).
		{"read a forbidden file", "cat $(echo " + private + ")/secret/key", "", true},
		{"read next to it", "cat " + private + "/public/notes", "hello\nExit code: 0", false},
		{"escape through a nested shell", `bash -c 'bash -c "echo x > ` + outside + `/nested"'`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, env, "bash", map[string]any{"command": tt.command})
			if tt.blocked {
				wantBlocked(t, res)
				return
			}
			if res.IsError || !strings.HasPrefix(res.Content, tt.want) {
				t.Errorf("got %q, want %q", res.Content, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("a confined command wrote outside the write roots: %v", entries)
	}
}

func TestBashJailNoteNamesForbidReadAndNetwork(t *testing.T) {
	t.Parallel()
	env := jailEnv(t, false, nil, []string{"/no/such/secret"})
	res := call(t, env, "bash", map[string]any{"command": "touch /etc/reasonix-jail-test"})
	for _, want := range []string{env.Root, "/no/such/secret", "network access", "allow_write", "network = true", `bash = "off"`} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("the note lacks %q: %q", want, res.Content)
		}
	}
	if !strings.HasSuffix(res.Content, "\nExit code: 1") {
		t.Errorf("the exit line is not last: %q", res.Content)
	}
}

func TestBashJailOff(t *testing.T) {
	// [sandbox] bash = "off" leaves Env.Jail nil.
	t.Parallel()
	env := jailEnv(t, false, nil, nil)
	env.Jail = nil
	outside := realDir(t)
	res := call(t, env, "bash", map[string]any{"command": "echo hi > " + outside + "/f.txt"})
	if res.IsError {
		t.Fatalf("unconfined write failed: %q", res.Content)
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); err != nil {
		t.Error(err)
	}
}

func TestBashJailNetwork(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	clients := map[string]string{
		"bash":   fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port),
		"python": fmt.Sprintf(`python3 -c 'import socket; socket.create_connection(("127.0.0.1", %d)); print("connected")'`, port),
	}
	for client, command := range clients {
		for _, network := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s network=%v", client, network), func(t *testing.T) {
				if client == "python" {
					needPython(t)
				}
				env := jailEnv(t, network, nil, nil)
				res := call(t, env, "bash", map[string]any{"command": command})
				if network && (res.IsError || !strings.HasPrefix(res.Content, "connected\n")) {
					t.Errorf("connect failed with the network allowed: %q", res.Content)
				}
				if !network && (!res.IsError || !strings.Contains(res.Content, "network access")) {
					t.Errorf("connect not refused, or no note, with the network off: %q", res.Content)
				}
			})
		}
	}
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not in PATH")
	}
}

func TestBashJailGoToolchain(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH")
	}
	// The jail as Reasonix builds it: the default secrets forbidden, so
	// the home directory is split around them, the temp directories
	// writable, and the machine's own toolchain caches, warm, written
	// through private layers that last the session.
	home, _ := os.UserHomeDir()
	env := jailEnv(t, false, nil, sandbox.HomeDefaults(home))
	j := sandbox.NewJail(env.Guard.(*sandbox.Policy), false)
	j.Layers = filepath.Join(realDir(t), "layers")
	env.Jail = j
	host := sandbox.NewHost(j)
	env.Procs = host
	t.Cleanup(func() { host.Close() })
	// A module with a dependency already in the module cache: this
	// repository's own, at its version.
	goLine, dep, sums := repoDependency(t, "golang.org/x/sys")
	files := map[string]string{
		"go.mod":      "module tiny\n\n" + goLine + "\n\nrequire " + dep + "\n",
		"go.sum":      sums,
		"main.go":     "package main\n\nimport \"golang.org/x/sys/unix\"\n\nfunc main() { println(add(1, unix.Getpagesize()/unix.Getpagesize())) }\n\nfunc add(a, b int) int { return a + b }\n",
		"add_test.go": "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(env.Root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, command := range []string{
		"go version && go env GOCACHE",
		// Nothing to download: the dependency comes from the cache.
		"GOPROXY=off GOFLAGS=-mod=readonly go build -o tiny . && ./tiny",
		"GOPROXY=off GOFLAGS=-mod=readonly go vet . && GOPROXY=off go test -count=1 .",
		"ls ~ > /dev/null", // listable though it holds forbidden paths
	} {
		res := call(t, env, "bash", map[string]any{"command": command, "timeout_seconds": 120})
		if res.IsError {
			t.Errorf("%s: %s", command, res.Content)
		}
	}
}

// repoDependency returns this repository's go directive, its requirement
// of module as go.mod has it ("path version"), and its lines of go.sum.
func repoDependency(t *testing.T, module string) (goLine, require, sums string) {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join("..", "..", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		switch f := strings.Fields(line); {
		case len(f) == 2 && f[0] == "go":
			goLine = line
		case len(f) >= 2 && f[0] == module:
			require = f[0] + " " + f[1]
		}
	}
	for _, line := range strings.Split(string(sum), "\n") {
		if strings.HasPrefix(line, require+" ") || strings.HasPrefix(line, require+"/go.mod ") {
			sums += line + "\n"
		}
	}
	if goLine == "" || require == "" || sums == "" {
		t.Fatalf("%s is not in go.mod and go.sum", module)
	}
	return goLine, require, sums
}

func TestBashJailEscalation(t *testing.T) {
	t.Parallel()
	for _, approve := range []bool{false, true} {
		t.Run(fmt.Sprintf("approve=%v", approve), func(t *testing.T) {
			env := jailEnv(t, false, nil, nil)
			outside := realDir(t)
			command := "echo hi > " + outside + "/f.txt"
			var reason string
			env.EscalateUnconfined = func(_ context.Context, c, r string) bool {
				if c != command {
					t.Errorf("asked about %q", c)
				}
				reason = r
				return approve
			}
			res := call(t, env, "bash", map[string]any{"command": command})
			if !strings.Contains(reason, "Permission denied") {
				t.Errorf("reason %q", reason)
			}
			_, statErr := os.Stat(filepath.Join(outside, "f.txt"))
			if approve {
				if res.IsError || !strings.HasPrefix(res.Content, escalatedNote) || statErr != nil {
					t.Errorf("the approved re-run failed: %q, %v", res.Content, statErr)
				}
				return
			}
			if !res.IsError || !strings.Contains(res.Content, sandboxNote) || !strings.Contains(res.Content, declinedNote) || statErr == nil {
				t.Errorf("declined: %q, %v", res.Content, statErr)
			}
		})
	}
}

func TestBashJailKillsProcessGroup(t *testing.T) {
	t.Parallel()
	// A confined command may live in a PID namespace of its own, where
	// $! means nothing outside: its processes are found by a unique
	// argument instead.
	command := func(tag string) string {
		return "sleep " + tag + " & touch started; sleep " + tag
	}
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		env := jailEnv(t, false, nil, nil)
		tag := sandboxtest.Tag()
		res := call(t, env, "bash", map[string]any{"command": command(tag), "timeout_seconds": 1})
		if !strings.HasPrefix(res.Summary, "timed out") || strings.Contains(res.Content, sandboxNote) {
			t.Fatalf("got %q, want a timeout", res.Content)
		}
		waitNoSleep(t, tag)
	})
	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		env := jailEnv(t, false, nil, nil)
		tag := sandboxtest.Tag()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := lookup(t, "bash").Execute(ctx, env, json.RawMessage(`{"command": `+strconv.Quote(command(tag))+`}`))
			done <- err
		}()
		pollFile(t, filepath.Join(env.Root, "started"))
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want context.Canceled", err)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("Execute did not return after cancellation")
		}
		waitNoSleep(t, tag)
	})
}

// A server started in the background with its output redirected does not
// hold the command's output open: the supervisor that outlives the shell
// keeps none of it.
func TestBashJailBackgroundServer(t *testing.T) {
	t.Parallel()
	env := jailEnv(t, false, nil, nil)
	host := sandbox.NewHost(env.Jail.(*sandbox.Jail))
	t.Cleanup(func() { host.Close() })
	env.Procs = host
	tag := sandboxtest.Tag()
	res := call(t, env, "bash", map[string]any{"command": "sleep " + tag + " >/dev/null 2>&1 & echo started"})
	if res.IsError || !strings.HasPrefix(res.Content, "started\n") || strings.Contains(res.Content, "Output collection stopped") {
		t.Fatalf("got %q", res.Content)
	}
	// It may not have become sleep yet.
	for deadline := time.Now().Add(3 * time.Second); len(sandboxtest.Running("sleep", tag)) != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the background process is not running")
		}
	}
	if !host.Running() {
		t.Error("the host says nothing runs")
	}
	host.Close()
	waitNoSleep(t, tag)
}

// A workspace that holds a forbidden directory: what a command creates
// beside it while it runs (a build's output directory) is usable by that
// same command, and the forbidden directory stays refused.
func TestBashJailForbiddenInWorkspace(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	keys := filepath.Join(env.Root, "keys")
	if err := os.Mkdir(keys, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(keys, "prod.pem"), []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	env = jailEnvAt(t, env, false, []string{keys})
	res := call(t, env, "bash", map[string]any{"command": "mkdir -p build/out && echo made > build/out/f && cat build/out/f && echo top > top.txt && cat top.txt"})
	if res.IsError || !strings.HasPrefix(res.Content, "made\ntop\nExit code: 0") {
		t.Errorf("beside the forbidden directory: %q", res.Content)
	}
	res = call(t, env, "bash", map[string]any{"command": "cat $(echo ke)ys/prod.pem"})
	wantBlocked(t, res)
	if strings.Contains(res.Content, "hunter2") {
		t.Errorf("the secret leaked: %q", res.Content)
	}
}
