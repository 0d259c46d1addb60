package graph

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"github.com/reasonix/reasonix/tools"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata archives")

// A markerCase is a txtar archive of a small project with known answers,
// in the manner of gopls's marker tests:
//
//   - Source files carry markers in comments: //@def(name) (or #@def for
//     Python) marks the declaration of name on its line, //@ref(name) a
//     use of it. The word marked is name's last element; when a line has
//     several markers for the same word, they mark its occurrences left
//     to right.
//   - Sections named "@<action> <args>" hold golden output:
//     "@find_symbol <query>", "@rename_check <name> <new>" and
//     "@rename <name> <new>" (at the declaration of name),
//     "@diagnostics <path>", and "@<action> <name>" for the actions
//     that take a symbol name alone (incoming_calls, outgoing_calls,
//     implementations, type_hierarchy, hover). Run with -update to
//     rewrite them.
type markerCase struct {
	file    string // the archive
	ar      *txtar.Archive
	root    string // where its files were written
	defs    map[string]mark
	refs    map[string][]mark
	goldens []*txtar.File
}

// A mark is a marked position: workspace-relative path, 1-based line and
// character column.
type mark struct {
	Path   string
	Line   int
	Column int
}

func (m mark) String() string { return fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column) }

var markerRE = regexp.MustCompile(`(?://|#)\s*@(def|ref)\(([^)]*)\)`)

// loadMarkerCase writes an archive's files into a fresh directory and
// reads its markers.
func loadMarkerCase(t *testing.T, file string) *markerCase {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	mc := &markerCase{file: file, ar: ar, root: t.TempDir(), defs: map[string]mark{}, refs: map[string][]mark{}}
	for i, f := range ar.Files {
		if strings.HasPrefix(f.Name, "@") {
			mc.goldens = append(mc.goldens, &ar.Files[i])
			continue
		}
		p := filepath.Join(mc.root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(f.Data), "\n") {
			mc.readMarkers(t, f.Name, i+1, line)
		}
	}
	return mc
}

