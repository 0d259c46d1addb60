package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnattendedPostures runs the real binary with no terminal, so no one
// can be asked: what would have been asked is refused unless the posture
// allows it, and stderr says what was refused and how to allow it.
func TestUnattendedPostures(t *testing.T) {
	const (
		write       = `call write_file {"path": "a.txt", "content": "new\n"}`
		touch       = `call bash {"command": "touch ran.txt"}`
		unparseable = `call bash {"command": "touch ran.txt )"}`
		ok          = "expect tool Overwrote a.txt"
		ranOK       = "expect tool Exit code: 0"
		nobody      = "expect tool no one is available to approve"
	)
	tests := []struct {
		name    string
		flags   []string
		project string // reasonix.toml
		script  []string
		written bool // a.txt holds the new content
		ran     bool // the command ran
		exit    int
		stderr  []string
		absent  []string
		// brief is a refusal reported without the how-to, given once
		brief string
	}{{
		name:   "default posture refuses",
		script: []string{write, nobody + "\n" + touch, nobody},
		stderr: []string{`refused write_file "a.txt"`, "--approval auto", "Edit(a.txt)", `refused bash "touch ran.txt"`, "Bash(touch:*)", `allow = ["Edit(a.txt)", "Bash(touch:*)"]`},
		absent: []string{"run without asking"},
		brief:  `refused bash "touch ran.txt"`,
	}, {
		name:    "auto allows what the mode asks",
		flags:   []string{"--approval", "auto"},
		script:  []string{write, ok + "\n" + touch, ranOK},
		written: true, ran: true,
		absent: []string{"refused"},
	}, {
		name:    "auto leaves ask rules to a person",
		flags:   []string{"--approval", "auto"},
		project: "[permissions]\nask = [\"Bash(touch:*)\"]\n",
		script:  []string{write, ok + "\n" + touch, nobody},
		written: true,
		stderr:  []string{`refused bash "touch ran.txt"`, `ask rule "Bash(touch:*)"`, "--approval yolo"},
	}, {
		name:    "the flag overrides the config",
		flags:   []string{"--approval", "auto"},
		project: "[permissions]\napproval = \"ask\"\n",
		script:  []string{write, ok + "\n" + touch, ranOK},
		written: true, ran: true,
	}, {
		name:    "yolo allows all but denied calls",
		flags:   []string{"--approval", "yolo"},
		project: "[permissions]\nask = [\"Bash(touch:*)\"]\ndeny = [\"Edit(a.txt)\"]\n",
		script:  []string{write, `expect tool denied by the rule "Edit(a.txt)"` + "\n" + touch, ranOK},
		ran:     true,
		absent:  []string{"refused"},
	}, {
		name:   "yolo refuses what does not parse",
		flags:  []string{"--approval", "yolo"},
		script: []string{unparseable, "expect tool could not be parsed"},
		stderr: []string{`refused bash "touch ran.txt )"`, "only a person may allow it", "run in a terminal"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, cfg := startScripted(t, strings.Join(tt.script, "\n---\n")+"\ntext done\n")
			work := t.TempDir()
			mustWrite(t, filepath.Join(work, "a.txt"), "old\n")
			if tt.project != "" {
				mustWrite(t, filepath.Join(work, "reasonix.toml"), tt.project)
			}
			args := append([]string{"run", "--config", cfg}, tt.flags...)
			r := runReasonix(t, work, t.TempDir(), nil, append(args, "write a.txt and touch ran.txt")...)
			if r.exit != tt.exit {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", r.exit, tt.exit, r.stderr)
			}
			if n := srv.Remaining(); n != 0 {
				t.Fatalf("%d scripted steps were never requested (a tool result was not as expected)\nstderr:\n%s", n, r.stderr)
			}
			got, _ := os.ReadFile(filepath.Join(work, "a.txt"))
			if written := string(got) == "new\n"; written != tt.written {
				t.Errorf("a.txt = %q, written %v, want %v", got, written, tt.written)
			}
			if _, err := os.Stat(filepath.Join(work, "ran.txt")); (err == nil) != tt.ran {
				t.Errorf("the command ran = %v, want %v", err == nil, tt.ran)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			for _, line := range strings.Split(r.stderr, "\n") {
				if tt.brief != "" && strings.Contains(line, tt.brief) && strings.Contains(line, "--approval") {
					t.Errorf("the how-to is repeated: %s", line)
				}
			}
			for _, bad := range tt.absent {
				if strings.Contains(r.stderr, bad) {
					t.Errorf("stderr has %q:\n%s", bad, r.stderr)
				}
			}
		})
	}
}
