package walk

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// A pattern is one line of a .gitignore file.
type pattern struct {
	text    string // the glob, without '!', leading '/' or trailing '/'
	negate  bool   // "!pattern": re-include what an earlier pattern excluded
	dirOnly bool   // "pattern/": matches directories only
	// anchored patterns had a '/' at the start or in the middle and match
	// the path relative to the .gitignore's directory; the others match
	// the base name at any depth.
	anchored bool
	kind     patternKind
	lit      string // the literal part for the fast kinds
}

// patternKind lets the common shapes skip wildmatch. Most ignore files are
// names ("node_modules") and extensions ("*.log").
type patternKind uint8

const (
	kindGlob   patternKind = iota // anything else: run wildmatch
	kindExact                     // no wildcard: compare strings
	kindSuffix                    // '*' then a literal: compare the suffix
)

// parsePattern parses one line of an ignore file as git does, reporting
// false for blank lines and comments.
func parsePattern(line string) (pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return pattern{}, false
	}
	var p pattern
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	// A trailing '/' makes the pattern match directories only. Git strips
	// exactly one, escaped or not.
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	// A '/' anywhere else anchors the pattern to its file's directory.
	if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	if line == "" {
		return pattern{}, false
	}
	p.text = line
	switch {
	case !strings.ContainsAny(line, `*?[\`):
		p.kind, p.lit = kindExact, line
	case line[0] == '*' && !strings.ContainsAny(line[1:], `*?[\`):
		p.kind, p.lit = kindSuffix, line[1:]
	}
	return p, true
}

// trimTrailingSpaces removes unescaped trailing spaces, as git does: "a\ "
// keeps its escaped space.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		// Count the backslashes before this space: an odd number
		// escapes it.
		n := 0
		for i := end - 2; i >= 0 && s[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			break
		}
		end--
	}
	return s[:end]
}

// match reports whether the pattern matches an entry whose path relative
// to the pattern's directory is rel (slash-separated) and whose base name
// is name.
func (p *pattern) match(rel, name string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	subject := name
	if p.anchored {
		subject = rel
	}
	switch p.kind {
	case kindExact:
		return subject == p.lit
	case kindSuffix:
		// Without a '/' in the literal, '*' must not cross a directory.
		return strings.HasSuffix(subject, p.lit) &&
			(!p.anchored || strings.IndexByte(subject[:len(subject)-len(p.lit)], '/') < 0)
	}
	return wildmatch(p.text, subject)
}

// parseIgnore parses the content of an ignore file.
func parseIgnore(data []byte) []pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // git skips a UTF-8 BOM
	var pats []pattern
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if p, ok := parsePattern(string(line)); ok {
			pats = append(pats, p)
		}
	}
	return pats
}

// rules is the ignore state of one directory: a chain of pattern lists,
// innermost first, each relative to the directory holding it. Directories
// without an ignore file share their parent's chain, so the walk allocates
// only where a .gitignore exists. The chain ends at a repository root
// (whose .git/info/exclude is the last, weakest link), or at the top of a
// tree outside any repository.
type rules struct {
	parent *rules
	dir    string // the directory the patterns are relative to
	pats   []pattern
}

// ignored reports whether path, an entry below every directory of the
// chain, is excluded. As in git, the deepest ignore file that has a
// matching pattern decides, and within a file the last matching pattern
// decides.
func (r *rules) ignored(path string, isDir bool) bool {
	name := filepath.Base(path)
	for n := r; n != nil; n = n.parent {
		off := len(n.dir)
		if !strings.HasSuffix(n.dir, string(filepath.Separator)) {
			off++ // the separator after the directory
		}
		if len(path) <= off {
			continue
		}
		rel := filepath.ToSlash(path[off:])
		for i := len(n.pats) - 1; i >= 0; i-- {
			if p := &n.pats[i]; p.match(rel, name, isDir) {
				return !p.negate
			}
		}
	}
	return false
}

// Names of the files and directories the walker treats specially.
const (
	ignoreFile = ".gitignore"
	gitDir     = ".git"
)

// isVCSDir reports whether a directory named name holds version-control
// metadata, which is never walked.
func isVCSDir(name string) bool {
	return name == ".git" || name == ".hg" || name == ".svn"
}

// with returns r extended by the patterns of an ignore file in dir whose
// content is data, or r itself when there are none.
func (r *rules) with(dir string, data []byte) *rules {
	pats := parseIgnore(data)
	if len(pats) == 0 {
		return r
	}
	return &rules{parent: r, dir: dir, pats: pats}
}

// withIgnoreFile returns r extended by the .gitignore of dir.
func (r *rules) withIgnoreFile(dir string, skip func(string, bool) bool) *rules {
	return r.with(dir, readConfig(filepath.Join(dir, ignoreFile), skip))
}

// repoRules starts the chain of a repository rooted at dir with its
// .git/info/exclude, or returns nil when it has none.
func repoRules(dir string, skip func(string, bool) bool) *rules {
	return (*rules)(nil).with(dir, readConfig(filepath.Join(gitCommonDir(dir, skip), "info", "exclude"), skip))
}

// gitCommonDir returns the git directory of the repository whose work
// tree is dir. A linked worktree or a submodule has a ".git" file naming
// its git directory, and a worktree's shares info/exclude with the main
// repository through its "commondir" file.
func gitCommonDir(dir string, skip func(string, bool) bool) string {
	dotgit := filepath.Join(dir, gitDir)
	data := readConfig(dotgit, skip)
	if data == nil {
		// A directory (the usual case) or nothing readable.
		return dotgit
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gd, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return dotgit
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(dir, gd)
	}
	if c := readConfig(filepath.Join(gd, "commondir"), skip); c != nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gd, common)
		}
		return filepath.Clean(common)
	}
	return gd
}

// isRepoRoot reports whether dir is the top of a git work tree.
func isRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, gitDir))
	return err == nil
}

// loadRules builds the rules in force for the entries of dir, reading the
// ignore files of its ancestors from the enclosing repository's root, or
// from ceiling when dir is in no repository (ceiling must contain dir;
// empty means dir itself). Walks pass dir's real path. It also reports whether dir, or a directory
// between it and that top, is itself ignored.
func loadRules(dir, ceiling string, skip func(string, bool) bool) (r *rules, ignored bool) {
	dir = filepath.Clean(dir)
	top := ""
	for d := dir; ; {
		if isRepoRoot(d) {
			top = d
			r = repoRules(d, skip)
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if top == "" {
		top = dir
		if ceiling != "" {
			c := filepath.Clean(ceiling)
			if !within(dir, c) {
				// dir is a real path; the ceiling may not be.
				if real, err := filepath.EvalSymlinks(c); err == nil {
					c = real
				}
			}
			if within(dir, c) {
				top = c
			}
		}
	}
	// Descend from top to dir, adding each directory's ignore file and
	// checking each step against the rules above it.
	r = r.withIgnoreFile(top, skip)
	cur := top
	for cur != dir {
		rest := strings.TrimPrefix(dir[len(cur):], string(filepath.Separator))
		next, _, _ := strings.Cut(rest, string(filepath.Separator))
		cur = filepath.Join(cur, next)
		if r.ignored(cur, true) {
			ignored = true
		}
		r = r.withIgnoreFile(cur, skip)
	}
	return r, ignored
}

// within reports whether path is root or below it. Both are clean.
func within(path, root string) bool {
	if path == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(path, root)
}

// Dir answers which entries of one directory are ignored, for listings
// that show a single level. Its zero value ignores nothing.
type Dir struct {
	path    string
	rules   *rules
	ignored bool
}

// LoadDir reads the ignore rules that apply to the entries of dir: its
// own .gitignore, those of its ancestors up to the repository root (or up
// to opts.Ceiling outside a repository), and the repository's
// .git/info/exclude. Only opts.Ceiling and opts.Skip are used. Give dir
// by its real path (see Open), as a walk uses its root's.
func LoadDir(dir string, opts Options) *Dir {
	r, ign := loadRules(dir, opts.Ceiling, opts.Skip)
	return &Dir{path: filepath.Clean(dir), rules: r, ignored: ign}
}

// Ignored reports whether the directory itself is ignored: it, or a
// directory above it, is excluded by the rules of its ancestors. A walk
// started there still searches it, as ripgrep searches a path it is
// given explicitly.
func (d *Dir) Ignored() bool { return d.ignored }

// IgnoredEntry reports whether the directory's entry called name is
// excluded by the ignore rules; isDir says whether it is a directory,
// which matters for patterns ending in '/'.
func (d *Dir) IgnoredEntry(name string, isDir bool) bool {
	if d.rules == nil {
		return false
	}
	return d.rules.ignored(filepath.Join(d.path, name), isDir)
}

// Ignored reports whether path would be left out of a walk of the
// repository (or, outside one, of opts.Ceiling) that holds it: it, or a
// directory above it, is excluded by an ignore file or lies in a
// version-control directory.
func Ignored(path string, isDir bool, opts Options) bool {
	path = filepath.Clean(path)
	for d := path; ; {
		if isVCSDir(filepath.Base(d)) && (d != path || isDir) {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	dir := filepath.Dir(path)
	if dir == path {
		return false
	}
	r, ign := loadRules(dir, opts.Ceiling, opts.Skip)
	return ign || r.ignored(path, isDir)
}
