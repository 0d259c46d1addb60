package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// readRulesEnv returns an Env over a workspace holding private/a (which a
// rule denies reading), drafts/b (which a rule asks about), pub, and a
// link to private/a.
func readRulesEnv(t *testing.T) *tools.Env {
	t.Helper()
	root := t.TempDir()
	for name, text := range map[string]string{"private/a": "A", "drafts/b": "B", "pub": "P"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("private/a", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	p, err := permission.NewPolicy("ask", nil, []string{"Read(drafts/**)"}, []string{"Read(private/**)"})
	if err != nil {
		t.Fatal(err)
	}
	p.Root = root
	return &tools.Env{Root: root, FS: tools.DiskFS{}, ReadRules: p.ReadRules()}
}

// TestReadRulesConfineReads: a confined read refuses what a rule denies,
// by the path opened; an unasked one also what a rule asks about.
func TestReadRulesConfineReads(t *testing.T) {
	env := readRulesEnv(t)
	tests := []struct {
		path           string
		read, unasked  error
		ruleInMessages string
	}{
		{"private/a", tools.ErrReadDenied, tools.ErrReadDenied, "Read(private/**)"},
		{"private", tools.ErrReadDenied, tools.ErrReadDenied, "Read(private/**)"},
		{"drafts/b", nil, tools.ErrReadAsked, "Read(drafts/**)"},
		{"pub", nil, nil, ""},
	}
	for _, tt := range tests {
		abs := env.Abs(tt.path)
		if err := env.CheckRead(abs); !errors.Is(err, tt.read) || (err == nil) != (tt.read == nil) {
			t.Errorf("CheckRead(%s) = %v, want %v", tt.path, err, tt.read)
		} else if err != nil && !strings.Contains(err.Error(), tt.ruleInMessages) {
			t.Errorf("CheckRead(%s) = %v, without the rule", tt.path, err)
		}
		if err := env.CheckReadUnasked(abs); !errors.Is(err, tt.unasked) || (err == nil) != (tt.unasked == nil) {
			t.Errorf("CheckReadUnasked(%s) = %v, want %v", tt.path, err, tt.unasked)
		}
	}
	// Through a link, by what was opened.
	if _, err := env.ReadDisk(env.Abs("link"), nil, 0); !errors.Is(err, tools.ErrReadDenied) {
		t.Errorf("ReadDisk(link) = %v", err)
	}
	if _, err := env.ReadConfined(env.Abs("link")); !errors.Is(err, tools.ErrReadDenied) {
		t.Errorf("ReadConfined(link) = %v", err)
	}
	if data, err := env.ReadDisk(env.Abs("drafts/b"), nil, 0); err != nil || string(data) != "B" {
		t.Errorf("ReadDisk(drafts/b) = %q, %v", data, err)
	}
	// An editor's buffer of a file no tool may read.
	env.FS = heldFS{DiskFS: tools.DiskFS{}, held: map[string]string{env.Abs("private/a"): "A in a buffer"}}
	if data, err := env.ReadConfined(env.Abs("private/a")); !errors.Is(err, tools.ErrReadDenied) {
		t.Errorf("ReadConfined of a buffer = %q, %v", data, err)
	}
}

// heldFS is the disk with some files held in memory, as an editor's.
type heldFS struct {
	tools.DiskFS
	held map[string]string
}

func (h heldFS) Overlaid(name string) ([]byte, bool, error) {
	s, ok := h.held[name]
	return []byte(s), ok, nil
}

func (h heldFS) Apply(context.Context, []tools.Change) error { return errors.New("read-only") }

// TestWithheld: a walk's entries a rule covers are left out and counted;
// those an ask rule covers are shown when the walk's root is itself one
// the gate asked about.
func TestWithheld(t *testing.T) {
	env := readRulesEnv(t)
	w := env.Withhold(env.Root)
	for _, tt := range []struct {
		path  string
		leave bool
	}{
		{"private", true}, {"private/a", true}, {"drafts/b", true}, {"drafts", true}, {"pub", false}, {"link", false},
	} {
		if got := w.Leave(env.Abs(tt.path), false); got != tt.leave {
			t.Errorf("Leave(%s) = %v, want %v", tt.path, got, tt.leave)
		}
	}
	note := w.Note()
	for _, want := range []string{"(2 paths left out: the permission rules deny reading them.)", "(2 paths left out: the permission rules ask before they are read; read_file reads one by name after asking.)"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if strings.Contains(note, "private") || strings.Contains(note, "drafts") {
		t.Errorf("the note names what it withholds: %q", note)
	}

	asked := env.Withhold(env.Abs("drafts"))
	if asked.Leave(env.Abs("drafts/b"), false) || !asked.Leave(env.Abs("private/a"), false) {
		t.Error("a walk of a directory the gate asked about withholds its files, or shows a denied one")
	}

	var none *tools.Withheld
	if none.Leave(env.Abs("private/a"), false) || none.Note() != "" || none.Func() != nil {
		t.Error("a nil Withheld withholds")
	}
	env.ReadRules = nil
	if env.Withhold(env.Root) != nil {
		t.Error("Withhold without rules")
	}
	if err := env.CheckRead(env.Abs("private/a")); err != nil {
		t.Errorf("CheckRead without rules: %v", err)
	}
}

// TestReadSpellings: each path as written, absolute, and where its links
// lead.
func TestReadSpellings(t *testing.T) {
	env := readRulesEnv(t)
	got := env.ReadSpellings([]string{"link", "pub", "missing", "link"})
	want := []string{env.Abs("link"), env.Abs("private/a"), env.Abs("pub"), env.Abs("missing")}
	if real, err := filepath.EvalSymlinks(env.Root); err == nil && real != env.Root {
		t.Skipf("the temporary directory is reached through a link (%s)", real)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ReadSpellings = %q, want %q", got, want)
	}
}
