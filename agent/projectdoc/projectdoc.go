// Package projectdoc drafts a project's AGENTS.md — the memory file agents
// read first — from what the project's own files say: its build and test
// commands (go.mod, a Makefile's targets, package.json's scripts,
// pyproject.toml, Cargo.toml), its top-level layout, its Go packages with
// their exported types and functions, and the classes and functions of
// its main Python, TypeScript and JavaScript modules. The declarations
// come from a language server's outline when one is given and answers in
// time (symbols.go), else, for Go types, from go/parser. The draft is
// local and deterministic: no model writes it, so it costs nothing, works
// without an API key, and the same tree (and the same answers) always
// gives the same text. What a draft cannot know (the
// project's conventions, its pitfalls) is left for the user to add.
package projectdoc

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/walk"
)

// Bounds that keep the draft short: it is read on every request.
const (
	maxFiles     = 20_000    // a walk of a huge tree stops here
	maxFileBytes = 256 << 10 // a manifest or source file larger is skipped
	maxPackages  = 15
	maxTypes     = 6
	maxTargets   = 8
	maxDirs      = 15
)

// Section headings of the draft, in order.
const (
	HeadingBuild    = "Build and test"
	HeadingLayout   = "Layout"
	HeadingPackages = "Go packages"
	HeadingModules  = "Main modules"
)

// Options configure a draft.
type Options struct {
	// Withhold, when set, is asked about every file and directory with
	// its real path; true leaves it out, unread (the session's read
	// rules).
	Withhold func(path string) bool
	// Symbols, when set, names the top-level declarations of source
	// files as a language server sees them (the project graph). Without
	// it, or for the files it does not answer in time, Go packages show
	// the types go/parser finds and no functions, and there are no main
	// modules.
	Symbols tools.DeclarationLister
	// SymbolWait bounds the time the whole draft gives Symbols; zero
	// means DefaultSymbolWait.
	SymbolWait time.Duration
}

// Draft returns an AGENTS.md for the project at root.
func Draft(ctx context.Context, root string, opts Options) (string, error) {
	p, err := scan(ctx, root, opts.Withhold)
	if err != nil {
		return "", fmt.Errorf("projectdoc: %w", err)
	}
	if opts.Symbols != nil {
		p.decls = ask(ctx, opts.Symbols, root, p.symbolFiles(), cmp.Or(opts.SymbolWait, DefaultSymbolWait))
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("projectdoc: %w", err)
		}
	}
	var b strings.Builder
	b.WriteString("# AGENTS.md\n\nNotes for coding agents working in this repository, drafted by /init from its files. ")
	b.WriteString("Add what the files cannot say: conventions, pitfalls, what to leave alone.\n")
	if cmds := p.commands(); len(cmds) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", HeadingBuild)
		for _, c := range cmds {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	if dirs := p.layout(); len(dirs) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", HeadingLayout)
		for _, d := range dirs {
			fmt.Fprintf(&b, "- %s\n", d)
		}
	}
	if pkgs := p.packageLines(); len(pkgs) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", HeadingPackages)
		for _, l := range pkgs {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if mods := p.moduleLines(); len(mods) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", HeadingModules)
		for _, l := range mods {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String(), nil
}

// project is what a scan found.
type project struct {
	mu sync.Mutex // guards the fields below: the walk visits concurrently
	// manifests holds the build files of the root, by name.
	manifests map[string][]byte
	// files counts the files below each top-level directory, by language.
	files map[string]map[string]int
	// pkgs are the Go packages, by directory (slash-separated, "." for
	// the root).
	pkgs map[string]*goPackage
	// modules are the candidates for main modules (isMainModule), by
	// path.
	modules []string
	seen    int
	// decls are the declarations the language server reported, by the
	// file's path; a file it did not answer for is absent. Set after the
	// walk.
	decls map[string][]tools.Declaration
}

type goPackage struct {
	name string
	doc  string
	// files holds the exported types go/parser found in each of the
	// package's non-test files, by base name.
	files map[string][]string
}

// manifestNames are the build files read at the root.
var manifestNames = []string{"go.mod", "Makefile", "GNUmakefile", "package.json", "pyproject.toml", "Cargo.toml"}

// languages names the languages counted in the layout, by extension.
var languages = map[string]string{
	".go": "Go", ".ts": "TypeScript", ".tsx": "TypeScript", ".js": "JavaScript", ".mjs": "JavaScript",
	".py": "Python", ".rs": "Rust", ".lua": "Lua", ".java": "Java", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++",
	".rb": "Ruby", ".sh": "shell", ".md": "Markdown", ".el": "Emacs Lisp", ".txtar": "txtar",
}

func scan(ctx context.Context, root string, withhold func(string) bool) (*project, error) {
	p := &project{manifests: map[string][]byte{}, files: map[string]map[string]int{}, pkgs: map[string]*goPackage{}}
	opts := walk.Options{}
	if withhold != nil {
		opts.Withhold = func(path string, _ bool) bool { return withhold(path) }
	}
	err := walk.Walk(ctx, root, opts, func(e walk.Entry) error {
		if !e.Type.IsRegular() {
			return nil
		}
		rel := e.Rel()
		p.mu.Lock()
		p.seen++
		over := p.seen > maxFiles
		p.mu.Unlock()
		if over {
			return walk.SkipAll
		}
		dir, name := path.Split(rel)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" && slices.Contains(manifestNames, name) {
			if data, err := e.ReadFile(nil, maxFileBytes); err == nil {
				p.mu.Lock()
				p.manifests[name] = data
				p.mu.Unlock()
			}
		}
		if top, _, nested := strings.Cut(rel, "/"); nested {
			if lang, ok := languages[path.Ext(name)]; ok {
				p.mu.Lock()
				if p.files[top] == nil {
					p.files[top] = map[string]int{}
				}
				p.files[top][lang]++
				p.mu.Unlock()
			}
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && !underTestdata(rel) {
			if data, err := e.ReadFile(nil, maxFileBytes); err == nil {
				p.addGo(cmp.Or(dir, "."), name, data)
			}
		}
		if isMainModule(rel) {
			p.mu.Lock()
			p.modules = append(p.modules, rel)
			p.mu.Unlock()
		}
		return nil
	})
	return p, err
}

// underTestdata reports whether a path is in a testdata directory, whose
// Go files the go command ignores.
func underTestdata(rel string) bool {
	return slices.Contains(strings.Split(rel, "/"), "testdata")
}

// addGo takes a Go file's package name, doc comment and exported types.
func (p *project) addGo(dir, name string, src []byte) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return
	}
	var types []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			if ts := s.(*ast.TypeSpec); ts.Name.IsExported() {
				types = append(types, ts.Name.Name)
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pkg := p.pkgs[dir]
	if pkg == nil {
		pkg = &goPackage{name: f.Name.Name, files: map[string][]string{}}
		p.pkgs[dir] = pkg
	}
	if f.Doc != nil && pkg.doc == "" {
		pkg.doc = firstSentence(f.Doc.Text())
	}
	pkg.files[name] = types
}

