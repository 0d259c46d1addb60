//go:build unix

package lsp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// The editor tests drive the real `reasonix lsp` binary with real LSP
// clients: Neovim's built-in client, Emacs's eglot and lsp-mode, and
// vscode-languageserver-protocol (the library VS Code's client is built
// on), each against the scripted model server. Each client's program lives
// in testdata/clients beside the scenario it plays.
//
// A client that is not installed skips its test, unless
// REASONIX_REQUIRE_PEERS=1 (which `make test` sets after `make peers` has
// installed them all): then a missing client fails it.

// clientTimeout bounds one client's whole run: start, quick fix, the
// agent's turn (including its `go test`), and shutdown.
const clientTimeout = 60 * time.Second

// clientsDir holds the client programs and their scenarios.
var clientsDir = filepath.Join("testdata", "clients")

// A clientScenario is one txtar archive in testdata/clients:
//
//	-- diagnostic/<path> -- the diagnostic (LSP JSON) the client reports for
//	                        <path>, the file it opens, as gopls would
//	-- model --             the script the model server plays
//	-- files/<path> --      the Go module before the run
//	-- want/<path> --       files that must have exactly this content after
type clientScenario struct {
	script     *scripted.Script
	file       string // the file the client opens
	diagnostic string
	files      map[string]string
	want       map[string]string
}

// readClientArchive reads an archive of testdata/clients and the model
// script it holds.
func readClientArchive(t *testing.T, name string) (*scripted.Script, *txtar.Archive) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(clientsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	script, err := scripted.ParseArchive(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return script, txtar.Parse(data)
}

func loadClientScenario(t *testing.T, name string) *clientScenario {
	t.Helper()
	script, ar := readClientArchive(t, name)
	sc := &clientScenario{script: script, files: map[string]string{}, want: map[string]string{}}
	for _, f := range ar.Files {
		switch dir, rest, _ := strings.Cut(f.Name, "/"); dir {
		case "model":
		case "diagnostic":
			sc.file, sc.diagnostic = rest, string(f.Data)
		case "files":
			sc.files[rest] = string(f.Data)
		case "want":
			sc.want[rest] = string(f.Data)
		default:
			t.Fatalf("%s: unknown section %q", name, f.Name)
		}
	}
	if sc.file == "" || len(sc.want) == 0 {
		t.Fatalf("%s: needs a diagnostic/<path> and a want/<path> section", name)
	}
	return sc
}

// requirePeer skips the test when a client is missing, or fails it when
// REASONIX_REQUIRE_PEERS=1.
func requirePeer(t *testing.T, what string, check func() error) {
	t.Helper()
	err := check()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("%s is not installed (%v); `make peers` installs it", what, err)
	if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
		t.Fatal(msg + ", and REASONIX_REQUIRE_PEERS=1 requires it")
	}
	t.Skip(msg)
}

// requireNodeClient skips (or fails) the test without Node and the
// client library in testdata/clients/node.
func requireNodeClient(t *testing.T) {
	t.Helper()
	requirePeer(t, "Node and vscode-languageserver-protocol", func() error {
		if err := runs("node", "--version")(); err != nil {
			return err
		}
		_, err := os.Stat(filepath.Join(clientsDir, "node", "node_modules", "vscode-languageserver-protocol", "package.json"))
		return err
	})
}

func runs(name string, args ...string) func() error {
	return func() error {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err == nil {
			return nil
		}
		err = fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		if out = bytes.TrimSpace(out); len(out) > 0 {
			lines := bytes.Split(out, []byte("\n"))
			err = fmt.Errorf("%w: %s", err, lines[len(lines)-1])
		}
		return err
	}
}

