// Package memory keeps what the agent remembers from one session to the
// next: plain Markdown files, one note a file, in two places — the user's
// (<Reasonix home>/memory/, for what holds in every project, such as the
// user's preferences) and the project's (.reasonix/memory/ in the
// workspace, for what holds in this one and may be shared with it).
//
// A note is <name>.md: an optional header of `key: value` lines between
// `---` lines, of which `description` (one line, shown in the index) is
// read, then the note itself. A file written by hand without a header is
// a note too; its first line describes it. Forgetting a note moves it to
// archive/ beside it, where it stays for people to read but is no longer
// offered to the agent.
//
// The store reads as the read tools do — each file opened first and
// judged by its real path (forbid_read) — and lists only regular files, so
// a link planted among the notes is not followed. It writes through a
// DiskFS confined beneath the user's directory and the workspace.
package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/walk"
)

// Scope says whose a note is.
type Scope string

const (
	// Project notes live in the workspace, in .reasonix/memory/.
	Project Scope = "project"
	// User notes live in Reasonix's directory and hold in every project.
	User Scope = "user"
)

// ParseScope reads a scope argument.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case Project, User:
		return Scope(s), nil
	}
	return "", fmt.Errorf("scope must be %q or %q, not %q", Project, User, s)
}

// Where a store keeps its notes, below the user's directory and the
// workspace root.
const (
	userDir    = "memory"
	projectDir = ".reasonix/memory"
	archiveDir = "archive"
)

// Limits on what one note may hold: the index is paid for on every
// request, and a note is read whole.
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 200
	MaxContentBytes   = 32 << 10
	// maxNotesPerDir bounds the notes read from one directory, so that a
	// repository that commits a flood of them costs a session little.
	maxNotesPerDir = 1000
)

// Store is the memory of one workspace and its user.
type Store struct {
	// Dirs are where each scope's notes live, absolute; a scope without
	// a directory has no notes.
	Dirs map[Scope]string
	// Disk makes the changes, confined beneath its roots.
	Disk tools.DiskFS
	// Check judges the real path of every file opened for reading; nil
	// allows everything.
	Check func(real string) error
	// now is the clock, for archive names; tests set it.
	now func() time.Time
}

// New returns the store of the user whose Reasonix directory is home and
// of the workspace at root; either may be empty. check judges reads.
func New(home, root string, check func(real string) error) *Store {
	s := &Store{Dirs: map[Scope]string{}, Check: check, now: time.Now}
	for scope, base := range map[Scope]string{User: home, Project: root} {
		if base == "" {
			continue
		}
		// The disk's roots must be free of symbolic links; the home
		// directory may not exist yet, and is made before a write.
		if real, err := filepath.EvalSymlinks(base); err == nil {
			base = real
		}
		s.Disk.Roots = append(s.Disk.Roots, base)
		rel := userDir
		if scope == Project {
			rel = projectDir
		}
		s.Dirs[scope] = filepath.Join(base, filepath.FromSlash(rel))
	}
	slices.Sort(s.Disk.Roots)
	return s
}

// ForEnv returns the store of a tool call's environment: the workspace
// root's and Reasonix's home's, reads judged by its guard.
func ForEnv(env *tools.Env) *Store { return New(env.Home, env.Root, env.CheckRead) }

