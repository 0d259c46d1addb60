package builtin

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/walk"
)

//go:embed ls.md
var lsDescription string

// lsMaxEntries caps the entries one call lists.
const lsMaxEntries = 1000

type lsArgs struct {
	Path string `json:"path,omitempty"`
}

type lsTool struct{}

var _ tools.Tool = lsTool{}

func init() { tools.RegisterBuiltin(lsTool{}) }

func (lsTool) Name() string        { return "ls" }
func (lsTool) Description() string { return lsDescription }
func (lsTool) ReadOnly() bool      { return true }

var lsSchema = schema(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "Directory to list."}
	},
	"additionalProperties": false
}`)

func (lsTool) Schema() json.RawMessage { return lsSchema }

// lsEntry is one line of a listing.
type lsEntry struct {
	d      fs.DirEntry
	name   string
	dir    bool
	link   string // the target, for a symbolic link
	tag    string // why search tools skip it, if they do
	broken bool   // a link whose target is missing
}

func (lsTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	var args lsArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return tools.Errorf("%v", err), nil
	}
	abs, err := env.ReadPath(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	fi, err := env.FS.Stat(abs)
	if err != nil {
		return notFound(env, args.Path, err), nil
	}
	shown := env.Rel(abs)
	if !fi.IsDir() {
		return tools.Errorf("%s is a file (%s), not a directory; use read_file to read it", shown, lsSize(fi.Size())), nil
	}
	real, ents, err := env.ListDir(abs)
	if err != nil {
		return notFound(env, args.Path, err), nil
	}

	skip := env.SkipForbidden()
	ign := walk.LoadDir(real, walk.Options{Ceiling: env.Root, Skip: skip})
	withheld := env.Withhold(abs)

	list := make([]lsEntry, 0, len(ents))
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		le := lsEntry{d: e, name: e.Name(), dir: e.IsDir()}
		path := filepath.Join(real, le.name)
		forbidden := skip != nil && skip(path, le.dir)
		if e.Type()&fs.ModeSymlink != 0 {
			// A link is judged by where it leads, too.
			if target, err := filepath.EvalSymlinks(path); err == nil && withheld.Leave(target, false) {
				continue
			}
			le.link, _ = os.Readlink(path)
			// Classify a link by its target, as a shell's ls -F does.
			if ti, err := env.FS.Stat(path); err == nil {
				le.dir = ti.IsDir()
			} else {
				le.broken = true
			}
			// The guard, too, judges a link by where it leads.
			forbidden = env.Guard != nil && env.Guard.CheckRead(path) != nil
		}
		if withheld.Leave(path, e.IsDir()) {
			continue
		}
		switch {
		case forbidden:
			le.tag = "read forbidden"
		case le.dir && le.link == "" && (le.name == ".git" || le.name == ".hg" || le.name == ".svn"):
			le.tag = "version control"
		case ign.IgnoredEntry(le.name, e.IsDir()):
			le.tag = "ignored"
		}
		list = append(list, le)
	}
	// Directories first, then files, each by name.
	slices.SortFunc(list, func(a, b lsEntry) int {
		if a.dir != b.dir {
			if a.dir {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.name, b.name)
	})

	if len(list) == 0 {
		if note := withheld.Note(); note != "" {
			return tools.Result{Content: fmt.Sprintf("%s holds nothing the tools may list.\n%s", shown, note), Summary: "nothing listed"}, nil
		}
		return tools.Result{Content: fmt.Sprintf("%s is empty.\n", shown), Summary: "empty"}, nil
	}
	var b strings.Builder
	if ign.Ignored() {
		fmt.Fprintf(&b, "(%s is itself ignored by .gitignore: grep and glob search it only when given it as path.)\n", shown)
	}
	dirs, files := 0, 0
	for i, le := range list {
		if le.dir {
			dirs++
		} else {
			files++
		}
		if i >= lsMaxEntries {
			continue
		}
		b.WriteString(le.name)
		if le.dir {
			b.WriteByte('/')
		}
		switch {
		case le.link != "":
			fmt.Fprintf(&b, " -> %s", le.link)
			if le.broken {
				b.WriteString(" (broken link)")
			}
		case !le.dir:
			if info, err := le.d.Info(); err == nil {
				fmt.Fprintf(&b, "  %s", lsSize(info.Size()))
			}
		}
		if le.tag != "" {
			fmt.Fprintf(&b, "  [%s]", le.tag)
		}
		b.WriteByte('\n')
	}
	if rest := len(list) - lsMaxEntries; rest > 0 {
		fmt.Fprintf(&b, "\n(%d more entries not shown. Use glob with a pattern to find specific files.)\n", rest)
	}
	summary := fmt.Sprintf("%d %s, %d %s", dirs, grepPlural(dirs, "directory", "directories"), files, grepPlural(files, "file", "files"))
	return withNote(tools.Result{Content: b.String(), Summary: summary}, withheld.Note()), nil
}

// lsSize renders a byte count the way people read it.
func lsSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTP"[exp])
}

func (lsTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyList, Kind: tools.KindRead}
}

func (t lsTool) Describe(args json.RawMessage) tools.Call {
	return tools.PathCall(t, args)
}
