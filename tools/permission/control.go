package permission

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ControlWhy words why a call that changes Reasonix's control files needs
// a person's approval: "changes reasonix.toml, one of Reasonix's control
// files".
func ControlWhy(files []string) string {
	switch len(files) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("changes %s, one of Reasonix's control files", files[0])
	}
	return fmt.Sprintf("changes %s and %s, Reasonix's control files", strings.Join(files[:len(files)-1], ", "), files[len(files)-1])
}

// alwaysAskWhy says why an always-ask call is asked.
func (r Request) alwaysAskWhy() string {
	if len(r.Control) == 0 {
		return "this call needs approval each time"
	}
	return ControlWhy(r.Control) + ", so it needs approval each time"
}

// The names that make a file or directory a control path wherever it is
// in a workspace. A session started in a subdirectory reads that
// directory's reasonix.toml and .mcp.json and its .reasonix and .claude;
// an editor opened there reads its .vscode; and git run there takes its
// configuration and hooks from the nearest .git. So `pkg/reasonix.toml`
// steers a later session as surely as the root's does.
var (
	// ControlFileNames are files that are control paths by their name.
	ControlFileNames = []string{"reasonix.toml", ".mcp.json"}
	// ControlDirNames are directories that are control paths, with
	// everything below them, by their name. A .git file (a linked work
	// tree's or a submodule's pointer to its repository) is one too.
	ControlDirNames = []string{".reasonix", ".claude", ".vscode", ".git"}
)

// ControlRoot reports whether rel, a path relative to a directory the
// tools may write (the workspace root), is a control path by its names
// (ControlFileNames, ControlDirNames), and returns the control path it is
// or lies in: "pkg/.claude" for "pkg/.claude/skills/x/SKILL.md". Names
// are compared without regard to case, as a case-insensitive file system
// would resolve them. The cost is that of the path's length alone: no
// file is looked at, so the check costs the same in any tree.
func ControlRoot(rel string) (string, bool) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return "", false
	}
	end := 0
	for {
		next := strings.IndexByte(rel[end:], '/')
		last := next < 0
		if last {
			next = len(rel) - end
		}
		name := rel[end : end+next]
		if foldIn(name, ControlDirNames) || last && foldIn(name, ControlFileNames) {
			return filepath.FromSlash(rel[:end+next]), true
		}
		if last {
			return "", false
		}
		end += next + 1
	}
}

func foldIn(name string, names []string) bool {
	for _, n := range names {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}
