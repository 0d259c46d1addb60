package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/graph"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// reasonixBin is the binary under test, built once by TestMain, beside
// the reference MCP plugin (binDir is on the PATH of the runs).
var reasonixBin, binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "reasonix-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	reasonixBin = filepath.Join(dir, "reasonix")
	if runtime.GOOS == "windows" {
		reasonixBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", dir, ".", "../reasonix-plugin-example", "../scripted-model")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building reasonix:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run is one execution of the real binary.
type run struct {
	stdout, stderr string
	exit           int
}

// runReasonix runs the binary in dir with an isolated REASONIX_HOME.
func runReasonix(t *testing.T, dir, home string, env []string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	return execute(t, reasonixCmd(ctx, dir, home, env, args...))
}

// reasonixCmd is the command runReasonix runs.
func reasonixCmd(ctx context.Context, dir, home string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, reasonixBin, args...)
	cmd.Dir = dir
	// Plugins are found by name: the reference plugin and the npm MCP
	// servers are on the PATH.
	path := strings.Join([]string{binDir, mcptest.BinDir(), os.Getenv("PATH")}, string(os.PathListSeparator))
	cmd.Env = append(os.Environ(), "REASONIX_HOME="+home, "DEEPSEEK_API_KEY=", "PATH="+path)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// execute runs cmd, a command of the binary, and returns what it wrote
// and its exit code.
func execute(t *testing.T, cmd *exec.Cmd) run {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := run{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("running reasonix: %v", err)
	}
	return r
}

// trustWorkspace trusts what the workspace dir's own files bring, with
// reasonix trust --yes in the Reasonix directory home, as a user who
// wrote them would.
func trustWorkspace(t *testing.T, dir, home string) {
	t.Helper()
	if r := runReasonix(t, dir, home, nil, "trust", "--yes", dir); r.exit != 0 {
		t.Fatalf("reasonix trust --yes: exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
}

// scriptedConfig returns config TOML that points the default model at a
// scripted server.
func scriptedConfig(url string) string {
	return fmt.Sprintf(`default_model = "scripted"

[[providers]]
name     = "scripted"
kind     = "openai"
base_url = %q
model    = "deepseek-flash"
options  = { retry_base_ms = 10, max_retries = 5 }
`, url)
}

// startServer serves a script on a fresh scripted server for the test's
// lifetime and returns it with its URL.
func startServer(t *testing.T, text string) (*scripted.Server, string) {
	t.Helper()
	sc, err := scripted.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.NewServer(sc, scripted.Options{})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, url
}

// startScripted serves script on a fresh scripted server for the test's
// lifetime and returns it with a config file that points the default
// model at it.
func startScripted(t *testing.T, script string) (*scripted.Server, string) {
	t.Helper()
	srv, url := startServer(t, script)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(scriptedConfig(url)), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv, cfg
}

// requireProgram skips the test when a language server or MCP server it
// needs is not installed, or fails it under REASONIX_REQUIRE_PEERS=1 (make
// test installs them).
func requireProgram(t *testing.T, prog string) {
	t.Helper()
	if strings.HasPrefix(prog, "mcp-server-") {
		mcptest.Require(t, prog)
		return
	}
	if _, err := graph.LookPath(prog); err != nil {
		if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
			t.Fatalf("%v; REASONIX_REQUIRE_PEERS=1 requires it (make peers installs it)", err)
		}
		t.Skipf("%v (make peers installs it)", err)
	}
}

// TestTranscripts plays every scenario in testdata through the real
// binary against the scripted model server and checks the workspace
// afterwards. The server refuses any request whose expectations fail, so
// each step also proves the previous tool results reached the model.
func TestTranscripts(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/transcripts/*.txtar")
	files = append(files, "../../testdata/demo/fix-failing-test.txtar")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scripted.LoadScenario(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, prog := range sc.Needs {
				requireProgram(t, prog)
			}
			// {{EVERYTHING_HTTP}} in the config or the files is the URL of
			// a server-everything serving streamable HTTP for this test.
			if strings.Contains(sc.Config, "{{EVERYTHING_HTTP}}") || slices.ContainsFunc(slices.Collect(maps.Values(sc.Files)), func(s string) bool { return strings.Contains(s, "{{EVERYTHING_HTTP}}") }) {
				base, _ := mcptest.ServeEverything(t, "streamableHttp")
				sc.Config = strings.ReplaceAll(sc.Config, "{{EVERYTHING_HTTP}}", base+"/mcp")
				for name, body := range sc.Files {
					sc.Files[name] = strings.ReplaceAll(body, "{{EVERYTHING_HTTP}}", base+"/mcp")
				}
			}
			work := t.TempDir()
			if err := sc.WriteFiles(work); err != nil {
				t.Fatal(err)
			}
			srv := scripted.NewServer(sc.Script, scripted.Options{})
			url, err := srv.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cfg := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(cfg, []byte(scriptedConfig(url)+"\n"+strings.ReplaceAll(sc.Config, "{{URL}}", url)), 0o644); err != nil {
				t.Fatal(err)
			}

			// The scenario's own files are the user's: trusted.
			home := t.TempDir()
			trustWorkspace(t, work, home)
			args := append([]string{"run", "--config", cfg}, sc.Flags...)
			r := runReasonix(t, work, home, nil, append(args, sc.Prompt)...)
			if r.exit != sc.Exit {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.exit, sc.Exit, r.stdout, r.stderr)
			}
			if n := srv.Remaining(); n != 0 {
				t.Errorf("%d scripted steps were never requested\nstderr:\n%s", n, r.stderr)
			}
			for _, want := range sc.Stdout {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
				}
			}
			for _, bad := range sc.StdoutAbsent {
				if strings.Contains(r.stdout, bad) {
					t.Errorf("stdout has %q:\n%s", bad, r.stdout)
				}
			}
			for _, want := range sc.Stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			for name, want := range sc.Want {
				got, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(name)))
				if err != nil {
					t.Errorf("want %s: %v", name, err)
				} else if string(got) != want {
					t.Errorf("%s:\n%s\nwant:\n%s", name, got, want)
				}
			}
			for _, name := range sc.Gone {
				if _, err := os.Stat(filepath.Join(work, filepath.FromSlash(name))); err == nil {
					t.Errorf("%s still exists", name)
				}
			}
			if sc.Check != "" {
				cmd := exec.CommandContext(t.Context(), "sh", "-c", sc.Check)
				cmd.Dir = work
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("check %q failed: %v\n%s", sc.Check, err, out)
				}
			}
		})
	}
}
