package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
)

var update = flag.Bool("update", false, "rewrite the golden files of stats and trace")

// fixtureHome is the user directory of testdata/stats: three sessions,
// two with step records (a 429 and a timeout retried, an escalation, a
// failed request, a model with no price) and one older without, and a
// config with the prices. Its figures, worked out by hand:
//
//	flash: requests 3, retries 1, prompt 1000+1200+1300+5000 = 8500,
//	       hits 0+1024+1280+4000 = 6304 (74.2%), cost $0.001248624
//	pro:   1300 prompt, no hit, 200 out: 1300×1.32 + 200×3.96 = $0.002508
//	llama: 2 requests (1 failed), 1 timeout retried, unpriced
//	latency of the 5 answered requests 300, 400, 800, 1500, 2500 ms:
//	P50 800ms, P95 and P99 2.5s; TTFT 100, 150, 200, 600, 900: P50
//	200ms, P95 900ms.
func fixtureHome(t *testing.T) string {
	home, err := filepath.Abs(filepath.Join("testdata", "stats", "home"))
	if err != nil {
		t.Fatal(err)
	}
	return home
}

// golden compares got with the file name under testdata/stats, or
// rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "stats", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s", name, t.Name(), got, want)
	}
}

// TestStatsAndTraceGolden: the figures of stats and the lines of trace
// over the fixture sessions, exactly.
func TestStatsAndTraceGolden(t *testing.T) {
	home := fixtureHome(t)
	// COLUMNS empty: the full rows, as a script reading a pipe gets.
	utc := []string{"TZ=UTC", "COLUMNS="}
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"stats.golden", []string{"stats", "--days", "0"}},
		{"stats.json.golden", []string{"stats", "--days", "0", "--json"}},
		{"trace.golden", []string{"trace", "--session", "20261120"}},
		{"trace-last3.golden", []string{"trace", "3", "--session", "20261121-100000-bbbbbb"}},
		{"trace.json.golden", []string{"trace", "2", "--json", "--session", "20261121"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			r := runReasonix(t, t.TempDir(), home, utc, c.args...)
			if r.exit != exitOK || r.stderr != "" {
				t.Fatalf("exit %d\n%s", r.exit, r.stderr)
			}
			golden(t, c.golden, strings.ReplaceAll(r.stdout, home, "$REASONIX_HOME"))
		})
	}
}

// TestStatsWindow: --days counts whole local days back from today, and
// a session outside the window counts nothing.
func TestStatsWindow(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	if got := since(now, 1); !got.Equal(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("since 1 day = %v", got)
	}
	if !since(now, 0).IsZero() {
		t.Fatal("0 days is not everything")
	}
	t.Setenv("REASONIX_HOME", fixtureHome(t))
	cfg, err := config.Load(config.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	st := &agent.Store{Dir: filepath.Join(fixtureHome(t), "sessions")}
	rep, err := collectStats(st, cfg, since(now, 1))
	if err != nil {
		t.Fatal(err)
	}
	// 11-21: the escalated turn of the first session, and the second.
	if rep.Sessions != 2 || rep.FromSessionFiles != 0 || rep.Total.Requests != 4 || rep.Total.PromptTokens != 4600 || len(rep.ByDay) != 1 {
		t.Fatalf("%+v %+v", rep, rep.Total)
	}
}

// TestTraceAndStatsUsage: operands and flags they do not take are usage
// errors.
func TestTraceAndStatsUsage(t *testing.T) {
	home := fixtureHome(t)
	for _, args := range [][]string{
		{"trace", "0"}, {"trace", "x"}, {"trace", "1", "2"}, {"trace", "--bogus"},
		{"stats", "--days", "-1"}, {"stats", "extra"},
	} {
		r := runReasonix(t, t.TempDir(), home, nil, args...)
		if r.exit != exitUsage || !strings.Contains(r.stderr, "usage: reasonix "+args[0]) && !strings.Contains(r.stderr, "Usage:") {
			t.Errorf("%v: exit %d\n%s", args, r.exit, r.stderr)
		}
	}
	// Another workspace has no session.
	r := runReasonix(t, t.TempDir(), home, nil, "trace")
	if r.exit != exitError || !strings.Contains(r.stderr, "no session of this workspace") {
		t.Errorf("exit %d\n%s", r.exit, r.stderr)
	}
}

// TestTraceOfARun: a run through the real binary whose first request
// the server refuses with a 429 and whose second breaks off with a 500
// keeps step records; trace shows each attempt, and stats counts them.
func TestTraceOfARun(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hello\n"), 0o644)
	_, url := startServer(t, `fault 429
---
call read_file {"path": "notes.txt"}
---
fault 500
---
text it says hello
`)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(scriptedConfig(url)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "read notes.txt")
	if r.exit != exitOK || strings.TrimSpace(r.stdout) != "it says hello" {
		t.Fatalf("exit %d\n%s\n%s", r.exit, r.stdout, r.stderr)
	}
	r = runReasonix(t, work, home, nil, "trace", "--config", cfg)
	if r.exit != exitOK {
		t.Fatalf("exit %d\n%s", r.exit, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^Session \S+: the last 5 of 5 steps$`),
		regexp.MustCompile(`^$`),
		regexp.MustCompile(`^TIME +TURN\.STEP +WHAT +SIZE +TOKENS +COST +LATENCY +TTFT +OUTCOME$`),
		regexp.MustCompile(`^\S+ \S+ +1\.1 +scripted/deepseek-flash #1 +2 msgs .* retried \(429\): scripted: HTTP 429`),
		regexp.MustCompile(`^\S+ \S+ +1\.1 +scripted/deepseek-flash #2 +2 msgs .* in \(\d+% hit\) \+ \d+ out +\$0\.\d{4} .* tool_calls$`),
		regexp.MustCompile(`^\S+ \S+ +1\.1 +read_file notes\.txt +→ \d+ B .* ok$`),
		regexp.MustCompile(`^\S+ \S+ +1\.2 +scripted/deepseek-flash #1 +4 msgs .* retried \(5xx\): scripted: HTTP 500`),
		regexp.MustCompile(`^\S+ \S+ +1\.2 +scripted/deepseek-flash #2 +4 msgs .* stop$`),
	}
	if len(lines) != len(want) {
		t.Fatalf("trace:\n%s", r.stdout)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Fatalf("line %d %q does not match %s\ntrace:\n%s", i+1, lines[i], re, r.stdout)
		}
	}
	r = runReasonix(t, work, home, nil, "stats", "--json", "--config", cfg)
	if r.exit != exitOK || !strings.Contains(r.stdout, `"retries": 2`) || !strings.Contains(r.stdout, `"requests": 2`) {
		t.Fatalf("stats: exit %d\n%s\n%s", r.exit, r.stdout, r.stderr)
	}
}

// TestTraceToolError: a tool's error is said once, though its result
// starts with "Error: " itself.
func TestTraceToolError(t *testing.T) {
	var b strings.Builder
	printTrace(&b, []agent.StepRecord{{Kind: agent.StepTool, Turn: 1, Step: 3, Tool: "edit_file",
		Arguments: []byte(`{"path":"calc.go"}`), Error: "Error: old_string occurs 2 times in calc.go"}})
	if !strings.Contains(b.String(), " error: old_string occurs 2 times in calc.go\n") {
		t.Errorf("trace:\n%s", b.String())
	}
}
