package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// Project memory in subdirectories. A REASONIX.md, AGENTS.md or CLAUDE.md
// below the workspace root speaks for the work under its directory. It
// cannot join the system prompt, which is fixed when the session starts
// (the cached prefix), so it is attached to the result of the first tool
// call that reads or changes something under that directory, once per
// session, outermost directory first. It is read as the read tools read:
// from the editor's buffer when one holds it, else opened on the disk and
// judged by its real path, which must lie inside the workspace and outside
// forbid_read, so a link planted as sub/AGENTS.md carries nothing in.

// nestedMemory is the part of a session's memory files it has met: the
// root's (in the system prompt) and those attached since.
type nestedMemory struct {
	mu sync.Mutex // guards the fields below
	// seeded is set once the root's files are in seen.
	seeded bool
	// seen holds the real paths and texts of the files read, so that a
	// file is attached once and a copy of one not at all.
	seen memorySeen
	// tried holds the paths of the files attached or refused, as spelt
	// from the workspace root.
	tried map[string]bool
}

// errOutsideWorkspace refuses a nested memory file whose real path leaves
// the workspace.
var errOutsideWorkspace = errors.New("outside the workspace")

// nestedMemoryFor returns what the call taught of the memory files of the
// directories it touched: the text to append to its result, empty when
// nothing is new.
func (t *turn) nestedMemoryFor(tool tools.Tool, args json.RawMessage, changed []string) string {
	env := t.a.Env
	if env == nil || isThirdParty(tool) {
		return "" // a plugin's "path" may mean anything
	}
	var b strings.Builder
	for _, dir := range touchedDirs(env, tool, args, changed) {
		for _, name := range MemoryFiles {
			path := filepath.Join(dir, name)
			text, ok := t.s.nested.read(env, path)
			if !ok {
				continue
			}
			rel := env.Rel(path)
			fmt.Fprintf(&b, "\n\n<project-memory path=%q>\nProject memory for %s/ (it applies to work under that directory, with the workspace's; attached once):\n%s\n</project-memory>",
				rel, env.Rel(dir), text)
		}
	}
	return b.String()
}

// read returns the memory file at path, unless it was met before (this
// file, or one with the same text), is missing or empty, or may not be
// read.
func (m *nestedMemory) read(env *tools.Env, path string) (string, bool) {
	// No one asks for a memory file: one a rule about reading asks
	// about is not read either.
	check := func(real string) error {
		if !within(env.Root, real) {
			return errOutsideWorkspace
		}
		return env.CheckReadUnasked(real)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.seeded {
		m.seeded = true
		for _, name := range MemoryFiles {
			m.seen.read(filepath.Join(env.Root, name), env.CheckReadUnasked)
		}
	}
	if m.tried[path] {
		return "", false
	}
	data, held, err := env.Held(path)
	real := path
	if held && err == nil {
		err = env.CheckReadUnasked(path) // an editor's buffer of a forbidden file
	} else if !held {
		data, real, err = readMemory(path, check)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", false // it may yet be written
	}
	if m.tried == nil {
		m.tried = map[string]bool{}
	}
	m.tried[path] = true
	if err != nil {
		return "", false
	}
	return m.seen.add(real, data)
}

// touchedDirs lists the directories below the root, outermost first,
// that hold what a call read or changed: the paths in its arguments, the
// paths a file-changing tool declares, and the files it changed.
func touchedDirs(env *tools.Env, tool tools.Tool, args json.RawMessage, changed []string) []string {
	var paths []string
	var m map[string]any
	json.Unmarshal(args, &m)
	for _, k := range []string{"path", "file_path", "source", "destination"} {
		if s, ok := m[k].(string); ok && s != "" {
			paths = append(paths, s)
		}
	}
	if fc, ok := tool.(tools.FileChanger); ok {
		if ps, err := fc.ChangedPaths(args); err == nil {
			paths = append(paths, ps...)
		}
	}
	paths = append(paths, changed...)

	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		abs := env.Abs(p)
		dir := abs
		if fi, err := env.FS.Stat(abs); err != nil || !fi.IsDir() {
			dir = filepath.Dir(abs)
		}
		rel, err := filepath.Rel(env.Root, dir)
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			continue // the root's files are in the system prompt
		}
		d := env.Root
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			d = filepath.Join(d, part)
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// within reports whether path is root or lies below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// attachedMemory matches the attachments in a resumed session's log: the
// file's path, and its text after the line that introduces it.
var attachedMemory = regexp.MustCompile(`(?s)<project-memory path="([^"]+)">\n[^\n]*\n(.*?)\n</project-memory>`)

// rebase forgets what it met when a compaction replaced the log with
// view: the memory files attached to folded tool results are no longer
// in the context, so the next call that touches their directories
// attaches them again; those the view still carries count as attached.
func (m *nestedMemory) rebase(env *tools.Env, view []provider.Message) {
	m.mu.Lock()
	m.seeded, m.seen, m.tried = false, memorySeen{}, nil
	m.mu.Unlock()
	m.resume(env, view)
}

// resume marks the memory files a resumed session's log already
// carries, so they are not attached again.
func (m *nestedMemory) resume(env *tools.Env, msgs []provider.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range msgs {
		if msg.Role != provider.RoleTool {
			continue
		}
		for _, sub := range attachedMemory.FindAllStringSubmatch(msg.Content, -1) {
			if m.tried == nil {
				m.tried = map[string]bool{}
			}
			m.tried[env.Abs(sub[1])] = true
			m.seen.add(env.Abs(sub[1]), []byte(sub[2]))
		}
	}
}
