package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRewindThroughRun: `reasonix run --resume ID "/rewind"` lists the
// session's turns and `"/rewind N"` rewinds it, printing what it did;
// the file the turn's command made is gone.
func TestRewindThroughRun(t *testing.T) {
	_, url := startServer(t, `match make it
call bash {"command": "echo made > made.txt"}
---
match make it
text made
`)
	home, work := t.TempDir(), t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(scriptedConfig(url)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "--approval", "auto", "make it")
	m := regexp.MustCompile(`session (\d{8}-\d{6}-[0-9a-f]{6})`).FindStringSubmatch(r.stderr)
	if r.exit != 0 || m == nil {
		t.Fatalf("first run: %+v", r)
	}
	if r := runReasonix(t, work, home, nil, "run", "--config", cfg, "/rewind"); r.exit != 64 || !strings.Contains(r.stderr, "--resume ID /rewind") {
		t.Errorf("/rewind without --resume: %+v", r)
	}
	made := filepath.Join(work, "made.txt")
	if _, err := os.Stat(made); err != nil {
		t.Fatalf("the command made nothing: %v", err)
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--resume", m[1], "/rewind")
	if r.exit != 0 || !strings.Contains(r.stdout, "1  make it  (1 file: made.txt)") {
		t.Fatalf("/rewind: %+v", r)
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--resume", m[1], "/rewind 1")
	if r.exit != 0 || !strings.Contains(r.stdout, "Rewound to before turn 1: 1 file removed") {
		t.Fatalf("/rewind 1: %+v", r)
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("made.txt after the rewind: %v", err)
	}
	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--resume", m[1], "/rewind 1")
	if r.exit == 0 || !strings.Contains(r.stderr, "no turn 1 to rewind to") {
		t.Errorf("rewinding twice: %+v", r)
	}
}