func (mc *markerCase) readMarkers(t *testing.T, path string, lineNo int, line string) {
	found := markerRE.FindAllStringSubmatchIndex(line, -1)
	if len(found) == 0 {
		return
	}
	code := line[:found[0][0]]
	seen := map[string]int{} // markers so far on this line, by word
	for _, f := range found {
		kind, name := line[f[2]:f[3]], strings.TrimSpace(line[f[4]:f[5]])
		word := name[strings.LastIndex(name, ".")+1:]
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`)
		occ := re.FindAllStringIndex(code, -1)
		n := seen[word]
		seen[word]++
		if n >= len(occ) {
			t.Fatalf("%s:%d: marker %s(%s) has no occurrence %d of %q", path, lineNo, kind, name, n+1, word)
		}
		m := mark{Path: path, Line: lineNo, Column: utf8.RuneCountInString(code[:occ[n][0]]) + 1}
		if kind == "def" {
			mc.defs[name] = m
		} else {
			mc.refs[name] = append(mc.refs[name], m)
		}
	}
}

func (mc *markerCase) abs(p string) string { return filepath.Join(mc.root, filepath.FromSlash(p)) }

// refsResult is the part of a find_references answer the checks read.
type refsResult struct {
	Definition *place  `json:"definition"`
	Total      int     `json:"total"`
	References []place `json:"references"`
}

func marks(ps []place) []string {
	var out []string
	for _, p := range ps {
		out = append(out, mark{p.Path, p.Line, p.Column}.String())
	}
	slices.Sort(out)
	return out
}

func markStrings(ms []mark) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.String())
	}
	slices.Sort(out)
	return out
}

// checkReferences asks for the references of every marked declaration,
// by name and from each marked use, and for the definition from each use,
// and compares with the markers.
func (mc *markerCase) checkReferences(t *testing.T, m *Manager) {
	t.Helper()
	ctx := t.Context()
	for _, name := range slices.Sorted(maps.Keys(mc.defs)) {
		def := mc.defs[name]
		want := markStrings(mc.refs[name])
		check := func(how string, q tools.GraphQuery) {
			t.Helper()
			out, err := m.Query(ctx, q)
			if err != nil {
				t.Errorf("%s: references %s: %v", name, how, err)
				return
			}
			var res refsResult
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%s: %v in %s", name, err, out)
			}
			if res.Definition == nil || (mark{res.Definition.Path, res.Definition.Line, res.Definition.Column}) != def {
				t.Errorf("%s: references %s: definition %+v, want %s", name, how, res.Definition, def)
			}
			if got := marks(res.References); !slices.Equal(got, want) || res.Total != len(want) {
				t.Errorf("%s: references %s:\n got %d %v\nwant %d %v", name, how, res.Total, got, len(want), want)
			}
		}
		check("by name", tools.GraphQuery{Action: "find_references", Symbol: name})
		for _, r := range mc.refs[name] {
			check("from "+r.String(), tools.GraphQuery{Action: "find_references", Path: mc.abs(r.Path), Line: r.Line, Column: r.Column})
			out, err := m.Query(ctx, tools.GraphQuery{Action: "definition", Path: mc.abs(r.Path), Line: r.Line, Column: r.Column})
			if err != nil {
				t.Errorf("%s: definition from %s: %v", name, r, err)
				continue
			}
			var res struct{ Definitions []place }
			json.Unmarshal([]byte(out), &res)
			if got := marks(res.Definitions); !slices.Contains(got, def.String()) {
				t.Errorf("%s: definition from %s: %v, want %s", name, r, got, def)
			}
		}
	}
}

// checkGoldens runs the golden sections' questions and compares the
// answers, or rewrites them with -update.
func (mc *markerCase) checkGoldens(t *testing.T, m *Manager) {
	t.Helper()
	changed := false
	for _, g := range mc.goldens {
		got := mc.run(t, m, g.Name)
		if *update {
			if !bytes.Equal(g.Data, got) {
				g.Data, changed = got, true
			}
			continue
		}
		if !bytes.Equal(g.Data, got) {
			t.Errorf("%s: %s:\n got:\n%s\nwant:\n%s", filepath.Base(mc.file), g.Name, got, g.Data)
		}
	}
	if changed {
		if err := os.WriteFile(mc.file, txtar.Format(mc.ar), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", mc.file)
	}
}

// run answers one golden section's question.
func (mc *markerCase) run(t *testing.T, m *Manager, section string) []byte {
	t.Helper()
	ctx := t.Context()
	f := strings.Fields(strings.TrimPrefix(section, "@"))
	var out string
	var err error
	need := func(n int) {
		if len(f) != n+1 {
			t.Fatalf("%s: section %q needs %d arguments", mc.file, section, n)
		}
	}
	at := func(name string) mark {
		d, ok := mc.defs[name]
		if !ok {
			t.Fatalf("%s: section %q names %q, which has no def marker", mc.file, section, name)
		}
		return d
	}
	switch f[0] {
	case "find_symbol":
		need(1)
		out, err = m.Query(ctx, tools.GraphQuery{Action: "find_symbol", Symbol: f[1]})
	case "rename_check":
		need(2)
		d := at(f[1])
		out, err = m.Query(ctx, tools.GraphQuery{Action: "rename_check", Path: mc.abs(d.Path), Line: d.Line, Column: d.Column, NewName: f[2]})
	case "diagnostics":
		need(1)
		out, err = m.Query(ctx, tools.GraphQuery{Action: "diagnostics", Path: mc.abs(f[1])})
	case "incoming_calls", "outgoing_calls", "implementations", "type_hierarchy", "hover":
		need(1)
		out, err = m.Query(ctx, tools.GraphQuery{Action: f[0], Symbol: f[1]})
	case "rename":
		need(2)
		d := at(f[1])
		changes, summary, rerr := m.Rename(ctx, mc.abs(d.Path), d.Line, d.Column, f[2])
		if rerr != nil {
			return []byte("error: " + rerr.Error() + "\n")
		}
		var b strings.Builder
		b.WriteString(summary + "\n")
		for _, c := range changes {
			rel, _ := filepath.Rel(mc.root, c.Path)
			fmt.Fprintf(&b, "== %s %s ==\n%s", c.Kind, filepath.ToSlash(rel), c.Content)
		}
		return []byte(b.String())
	default:
		t.Fatalf("%s: unknown golden section %q", mc.file, section)
	}
	if err != nil {
		return []byte("error: " + err.Error() + "\n")
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(out), "", "  "); err != nil {
		t.Fatalf("%s: %v in %s", section, err, out)
	}
	b.WriteByte('\n')
	return b.Bytes()
}