// TestEditorClients runs the quick-fix flow in each real client: open a
// file with a failing test, ask for code actions on the diagnostic,
// execute "Ask Reasonix to fix", allow the edit and the command, and wait
// for the fix to arrive in the buffer as a workspace edit; the client then
// saves and exits. The fixed module must pass `go test`, and the model
// must have been asked every scripted step (its expectations prove the
// tool results reached it).
func TestEditorClients(t *testing.T) {
	if testing.Short() {
		t.Skip("the editor tests build the binary and run real editors")
	}
	reasonix := buildReasonix(t)

	t.Run("neovim", func(t *testing.T) {
		for _, nv := range neovims() {
			t.Run(nv.name, func(t *testing.T) {
				requirePeer(t, "Neovim "+nv.name, runs(nv.path, "--version"))
				playClient(t, reasonix(t), "neovim.txtar",
					nv.path, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile neovim.lua")
			})
		}
	})
	t.Run("eglot", func(t *testing.T) {
		requireEglot(t)
		// Not -Q: Debian's elpa-eglot is on the load path through the
		// site start files. --batch still skips the user's init file.
		playClient(t, reasonix(t), "eglot.txtar", "emacs", "--batch", "-l", "eglot.el")
	})
	t.Run("node", func(t *testing.T) {
		requireNodeClient(t)
		playClient(t, reasonix(t), "node.txtar", "node", filepath.Join("node", "client.js"))
	})
	t.Run("lsp-mode", func(t *testing.T) {
		requireLSPMode(t)
		playClient(t, reasonix(t), "lsp-mode.txtar", "emacs", "--batch", "-l", "lsp-mode.el")
	})
}

// requireEglot skips (or fails) the test without Emacs's eglot
// (Debian's elpa-eglot, on the load path through the site start files).
func requireEglot(t *testing.T) {
	t.Helper()
	requirePeer(t, "Emacs with eglot", runs("emacs", "--batch", "--eval", "(require 'eglot)"))
}

// requireLSPMode skips (or fails) the test without Emacs's lsp-mode
// (Debian's elpa-lsp-mode, on the load path through the site start
// files, as for eglot).
func requireLSPMode(t *testing.T) {
	t.Helper()
	requirePeer(t, "Emacs with lsp-mode", runs("emacs", "--batch", "--eval", "(require 'lsp-mode)"))
}

// buildReasonix returns a function that builds cmd/reasonix, as `make
// build` does, the first time a client needs it, for all of them.
func buildReasonix(parent *testing.T) func(t *testing.T) string {
	bin := filepath.Join(parent.TempDir(), "reasonix")
	var (
		once sync.Once
		err  error
	)
	return func(t *testing.T) string {
		t.Helper()
		once.Do(func() {
			cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/reasonix/reasonix/cmd/reasonix")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, buildErr := cmd.CombinedOutput(); buildErr != nil {
				err = fmt.Errorf("go build: %v\n%s", buildErr, out)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return bin
	}
}

// lockedBuffer collects output written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) Logf(format string, args ...any) {
	fmt.Fprintf(l, format+"\n", args...)
}

// playClient runs one client program (argv, run in testdata/clients) on
// the scenario's workspace and checks what it left behind.
func playClient(t *testing.T, bin, scenario string, argv ...string) {
	sc := loadClientScenario(t, scenario)
	run := startClientRun(t, bin, sc.script, sc.files)
	run.play(t, []string{
		"REASONIX_TEST_FILE=" + filepath.Join(run.root, filepath.FromSlash(sc.file)),
		"REASONIX_TEST_DIAGNOSTIC=" + sc.diagnostic,
		"REASONIX_TEST_WANT=" + sc.want[sc.file],
	}, argv...)
	run.checkAfter(t, sc.want, "")
}

// checkAfter checks what a client run left: the files of want with
// exactly that content, `go test` in the module passing (fails == "") or
// failing with fails in its output, and every scripted model step asked
// for.
func (run *clientRun) checkAfter(t *testing.T, want map[string]string, fails string) {
	t.Helper()
	for name, body := range want {
		got, err := os.ReadFile(filepath.Join(run.root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != body {
			t.Errorf("%s on disk:\n%s\nwant:\n%s", name, got, body)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	gotest := exec.CommandContext(ctx, "go", "test", "-count=1", "./...")
	gotest.Dir = run.root
	gotest.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	out, err := gotest.CombinedOutput()
	switch {
	case fails == "" && err != nil:
		t.Errorf("go test in the fixed module: %v\n%s", err, out)
	case fails != "" && (err == nil || !strings.Contains(string(out), fails)):
		t.Errorf("go test in the module: %v, without %q:\n%s", err, fails, out)
	}
	if n := run.srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were never asked for", n)
	}
}

// A clientRun is a workspace, a scripted model server and a wrapper that
// starts `reasonix lsp` with its log kept, for one client program.
type clientRun struct {
	root string
	// home is REASONIX_HOME for every server the client starts.
	home      string
	wrapper   string
	serverLog string
	srv       *scripted.Server
	modelLog  *lockedBuffer
}

// startClientRun writes files (and a reasonix.toml pointing at a server
// playing script) into a fresh workspace, trusted as the user's own.
func startClientRun(t *testing.T, bin string, script *scripted.Script, files map[string]string) *clientRun {
	return startClientRunWith(t, bin, script, files, clientRunOptions{})
}

// clientRunOptions change how startClientRunWith sets up a run.
type clientRunOptions struct {
	// untrusted puts the scripted model in the user's configuration
	// (REASONIX_HOME/config.toml) instead of the workspace's
	// reasonix.toml, and leaves the workspace untrusted: what its own
	// files bring stays off until the client trusts it.
	untrusted bool
	// keyVar, when set, is the environment variable the scripted model's
	// API key is read from.
	keyVar string
}

// startClientRunWith is startClientRun with opts.
func startClientRunWith(t *testing.T, bin string, script *scripted.Script, files map[string]string, opts clientRunOptions) *clientRun {
	run := &clientRun{modelLog: &lockedBuffer{}}
	run.srv = scripted.NewServer(script, scripted.Options{Logf: run.modelLog.Logf})
	url, err := run.srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.srv.Close() })

	// The real path: editors and the server report resolved paths, and a
	// symlinked temp dir would make them differ from ours.
	run.root, err = filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	model := fmt.Sprintf(`default_model = "scripted"
review = "apply"
[[providers]]
name = "scripted"
base_url = %q
model = "deepseek-flash"
options = { retry_base_ms = 10 }
`, url)
	if opts.keyVar != "" {
		model += fmt.Sprintf("api_key_env = %q\n", opts.keyVar)
	}
	all := map[string]string{"reasonix.toml": model}
	if opts.untrusted {
		all = map[string]string{}
	}
	for name, body := range files {
		all[name] = body
	}
	for name, body := range all {
		p := filepath.Join(run.root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The clients start the server through a wrapper that keeps its log
	// (stderr) in a file of ours, since each editor hides it differently.
	aux := t.TempDir()
	run.home = filepath.Join(aux, "home")
	if opts.untrusted {
		if err := os.MkdirAll(run.home, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run.home, "config.toml"), []byte(model), 0o600); err != nil {
			t.Fatal(err)
		}
	} else {
		// The workspace's configuration is the user's.
		run.trust(t, bin)
	}
	run.serverLog = filepath.Join(aux, "server.log")
	run.wrapper = filepath.Join(aux, "reasonix-lsp")
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %q lsp \"$@\" 2>>%q\n", bin, run.serverLog)
	if err := os.WriteFile(run.wrapper, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return run
}

// trust trusts the run's workspace configuration as the user's own, as a
// user does with reasonix trust.
func (run *clientRun) trust(t *testing.T, bin string) {
	t.Helper()
	cmd := exec.Command(bin, "trust", "--yes", run.root)
	cmd.Env = append(os.Environ(), "REASONIX_HOME="+run.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reasonix trust: %v\n%s", err, out)
	}
}

// play runs the client program argv in testdata/clients, with env added
// to the environment the client scripts share, and fails the test unless
// it exits 0 in time.
func (run *clientRun) play(t *testing.T, env []string, argv ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	var out lockedBuffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = clientsDir
	cmd.Env = append(os.Environ(),
		"REASONIX_HOME="+run.home,
		"DEEPSEEK_API_KEY=",
		"REASONIX_LSP="+run.wrapper,
		"REASONIX_TEST_ROOT="+run.root,
	)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = &out, &out
	// The client, the server and the agent's shell commands form one
	// process group, killed whole on a timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second

	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		serverOut, _ := os.ReadFile(run.serverLog)
		t.Logf("server log:\n%s", serverOut)
		t.Logf("model requests:\n%s", run.modelLog.String())
		for _, r := range run.srv.Requests() {
			if r.Error != "" {
				t.Logf("model request #%d (step %d): %s", r.Seq, r.Step, r.Error)
			}
		}
	})

	start := time.Now()
	err := cmd.Run()
	t.Logf("%s ran %.1fs; its output:\n%s", argv[0], time.Since(start).Seconds(), out.String())
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v", argv[0], clientTimeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("%s exited with %v", argv[0], exit)
	}
	if err != nil {
		t.Fatal(err)
	}
}
