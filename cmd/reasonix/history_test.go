package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryAcrossProcesses: a fact said in one run is found by a later
// process through the history tool; from another workspace only a
// global search finds it, as the zero-hit answer suggests.
func TestHistoryAcrossProcesses(t *testing.T) {
	srv, cfg := startScripted(t, `text Noted: the staging deploy listens on port 4711.
---
expect user which port
call history {"query": "staging deploy port"}
---
expect tool deploy listens on port 4711
text Port 4711, as we found before.
---
expect user which port
call history {"query": "staging deploy port"}
---
expect tool No message in this workspace's saved sessions matches
expect tool scope "global"
call history {"query": "staging deploy port", "scope": "global"}
---
expect tool deploy listens on port 4711
text Port 4711, from another workspace's session.
`)
	home, work, other := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "other")
	if r := runReasonix(t, work, home, nil, "run", "--config", cfg, "remember: the staging deploy port"); r.exit != 0 {
		t.Fatalf("first run: %+v", r)
	}
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "which port does the staging deploy use?")
	if r.exit != 0 || !strings.Contains(r.stdout, "Port 4711, as we found before.") {
		t.Fatalf("second run: %+v", r)
	}
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	r = runReasonix(t, other, home, nil, "run", "--config", cfg, "which port does the staging deploy use?")
	if r.exit != 0 || !strings.Contains(r.stdout, "from another workspace's session") {
		t.Fatalf("run in another workspace: %+v", r)
	}
	if n := srv.Remaining(); n != 0 {
		t.Fatalf("%d scripted steps were never requested", n)
	}
}
