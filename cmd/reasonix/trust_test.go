package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunAsksTrustOnce: on a terminal, reasonix run asks whether to trust
// the workspace's MCP server, and tells the answer in a line: the
// question is not printed again after a no, and a yes takes effect.
func TestRunAsksTrustOnce(t *testing.T) {
	for _, tc := range []struct {
		answer, said string
		trusted      bool
	}{
		{"n\n", "Not trusted: it stays off for this run.", false},
		{"y\n", "Trusted: Reasonix uses it here until it changes; reasonix trust --revoke forgets it.", true},
	} {
		t.Run(strings.TrimSpace(tc.answer), func(t *testing.T) {
			dir := realTempDir(t)
			t.Setenv("REASONIX_HOME", realTempDir(t))
			toml := "[[plugins]]\nname = \"example\"\ncommand = \"reasonix-plugin-example\"\n"
			if err := os.WriteFile(filepath.Join(dir, "reasonix.toml"), []byte(toml), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			var errb bytes.Buffer
			ask := &termApprover{in: strings.NewReader(tc.answer), r: newRenderer(&bytes.Buffer{}, &errb, false, false, false)}
			_, cfg, err := loadConfig("", "", &errb, ask)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Workspace.Trusted != tc.trusted {
				t.Errorf("trusted = %v, want %v", cfg.Workspace.Trusted, tc.trusted)
			}
			stderr := errb.String()
			if n := strings.Count(stderr, `MCP server "example"`); n != 1 {
				t.Errorf("the server is named %d times, want once:\n%s", n, stderr)
			}
			// The answer typed is not in the buffer: a terminal echoes it.
			if !strings.Contains(stderr, "Trust it? [y] yes  [n] no: "+tc.said+"\n") {
				t.Errorf("stderr lacks %q after the question:\n%s", tc.said, stderr)
			}
		})
	}
}
