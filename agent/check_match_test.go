package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools"
)

// TestNewErrorsMatchesMovedErrors: an error that was there before the
// turn is the same error when the lines above it moved; one with the
// same message elsewhere, or a new message, is new.
func TestNewErrorsMatchesMovedErrors(t *testing.T) {
	before := "a\nb\nc\nd\ne\n"
	after := "a\nX\nY\nb\nc\nd\ne\n" // two lines inserted after line 1
	e := func(line int, msg string) tools.Diagnostic {
		return tools.Diagnostic{Path: "/w/f.go", File: "f.go", Line: line, Column: 1, Severity: "error", Message: msg}
	}
	texts := func(s string) map[string]string { return map[string]string{"/w/f.go": s} }
	for _, tc := range []struct {
		name      string
		base, now []tools.Diagnostic
		want      string
	}{
		{"moved below the change", []tools.Diagnostic{e(4, "old")}, []tools.Diagnostic{e(6, "old")}, ""},
		{"above the change", []tools.Diagnostic{e(1, "old")}, []tools.Diagnostic{e(1, "old")}, ""},
		{"same message, another place", []tools.Diagnostic{e(4, "old")}, []tools.Diagnostic{e(6, "old"), e(7, "old")}, "f.go:7:1: old"},
		{"new message", []tools.Diagnostic{e(4, "old")}, []tools.Diagnostic{e(2, "undefined: x"), e(6, "old")}, "f.go:2:1: undefined: x"},
		{"warnings do not count", nil, []tools.Diagnostic{{Path: "/w/f.go", File: "f.go", Line: 2, Severity: "warning", Message: "w"}}, ""},
		{"an error fixed is no concern", []tools.Diagnostic{e(4, "old")}, nil, ""},
	} {
		var got []string
		for _, d := range newErrors(tc.base, tc.now, texts(before), texts(after)) {
			got = append(got, d.String())
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("%s: new errors %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestRepairMessage(t *testing.T) {
	errs := []tools.Diagnostic{
		{File: "calc.go", Line: 12, Column: 3, Message: "undefined: x"},
		{File: "calc.go", Line: 20, Column: 1, Message: "missing return"},
	}
	msg := repairMessage(errs)
	if !strings.HasPrefix(msg, "Your changes introduced 2 new errors:\ncalc.go:12:3: undefined: x\ncalc.go:20:1: missing return\n") {
		t.Errorf("message %q", msg)
	}
	if got := NewErrorsSummary(errs); got != "2 new errors in calc.go" {
		t.Errorf("summary %q", got)
	}
}

// TestCheckEditsConfig: the check is on wherever the project graph is,
// unless [agent] check_edits turns it off.
func TestCheckEditsConfig(t *testing.T) {
	for _, c := range []struct {
		toml string
		want bool
	}{
		{"", true},
		{"[agent]\ncheck_edits = false\n", false},
		{"[graph]\nenabled = false\n", false},
	} {
		t.Setenv("REASONIX_HOME", t.TempDir())
		root := t.TempDir()
		toml := "default_model = \"local\"\n[[providers]]\nname = \"local\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n" + c.toml
		if err := os.WriteFile(filepath.Join(root, config.ProjectFileName), []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
		trustProject(t, root)
		cfg, err := config.Load(config.Options{Dir: root, SkipUser: true})
		if err != nil {
			t.Fatal(err)
		}
		a, err := Build(cfg, Options{Dir: root})
		if err != nil {
			t.Fatal(err)
		}
		if a.CheckEdits != c.want {
			t.Errorf("with %q: CheckEdits = %v, want %v", c.toml, a.CheckEdits, c.want)
		}
		a.Close()
	}
}