// maxDoc bounds a package's line of doc comment, in bytes.
const maxDoc = 200

// firstSentence is a doc comment's first sentence, on one line, cut at
// maxDoc.
func firstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i+1]
	}
	if len(doc) > maxDoc {
		cut := strings.LastIndexByte(doc[:maxDoc], ' ')
		doc = doc[:max(cut, 0)] + " …"
	}
	return doc
}

// commands are the build and test commands the manifests name.
func (p *project) commands() []string {
	var out []string
	if mod, ok := p.manifests["go.mod"]; ok {
		module, goVersion := goMod(mod)
		about := "module " + cmp.Or(module, "?")
		if goVersion != "" {
			about += ", Go " + goVersion
		}
		out = append(out, fmt.Sprintf("`go build ./...` builds and `go test ./...` tests (go.mod: %s); `gofmt -l .` and `go vet ./...` check", about))
	}
	for _, name := range []string{"Makefile", "GNUmakefile"} {
		if mk, ok := p.manifests[name]; ok {
			if ts := makeTargets(mk); len(ts) > 0 {
				out = append(out, fmt.Sprintf("%s targets: %s", name, quoteAll("make ", ts)))
			}
			break
		}
	}
	if pj, ok := p.manifests["package.json"]; ok {
		if scripts := npmScripts(pj); len(scripts) > 0 {
			out = append(out, "package.json scripts: "+quoteAll("npm run ", scripts))
		}
	}
	if pp, ok := p.manifests["pyproject.toml"]; ok {
		line := "Python (pyproject.toml): `pip install -e .` installs it"
		if bytes.Contains(pp, []byte("[tool.pytest")) || p.files["tests"]["Python"] > 0 {
			line += "; `pytest` tests"
		}
		out = append(out, line)
	}
	if _, ok := p.manifests["Cargo.toml"]; ok {
		out = append(out, "`cargo build` builds and `cargo test` tests (Cargo.toml)")
	}
	return out
}

func quoteAll(prefix string, names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + prefix + n + "`"
	}
	return strings.Join(q, ", ")
}

var (
	moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)`)
	goLine     = regexp.MustCompile(`(?m)^go\s+(\S+)`)
	targetLine = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)\s*:([^=]|$)`)
)

func goMod(data []byte) (module, goVersion string) {
	if m := moduleLine.FindSubmatch(data); m != nil {
		module = string(m[1])
	}
	if m := goLine.FindSubmatch(data); m != nil {
		goVersion = string(m[1])
	}
	return module, goVersion
}

