package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDemo runs testdata/demo/demo.sh, what `make demo` runs, against the
// binaries TestMain built: its first line names the model it uses, the
// scripted server fixes the module, and a real model it cannot reach (a
// closed local port; the network is never dialled) ends the demo with a
// hint instead of a bare error.
func TestDemo(t *testing.T) {
	// demo.sh finds the binaries in bin/ two levels above itself.
	root := t.TempDir()
	demo := filepath.Join(root, "testdata", "demo")
	if err := os.MkdirAll(demo, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"demo.sh", "fix-failing-test.txtar"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(demo, f), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(binDir, filepath.Join(root, "bin")); err != nil {
		t.Fatal(err)
	}

	// An unreachable DeepSeek: the user config points the built-in
	// provider at a port nothing listens on, with no retries to wait for.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	offline := t.TempDir()
	cfg := `[[providers]]
name        = "deepseek"
kind        = "openai"
base_url    = "http://` + closed + `"
model       = "deepseek-flash"
api_key_env = "DEEPSEEK_API_KEY"
[providers.options]
max_retries = 0
`
	if err := os.WriteFile(filepath.Join(offline, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		env       []string
		firstLine string
		exit      int
		want      string // in the output
	}{{
		name:      "no key",
		firstLine: "== model: the scripted model server (set DEEPSEEK_API_KEY to use DeepSeek)",
		want:      "ok  \texample.com/calc",
	}, {
		name:      "scripted forced",
		env:       []string{"DEEPSEEK_API_KEY=sk-bogus", "REASONIX_DEMO_SCRIPTED=1", "REASONIX_HOME=" + offline},
		firstLine: "== model: the scripted model server (REASONIX_DEMO_SCRIPTED is set)",
		want:      "ok  \texample.com/calc",
	}, {
		name:      "real model offline",
		env:       []string{"DEEPSEEK_API_KEY=sk-bogus", "REASONIX_HOME=" + offline},
		firstLine: "== model: DeepSeek, since DEEPSEEK_API_KEY is set (REASONIX_DEMO_SCRIPTED=1 make demo uses the scripted model server)",
		exit:      1,
		want:      "offline, REASONIX_DEMO_SCRIPTED=1 make demo runs the demo against the scripted model server",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("sh", filepath.Join(demo, "demo.sh"))
			cmd.Env = append(withoutEnv(os.Environ(), "DEEPSEEK_API_KEY", "REASONIX_DEMO_SCRIPTED", "REASONIX_HOME"), tt.env...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			exit := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				exit = ee.ExitCode()
			}
			first, _, _ := strings.Cut(out.String(), "\n")
			if first != tt.firstLine {
				t.Errorf("first line:\n got %q\nwant %q", first, tt.firstLine)
			}
			if exit != tt.exit || !strings.Contains(out.String(), tt.want) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s", exit, tt.exit, tt.want, out.String())
			}
		})
	}
}

// withoutEnv is env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, name)
	})
}
