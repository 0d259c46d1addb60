package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalCommandsNeedNoKey: the commands that ask no model answer with
// no API key set (the built-in provider, whose endpoint no test
// reaches), and a prompt still fails, as before, naming the key to set.
func TestLocalCommandsNeedNoKey(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	for _, tt := range []struct{ prompt, want string }{
		{"/help", "/trust"},
		{"/trust", "Nothing in this workspace's configuration needs trust"},
		{"/mcp", "MCP"},
		{"/model", "deepseek"},
	} {
		r := runReasonix(t, dir, home, nil, "run", tt.prompt)
		if r.exit != exitOK || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("run %s: exit %d, stdout:\n%s\nstderr:\n%s", tt.prompt, r.exit, r.stdout, r.stderr)
		}
	}
	r := runReasonix(t, dir, home, nil, "run", "fix the test")
	want := `reasonix: built-in defaults: provider "deepseek" needs an API key: set the environment variable DEEPSEEK_API_KEY`
	if r.exit != exitError || strings.TrimSpace(r.stderr) != want {
		t.Errorf("run without a key: exit %d, stderr:\n%s", r.exit, r.stderr)
	}
}

// TestUsageErrorShape: every usage error is three lines on stderr — what
// was wrong (with the nearest right word when one is near), the
// command's synopsis, and where to read more — and exits 64.
func TestUsageErrorShape(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	const overview = "usage: reasonix COMMAND [FLAGS] [ARGS]; COMMAND is one of lsp, acp, run, sessions, trace, stats, memory, mcp, setup, trust, version, help"
	tests := []struct {
		args  []string
		first string
		cmd   string // whose synopsis follows; "" for the overview's
	}{
		{[]string{"sesions"}, `reasonix: unknown command "sesions" — did you mean "sessions"?`, ""},
		{[]string{"stast"}, `reasonix: unknown command "stast" — did you mean "stats"?`, ""},
		{[]string{"frobnicate"}, `reasonix: unknown command "frobnicate"`, ""},
		{[]string{"help", "trcae"}, `reasonix help: unknown command "trcae" — did you mean "trace"?`, ""},
		{[]string{"run", "--aproval", "auto", "hi"}, "reasonix run: unknown flag --aproval — did you mean --approval?", "run"},
		{[]string{"run", "--modle", "x", "hi"}, "reasonix run: unknown flag --modle — did you mean --model?", "run"},
		{[]string{"run", "--model", "nosuch", "hi"}, `reasonix run: --model "nosuch" names no configured model. Configured: deepseek (deepseek-flash, deepseek-v4-pro).`, "run"},
		{[]string{"run", "--model", "deepseek-flsh", "hi"}, `reasonix run: --model "deepseek-flsh" names no configured model — did you mean "deepseek-flash"? Configured: deepseek (deepseek-flash, deepseek-v4-pro).`, "run"},
		{[]string{"run"}, `reasonix run: a prompt is required, e.g. reasonix run "make the failing test pass"`, "run"},
		{[]string{"stats", "--dasy", "3"}, "reasonix stats: unknown flag --dasy — did you mean --days?", "stats"},
		{[]string{"trace", "--jsno"}, "reasonix trace: unknown flag --jsno — did you mean --json?", "trace"},
		{[]string{"trust", "--revkoe"}, "reasonix trust: unknown flag --revkoe — did you mean --revoke?", "trust"},
		{[]string{"mcp", "lst"}, `reasonix mcp: unknown subcommand "lst" — did you mean "list"?`, "mcp list"},
		{[]string{"acp", "extra"}, `reasonix acp: unexpected argument "extra"`, "acp"},
		{[]string{"version", "--x"}, "reasonix version: unknown flag --x", "version"},
	}
	for _, tt := range tests {
		r := runReasonix(t, dir, home, nil, tt.args...)
		second, third := overview, "Run 'reasonix help' for more."
		if tt.cmd != "" {
			second, third = "usage: reasonix "+lookupCommand(tt.cmd).synopsis, "Run 'reasonix help "+tt.cmd+"' for more."
		}
		want := tt.first + "\n" + second + "\n" + third + "\n"
		if r.exit != exitUsage || r.stderr != want || r.stdout != "" {
			t.Errorf("reasonix %q: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", tt.args, r.exit, r.stderr, exitUsage, want)
		}
	}
}

// TestStatsCostsWhatSessionsCost: sessions run on a workspace's own
// provider cost in `reasonix stats` what they cost in `reasonix
// sessions`, also from a directory whose configuration does not know
// that provider: a session is priced by what it recorded as it ran.
func TestStatsCostsWhatSessionsCost(t *testing.T) {
	_, url := startServer(t, "text one\n---\ntext two\n")
	work, elsewhere, home := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "reasonix.toml"), []byte(scriptedConfig(url)), 0o644); err != nil {
		t.Fatal(err)
	}
	trustWorkspace(t, work, home)
	for _, prompt := range []string{"first", "second"} {
		if r := runReasonix(t, work, home, nil, "run", prompt); r.exit != exitOK {
			t.Fatalf("run %s: exit %d\n%s", prompt, r.exit, r.stderr)
		}
	}
	var list []struct{ Cost float64 }
	if r := runReasonix(t, elsewhere, home, nil, "sessions", "--json"); json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 2 {
		t.Fatalf("sessions --json: %+v", r)
	}
	var listed float64
	for _, s := range list {
		listed += s.Cost
	}
	var stats struct {
		Total struct {
			Cost     float64
			Unpriced int `json:"unpriced_tokens"`
		}
	}
	r := runReasonix(t, elsewhere, home, nil, "stats", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &stats); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, r.stdout)
	}
	if listed <= 0 || math.Abs(stats.Total.Cost-listed) > 1e-9 || stats.Total.Unpriced != 0 {
		t.Errorf("sessions cost $%v in all, stats says $%v with %d unpriced tokens", listed, stats.Total.Cost, stats.Total.Unpriced)
	}
	if r := runReasonix(t, elsewhere, home, nil, "stats"); strings.Contains(r.stdout, "—*") {
		t.Errorf("stats shows an unpriced model:\n%s", r.stdout)
	}
}

// TestServerNotice: lsp and acp typed in a terminal say what they are
// and how to leave; started by an editor (pipes) they say nothing, since
// their stderr is the editor's log.
func TestServerNotice(t *testing.T) {
	for _, name := range []string{"lsp", "acp"} {
		var b strings.Builder
		serverNotice(&b, name, false)
		if b.Len() != 0 {
			t.Errorf("%s with a pipe says %q", name, b.String())
		}
		serverNotice(&b, name, true)
		got := b.String()
		for _, want := range []string{"reasonix " + name + " is ", strings.ToUpper(name), "for an editor to start", "reasonix run", "Ctrl-C quits"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s in a terminal: %q lacks %q", name, got, want)
			}
		}
	}
	// Through the binary, stdin a pipe: not a word before the protocol's.
	r := runReasonix(t, t.TempDir(), t.TempDir(), nil, "lsp")
	if strings.Contains(r.stderr, "Ctrl-C") {
		t.Errorf("lsp from a pipe: %s", r.stderr)
	}
}