// commonTargets are the targets an agent most needs, listed first.
var commonTargets = []string{"build", "test", "check", "lint", "vet", "fmt", "install"}

// makeTargets are a Makefile's explicit targets, at most maxTargets: rules
// with a plain name (no pattern, no variable), not special targets such
// as .PHONY; commonTargets first, then the others in their order.
func makeTargets(data []byte) []string {
	var all []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if m := targetLine.FindStringSubmatch(sc.Text()); m != nil && !slices.Contains(all, m[1]) {
			all = append(all, m[1])
		}
	}
	var out []string
	for _, t := range commonTargets {
		if slices.Contains(all, t) {
			out = append(out, t)
		}
	}
	for _, t := range all {
		if !slices.Contains(commonTargets, t) {
			out = append(out, t)
		}
	}
	return out[:min(len(out), maxTargets)]
}

// npmScripts are package.json's script names, sorted, at most maxTargets.
func npmScripts(data []byte) []string {
	var pj struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pj) != nil {
		return nil
	}
	names := slices.Sorted(maps.Keys(pj.Scripts))
	if len(names) > maxTargets {
		names = names[:maxTargets]
	}
	return names
}

// layout lists the top-level directories that hold source, with what
// they hold: "`agent/` — 120 Go files".
func (p *project) layout() []string {
	dirs := slices.Sorted(maps.Keys(p.files))
	var out []string
	for _, d := range dirs {
		if len(out) == maxDirs {
			out = append(out, fmt.Sprintf("… and %d more directories", len(dirs)-maxDirs))
			break
		}
		langs := p.files[d]
		names := slices.SortedFunc(maps.Keys(langs), func(a, b string) int { return cmp.Or(cmp.Compare(langs[b], langs[a]), cmp.Compare(a, b)) })
		parts := make([]string, 0, 3)
		for _, l := range names[:min(len(names), 3)] {
			parts = append(parts, fmt.Sprintf("%d %s", langs[l], l))
		}
		out = append(out, fmt.Sprintf("`%s/` — %s files", d, strings.Join(parts, ", ")))
	}
	return out
}

// packageDirs are the Go packages' directories, the shallowest first.
func (p *project) packageDirs() []string {
	return slices.SortedFunc(maps.Keys(p.pkgs), shallowFirst)
}

// shallowFirst orders slash-separated paths by depth, then by name.
func shallowFirst(a, b string) int {
	return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), cmp.Compare(a, b))
}

// packageLines lists the Go packages, the shallowest first, with their
// doc comment's first sentence, exported types and functions.
func (p *project) packageLines() []string {
	dirs := p.packageDirs()
	var out []string
	for _, d := range dirs {
		if len(out) == maxPackages {
			out = append(out, fmt.Sprintf("… and %d more packages", len(dirs)-maxPackages))
			break
		}
		pkg := p.pkgs[d]
		line := fmt.Sprintf("`%s` (package %s)", d, pkg.name)
		if pkg.doc != "" {
			line += ": " + pkg.doc
		}
		types, funcs, complete := p.goDeclarations(d, pkg)
		line += names(" Types", types, true) + names(" Funcs", funcs, complete)
		out = append(out, line)
	}
	return out
}

// names lists a kind of names, sorted, at most maxTypes: " Types: A, B
// and 3 more." — "and more" when the list is known to be partial.
func names(label string, list []string, complete bool) string {
	list = slices.Compact(slices.Sorted(slices.Values(list)))
	if len(list) == 0 {
		return ""
	}
	s := label + ": " + strings.Join(list[:min(len(list), maxTypes)], ", ")
	switch {
	case len(list) > maxTypes && complete:
		s += fmt.Sprintf(" and %d more", len(list)-maxTypes)
	case len(list) > maxTypes:
		s += " and more"
	}
	return s + "."
}

// Merge proposes an update of an existing AGENTS.md with a draft: the
// existing text kept as it is, and after it the draft's sections whose
// headings it lacks. added names them; none means the file already has
// every section the draft would write.
func Merge(existing, draft string) (merged string, added []string) {
	have := map[string]bool{}
	for _, l := range strings.Split(existing, "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(l), "## "); ok {
			have[strings.ToLower(strings.TrimSpace(h))] = true
		}
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(existing, "\n"))
	b.WriteString("\n")
	for _, sec := range strings.Split(draft, "\n## ")[1:] {
		heading, _, _ := strings.Cut(sec, "\n")
		if have[strings.ToLower(strings.TrimSpace(heading))] {
			continue
		}
		added = append(added, heading)
		b.WriteString("\n## " + strings.TrimRight(sec, "\n") + "\n")
	}
	return b.String(), added
}
