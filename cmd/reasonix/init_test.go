package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunInit: `reasonix run /init` drafts AGENTS.md without the model;
// with no terminal to ask, the write is refused as any unasked write is
// (exit 1, the draft on stdout), and --approval auto writes it.
func TestRunInit(t *testing.T) {
	srv, cfg := startScripted(t, "text never asked\n")
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, work, map[string]string{
		"go.mod":   "module example.com/calc\n\ngo 1.22\n",
		"calc.go":  "// Package calc adds.\npackage calc\n\ntype Calc struct{}\n",
		"Makefile": "build:\n\tgo build ./...\ntest:\n\tgo test ./...\n",
	})
	agents := filepath.Join(work, "AGENTS.md")

	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "/init")
	if r.exit != exitError || !strings.Contains(r.stderr, "/init: AGENTS.md was not written") ||
		!strings.Contains(r.stdout, "- Makefile targets: `make build`, `make test`") {
		t.Fatalf("refused: exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	if _, err := os.Stat(agents); !os.IsNotExist(err) {
		t.Fatalf("AGENTS.md after a refusal: %v", err)
	}

	r = runReasonix(t, work, home, nil, "run", "--config", cfg, "--approval", "auto", "/init")
	if r.exit != 0 || !strings.Contains(r.stdout, "Wrote AGENTS.md: Build and test, Go packages.") {
		t.Fatalf("auto: exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(agents)
	if err != nil || !strings.Contains(string(got), "- `.` (package calc): Package calc adds. Types: Calc.") {
		t.Errorf("AGENTS.md: %v\n%s", err, got)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}
