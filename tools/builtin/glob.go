package builtin

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/walk"
)

//go:embed glob.md
var globDescription string

// globMaxResults caps the paths one call returns.
const globMaxResults = 500

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

type globTool struct{}

var _ tools.Tool = globTool{}

func init() { tools.RegisterBuiltin(globTool{}) }

func (globTool) Name() string        { return "glob" }
func (globTool) Description() string { return globDescription }
func (globTool) ReadOnly() bool      { return true }

var globSchema = schema(`{
	"type": "object",
	"properties": {
		"pattern": {"type": "string", "description": "Glob for file paths, e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\" or \"*_test.go\". Without a '/' it matches file names at any depth."},
		"path": {"type": "string", "description": "Directory the pattern is relative to, relative to the workspace root or absolute. Default: the workspace root."}
	},
	"required": ["pattern"],
	"additionalProperties": false
}`)

func (globTool) Schema() json.RawMessage { return globSchema }

func (globTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	var args globArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return tools.Errorf("%v", err), nil
	}
	if args.Pattern == "" {
		return tools.Errorf("pattern is required"), nil
	}
	base, err := env.ReadPath(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	fi, err := env.FS.Stat(base)
	if err != nil {
		return notFound(env, args.Path, err), nil
	}
	if !fi.IsDir() {
		return tools.Errorf("%s is a file, not a directory; pass a directory as path", args.Path), nil
	}
	pattern, err := globRelativePattern(env, base, args.Pattern)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	g, err := walk.CompileGlob(pattern)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}

	// Start below the pattern's literal directories: "src/**/*.ts" needs
	// no look outside src.
	start := base
	prefix := g.Base()
	if prefix != "" {
		start = filepath.Join(base, filepath.FromSlash(prefix))
		if fi, err := env.FS.Stat(start); err != nil || !fi.IsDir() {
			return globReport(env, args, nil, 0), nil
		}
		prefix += "/"
	}
	// Keep only the newest globMaxResults matches as they are found: a
	// large tree then costs neither a slice of every match nor sorting
	// it, and the report lists the same files in the same order.
	var (
		mu     sync.Mutex // guards newest
		newest = globNewest{limit: globMaxResults}
	)
	withheld := env.Withhold(base)
	opts := walk.Options{Ceiling: env.Root, Skip: env.SkipForbidden(), Withhold: withheld.Func()}
	err = walk.Walk(ctx, start, opts, func(e walk.Entry) error {
		if !g.Match(prefix + e.Rel()) {
			return nil
		}
		var mtime time.Time
		if info, err := e.Info(); err == nil {
			mtime = info.ModTime()
		}
		mu.Lock()
		newest.add(globMatch{path: e.Path, mtime: mtime})
		mu.Unlock()
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, err
		}
		return walkFailed(env, start, err), nil
	}
	return withNote(globReport(env, args, newest.sorted(), newest.total), withheld.Note()), nil
}

type globMatch struct {
	path  string
	mtime time.Time
}

// globBefore orders matches as the report lists them: newest first, which
// puts the files being worked on at the top, then by path.
func globBefore(a, b globMatch) int {
	if c := b.mtime.Compare(a.mtime); c != 0 {
		return c
	}
	return cmp.Compare(a.path, b.path)
}

// globNewest keeps the first limit matches in globBefore's order of all
// those added, in a heap whose root is the last of them, and counts them
// all.
type globNewest struct {
	limit int
	total int
	kept  []globMatch
}

func (h *globNewest) add(m globMatch) {
	h.total++
	if len(h.kept) < h.limit {
		h.kept = append(h.kept, m)
		h.up(len(h.kept) - 1)
		return
	}
	if globBefore(m, h.kept[0]) < 0 {
		h.kept[0] = m
		h.down(0)
	}
}

// sorted returns the kept matches in globBefore's order.
func (h *globNewest) sorted() []globMatch {
	slices.SortFunc(h.kept, globBefore)
	return h.kept
}

// up and down restore the heap property (no match comes after its
// parent) for the match at i.
func (h *globNewest) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if globBefore(h.kept[p], h.kept[i]) >= 0 {
			return
		}
		h.kept[p], h.kept[i] = h.kept[i], h.kept[p]
		i = p
	}
}

func (h *globNewest) down(i int) {
	for {
		last := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(h.kept) && globBefore(h.kept[last], h.kept[c]) < 0 {
				last = c
			}
		}
		if last == i {
			return
		}
		h.kept[i], h.kept[last] = h.kept[last], h.kept[i]
		i = last
	}
}

// globRelativePattern makes pattern relative to base. Models often write
// absolute patterns, or patterns relative to the workspace root while
// also passing path; both are understood. A leading "/" that does not
// start base anchors the pattern at base, as in .gitignore, unless it
// plainly names some other directory.
func globRelativePattern(env *tools.Env, base, pattern string) (string, error) {
	pattern = filepath.ToSlash(pattern)
	b := strings.TrimSuffix(filepath.ToSlash(base), "/")
	if rest, ok := strings.CutPrefix(pattern, b+"/"); ok && rest != "" {
		return rest, nil
	}
	if rel := env.Rel(base); rel != "." && !filepath.IsAbs(rel) {
		if rest, ok := strings.CutPrefix(pattern, rel+"/"); ok && rest != "" {
			return rest, nil
		}
	}
	if abs, ok := strings.CutPrefix(pattern, "/"); ok {
		first, _, _ := strings.Cut(abs, "/")
		if !strings.ContainsAny(first, "*?[{\\") {
			if _, err := env.FS.Stat(filepath.Join(base, first)); err != nil {
				return "", fmt.Errorf("the pattern %q looks like an absolute path outside %s; make it relative to path", pattern, env.Rel(base))
			}
		}
	}
	return pattern, nil
}

// globReport lists found, the first of total matches in globBefore's
// order, and says how many more there are.
func globReport(env *tools.Env, args globArgs, found []globMatch, total int) tools.Result {
	if total == 0 {
		where := env.Rel(env.Abs(args.Path))
		if where == "." {
			where = "the workspace"
		}
		return tools.Result{
			Content: fmt.Sprintf("No files match %s in %s.\n", grepQuote(args.Pattern), where),
			Summary: "no files",
		}
	}
	var b strings.Builder
	for _, m := range found {
		b.WriteString(env.Rel(m.path))
		b.WriteByte('\n')
	}
	if rest := total - len(found); rest > 0 {
		fmt.Fprintf(&b, "\n(%d more %s not shown: %d files match in all. Narrow the pattern or the path.)\n",
			rest, grepPlural(rest, "file", "files"), total)
	}
	return tools.Result{Content: b.String(), Summary: fmt.Sprintf("%d %s", total, grepPlural(total, "file", "files"))}
}

func (globTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyGlob, Kind: tools.KindSearch}
}

func (t globTool) Describe(args json.RawMessage) tools.Call {
	reads, _ := t.ReadPaths(args)
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "path", "pattern")), Wording: tools.UseWording(t.Name(), args), Reads: reads}
}