// Entry is one note.
type Entry struct {
	Scope       Scope  `json:"scope"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the file, absolute.
	Path     string    `json:"path"`
	Archived bool      `json:"archived,omitempty"`
	Updated  time.Time `json:"updated"`
	// Content is the note without its header.
	Content string `json:"content"`
}

// ID names a note for people and the model: "project/go-style".
func (e Entry) ID() string { return string(e.Scope) + "/" + e.Name }

// scopes lists the scopes the store has, project first: a project's notes
// are the more specific.
func (s *Store) scopes() []Scope {
	var out []Scope
	for _, sc := range []Scope{Project, User} {
		if s.Dirs[sc] != "" {
			out = append(out, sc)
		}
	}
	return out
}

// List returns the notes, project first, each scope's by name; with
// archived, the archived notes follow each scope's active ones. A scope
// whose directory does not exist has none; one that cannot be read is an
// error, after the notes that could be.
func (s *Store) List(archived bool) ([]Entry, error) {
	var out []Entry
	var errs []error
	for _, sc := range s.scopes() {
		dirs := []string{s.Dirs[sc]}
		if archived {
			dirs = append(dirs, filepath.Join(s.Dirs[sc], archiveDir))
		}
		for i, dir := range dirs {
			es, err := s.listDir(sc, dir, i == 1)
			if err != nil {
				errs = append(errs, err)
			}
			out = append(out, es...)
		}
	}
	return out, errors.Join(errs...)
}

// listDir reads the notes of one directory. The directory is opened and
// judged by its real path, so a .reasonix/memory that links into a
// forbidden directory lists nothing.
func (s *Store) listDir(sc Scope, dir string, archived bool) ([]Entry, error) {
	d, err := walk.Open(dir, s.Check)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("memory: %s: %w", dir, err)
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
	var out []Entry
	var tooMany error
	seen := 0
	for _, de := range ents {
		stem, ok := strings.CutSuffix(de.Name(), ".md")
		if !ok || !de.Type().IsRegular() {
			continue // a link or a directory is not a note
		}
		if seen++; seen > maxNotesPerDir {
			tooMany = fmt.Errorf("memory: %s holds more than %d notes; the rest are not read", dir, maxNotesPerDir)
			break
		}
		name := stem
		if archived {
			// name.20261124-210000.md: archived at that time.
			name, _, _ = strings.Cut(stem, ".")
		}
		if _, err := CheckName(name); err != nil {
			continue
		}
		e, err := s.read(sc, name, filepath.Join(dir, de.Name()))
		if err != nil {
			continue // forbidden, or gone meanwhile
		}
		e.Archived = archived
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return cmp.Compare(a.Name, b.Name) })
	return out, tooMany
}

// read reads the note at path.
func (s *Store) read(sc Scope, name, path string) (Entry, error) {
	f, err := walk.Open(path, s.Check)
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Entry{}, err
	}
	if !info.Mode().IsRegular() {
		return Entry{}, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := walk.ReadAll(f, nil, 4*MaxContentBytes)
	if err != nil {
		return Entry{}, err
	}
	desc, body := Parse(string(data))
	return Entry{Scope: sc, Name: name, Description: desc, Path: path, Updated: info.ModTime(), Content: body}, nil
}

// ErrNotFound is returned for a note that does not exist.
var ErrNotFound = errors.New("no such note")

// Get returns the active note name of scope.
func (s *Store) Get(sc Scope, name string) (Entry, error) {
	dir := s.Dirs[sc]
	if dir == "" {
		return Entry{}, fmt.Errorf("%s/%s: %w (there is no %s memory here)", sc, name, ErrNotFound, sc)
	}
	path := filepath.Join(dir, name+".md")
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
		return Entry{}, fmt.Errorf("%s/%s: %w", sc, name, ErrNotFound)
	}
	e, err := s.read(sc, name, path)
	if err != nil {
		return Entry{}, fmt.Errorf("%s/%s: %w", sc, name, err)
	}
	return e, nil
}

// Find returns the active notes called name: of scope, or of every scope
// when scope is empty.
func (s *Store) Find(sc Scope, name string) []Entry {
	var out []Entry
	for _, c := range s.scopes() {
		if sc != "" && c != sc {
			continue
		}
		if e, err := s.Get(c, name); err == nil {
			out = append(out, e)
		}
	}
	return out
}

// CheckName normalises a note's name — lower case, blanks as dashes — and
// says what is wrong with it: a name is a file name on every system, made
// of letters, digits, '-' and '_'.
func CheckName(name string) (string, error) {
	n := strings.ToLower(strings.Join(strings.Fields(name), "-"))
	if n == "" {
		return "", errors.New("name is required")
	}
	if len(n) > MaxNameLen {
		return "", fmt.Errorf("name is longer than %d characters", MaxNameLen)
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return "", fmt.Errorf("name %q may hold only letters, digits, '-' and '_' (such as \"go-style\")", name)
		}
	}
	if n[0] == '-' || n[0] == '_' {
		return "", fmt.Errorf("name %q must start with a letter or a digit", name)
	}
	return n, nil
}

// Note is a note about to be saved.
type Note struct {
	Scope       Scope
	Name        string
	Description string
	Content     string
}

// Check validates a note and normalises its name.
func (n *Note) Check() error {
	name, err := CheckName(n.Name)
	if err != nil {
		return err
	}
	n.Name = name
	n.Description = strings.TrimSpace(n.Description)
	switch {
	case n.Description == "":
		return errors.New("description is required: one line saying what the note is about")
	case strings.ContainsAny(n.Description, "\r\n"):
		return errors.New("description must be one line")
	case len(n.Description) > MaxDescriptionLen:
		return fmt.Errorf("description is longer than %d characters", MaxDescriptionLen)
	case strings.TrimSpace(n.Content) == "":
		return errors.New("content is required")
	case len(n.Content) > MaxContentBytes:
		return fmt.Errorf("content is longer than %d KiB: keep a note to what is worth remembering", MaxContentBytes>>10)
	}
	return nil
}

// Path is where the note is saved; empty when its scope has no
// directory.
func (s *Store) Path(sc Scope, name string) string {
	if s.Dirs[sc] == "" {
		return ""
	}
	return filepath.Join(s.Dirs[sc], name+".md")
}

// Save writes the note, replacing one of the same name and scope, and
// returns its path.
func (s *Store) Save(ctx context.Context, n Note) (string, error) {
	if err := n.Check(); err != nil {
		return "", err
	}
	path := s.Path(n.Scope, n.Name)
	if path == "" {
		return "", fmt.Errorf("there is no %s memory here", n.Scope)
	}
	if err := s.makeRoots(); err != nil {
		return "", err
	}
	err := s.Disk.Apply(ctx, []tools.Change{{Kind: tools.Write, Path: path, Content: Format(n.Description, n.Content), Mode: 0o600}})
	if err != nil {
		return "", fmt.Errorf("memory: %w", err)
	}
	return path, nil
}

// Archive moves the active note to archive/ beside it, under a name that
// says when, and returns the new path.
func (s *Store) Archive(ctx context.Context, sc Scope, name string) (string, error) {
	e, err := s.Get(sc, name)
	if err != nil {
		return "", err
	}
	dest := s.ArchivePath(sc, name)
	for i := 2; ; i++ {
		if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dest = strings.TrimSuffix(s.ArchivePath(sc, name), ".md") + fmt.Sprintf("-%d.md", i)
	}
	if err := s.Disk.Apply(ctx, []tools.Change{{Kind: tools.Rename, Path: e.Path, NewPath: dest}}); err != nil {
		return "", fmt.Errorf("memory: %w", err)
	}
	return dest, nil
}

// ArchivePath is where Archive would move a note now.
func (s *Store) ArchivePath(sc Scope, name string) string {
	return filepath.Join(s.Dirs[sc], archiveDir, name+"."+s.now().UTC().Format("20060102-150405")+".md")
}

// makeRoots makes the roots that do not exist yet (a fresh Reasonix
// home): the disk writes only beneath existing ones.
func (s *Store) makeRoots() error {
	for _, r := range s.Disk.Roots {
		if err := os.MkdirAll(r, 0o700); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	return nil
}

// Format renders a note as its file holds it.
func Format(description, content string) []byte {
	return []byte("---\ndescription: " + description + "\n---\n\n" + strings.TrimSpace(content) + "\n")
}

// Parse splits a note's file into its description and its content. A
// file without a header is all content, described by its first line.
func Parse(text string) (description, content string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if header, body, ok := strings.Cut(rest, "\n---\n"); ok {
			for _, line := range strings.Split(header, "\n") {
				if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "description" {
					description = strings.TrimSpace(v)
				}
			}
			text = body
		}
	}
	content = strings.TrimSpace(text)
	if description == "" {
		first, _, _ := strings.Cut(content, "\n")
		description = strings.TrimSpace(strings.TrimLeft(first, "# "))
	}
	return clipRunes(description, MaxDescriptionLen), content
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
