package graph

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// A renamePlan is what a server would do to rename a symbol.
type renamePlan struct {
	server string
	enc    wire.Encoding
	old    string // the name being replaced
	edit   *protocol.WorkspaceEdit
	// refused is the server's reason not to rename (an invalid name, a
	// conflict), worded by the server.
	refused error
	// collisions are declarations already named the new name in the
	// symbol's scope, for servers that rename without checking.
	collisions []*symbol
}

// planRename asks the target's server for a rename without applying it:
// prepareRename where supported, then rename.
func (m *Manager) planRename(ctx context.Context, src *source, tg *target, newName string) (*renamePlan, error) {
	plan := &renamePlan{old: tg.name}
	err := m.withServer(ctx, tg.sv, func(s *server) error {
		if err := s.sync(ctx, src, []string{tg.path}); err != nil {
			return err
		}
		plan.server, plan.enc, plan.refused, plan.edit = s.name, s.enc, nil, nil
		pos := tg.docPosition(src, s.enc)
		if s.caps.prepareRename {
			var res protocol.PrepareRenameResult
			err := s.call(ctx, "textDocument/prepareRename", &protocol.PrepareRenameParams{TextDocumentPositionParams: pos}, &res)
			if refusal(err) {
				plan.refused = err
				return nil
			}
			if err != nil {
				return err
			}
			switch r := res.(type) {
			case nil:
				plan.refused = fmt.Errorf("there is no symbol %s can rename at %s:%d:%d", s.name, m.rel(tg.path), tg.line, tg.column)
				return nil
			case *protocol.PrepareRenamePlaceholder:
				plan.old = r.Placeholder
			}
		}
		var edit protocol.WorkspaceEdit
		err := s.call(ctx, "textDocument/rename", &protocol.RenameParams{TextDocumentPositionParams: pos, NewName: newName}, &edit)
		if refusal(err) {
			plan.refused = err
			return nil
		}
		if err != nil {
			return err
		}
		plan.edit = &edit
		plan.collisions = m.collisions(ctx, src, s, tg, newName)
		return nil
	})
	return plan, err
}

// refusal reports whether err is the server's answer rather than a
// failure to get one.
func refusal(err error) bool {
	var rpc *jsonrpc2.Error
	return errors.As(err, &rpc)
}

// collisions finds declarations named newName in the scope of the symbol
// at the target: the same parent (package, class, module) and the same
// file, or for Go the same directory, which is the package. gopls checks
// this itself and refuses; pyright and typescript-language-server rename
// into a clash without a word.
func (m *Manager) collisions(ctx context.Context, src *source, s *server, tg *target, newName string) []*symbol {
	self := tg.sym
	if self == nil {
		// The declaration of the symbol at the target, which may be a use.
		defs, err := s.definition(ctx, tg.docPosition(src, s.enc))
		if err != nil || len(defs) == 0 {
			return nil
		}
		dpath, dline := m.local(defs[0].URI.FsPath()), defs[0].Range.Start.Line
		olds, err := s.symbols(ctx, tg.name)
		if err != nil {
			return nil
		}
		for _, o := range olds {
			o.path = m.local(o.path)
			if o.path == dpath && o.short == tg.name && o.namePosition(src).Line == dline {
				self = o
				break
			}
		}
		if self != nil && self.container == "" && member(self.kind) {
			s.fillContainers(ctx, src, []*symbol{self})
		}
	}
	if self == nil {
		return nil // a local name: only the server can judge
	}
	news, err := s.symbols(ctx, newName)
	if err != nil {
		return nil
	}
	for _, n := range news {
		n.path = m.local(n.path)
	}
	s.fillContainers(ctx, src, news)
	var out []*symbol
	for _, n := range news {
		sameUnit := n.path == self.path || (filepath.Ext(n.path) == ".go" && filepath.Dir(n.path) == filepath.Dir(self.path))
		if n.short == newName && sameUnit && n.container == self.container && n.qualifier == self.qualifier {
			out = append(out, n)
		}
	}
	return out
}

func (m *Manager) renameCheck(ctx context.Context, src *source, q tools.GraphQuery) (string, error) {
	if q.NewName == "" {
		return "", fmt.Errorf("rename_check needs new_name")
	}
	tg, err := m.resolve(ctx, src, q)
	if err != nil {
		return "", err
	}
	plan, err := m.planRename(ctx, src, tg, q.NewName)
	if err != nil {
		return "", err
	}
	type fileEdits struct {
		Path  string `json:"path"`
		Edits int    `json:"edits"`
	}
	res := struct {
		Symbol     string      `json:"symbol"`
		NewName    string      `json:"new_name"`
		OK         bool        `json:"ok"`
		Error      string      `json:"error,omitempty"`
		Files      int         `json:"files"`
		Edits      int         `json:"edits"`
		Changes    []fileEdits `json:"changes,omitempty"`
		Collisions []place     `json:"collisions,omitempty"`
		FileOps    []string    `json:"file_operations,omitempty"`
	}{Symbol: plan.old, NewName: q.NewName}
	if plan.refused != nil {
		res.Error = fmt.Sprintf("%s refuses: %s", plan.server, oneLine(plan.refused.Error()))
		return encode(res)
	}
	counts := map[string]int{}
	for p, n := range editCounts(plan.edit) {
		counts[m.rel(m.local(p))] += n
	}
	for _, p := range slices.Sorted(maps.Keys(counts)) {
		res.Changes = append(res.Changes, fileEdits{p, counts[p]})
		res.Edits += counts[p]
	}
	res.Files = len(res.Changes)
	for _, op := range plan.edit.DocumentChanges {
		switch c := op.(type) {
		case *protocol.CreateFile:
			res.FileOps = append(res.FileOps, "create "+m.rel(m.local(c.URI.FsPath())))
		case *protocol.RenameFile:
			res.FileOps = append(res.FileOps, "rename "+m.rel(m.local(c.OldURI.FsPath()))+" to "+m.rel(m.local(c.NewURI.FsPath())))
		case *protocol.DeleteFile:
			res.FileOps = append(res.FileOps, "delete "+m.rel(m.local(c.URI.FsPath())))
		}
	}
	for _, c := range plan.collisions {
		res.Collisions = append(res.Collisions, m.symbolPlace(src, c))
	}
	switch {
	case len(res.Collisions) > 0:
		res.Error = fmt.Sprintf("%s is already declared in the same scope", q.NewName)
	case res.Edits == 0:
		res.Error = "the server proposes no edits"
	default:
		res.OK = true
	}
	return encode(res)
}

// editCounts counts the text edits of a workspace edit per file.
func editCounts(we *protocol.WorkspaceEdit) map[string]int {
	out := map[string]int{}
	for u, edits := range we.Changes {
		out[filepath.Clean(u.FsPath())] += len(edits)
	}
	for _, dc := range we.DocumentChanges {
		if e, ok := dc.(*protocol.TextDocumentEdit); ok {
			out[filepath.Clean(e.TextDocument.URI.FsPath())] += len(e.Edits)
		}
	}
	return out
}

// Rename computes the changes renaming the symbol at a position makes,
// as whole new file contents, and a one-line summary. Nothing is written.
func (m *Manager) Rename(ctx context.Context, path string, line, column int, newName string) ([]tools.Change, string, error) {
	src := m.source()
	tg, err := m.resolve(ctx, src, tools.GraphQuery{Action: "rename", Path: m.abs(path), Line: line, Column: column})
	if err != nil {
		return nil, "", err
	}
	plan, err := m.planRename(ctx, src, tg, newName)
	if err != nil {
		return nil, "", err
	}
	if plan.refused != nil {
		return nil, "", fmt.Errorf("%s cannot rename %s to %s: %s", plan.server, plan.old, newName, oneLine(plan.refused.Error()))
	}
	if len(plan.collisions) > 0 {
		c := plan.collisions[0]
		p := m.symbolPlace(src, c)
		return nil, "", fmt.Errorf("cannot rename %s to %s: %s is already declared at %s:%d:%d", plan.old, newName, newName, p.Path, p.Line, p.Column)
	}
	changes, edits, files, err := m.workspaceChanges(src, plan.edit, plan.enc)
	if err != nil {
		return nil, "", fmt.Errorf("applying %s's rename edits: %w", plan.server, err)
	}
	if edits == 0 && len(changes) == 0 {
		return nil, "", fmt.Errorf("%s proposes no edits to rename %s", plan.server, plan.old)
	}
	var touched []string
	for _, c := range changes {
		touched = append(touched, c.Path)
		if c.NewPath != "" {
			touched = append(touched, c.NewPath)
		}
	}
	// The caller writes the files through the FS; the server hears of it
	// before the next request.
	m.FilesChanged(touched)
	return changes, fmt.Sprintf("renamed %s to %s: %s in %s", plan.old, newName, plural(edits, "edit"), plural(files, "file")), nil
}

// oneLine joins a multi-line message into one line.
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// workspaceChanges turns a workspace edit into changes for tools.FS: text
// edits are applied to the current text of each file (the editor's
// buffer, else the FS), and resource operations become file operations,
// in the edit's order. It returns the changes, the number of text edits,
// and the number of files edited.
func (m *Manager) workspaceChanges(src *source, we *protocol.WorkspaceEdit, enc wire.Encoding) ([]tools.Change, int, int, error) {
	state := map[string]*string{} // the text of each file so far; nil once gone
	get := func(p string) (string, bool, error) {
		if t, ok := state[p]; ok {
			if t == nil {
				return "", false, nil
			}
			return *t, true, nil
		}
		t, err := src.read(p)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return t, err == nil, err
	}
	var changes []tools.Change
	edited := map[string]bool{}
	edits := 0
	apply := func(p string, tes []protocol.TextEdit) error {
		cur, ok, err := get(p)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s does not exist", m.rel(p))
		}
		next, err := wire.ApplyEdits(cur, tes, enc)
		if err != nil {
			return fmt.Errorf("%s: %w", m.rel(p), err)
		}
		state[p] = &next
		changes = append(changes, tools.Change{Kind: tools.Write, Path: p, Content: []byte(next)})
		edits += len(tes)
		edited[p] = true
		return nil
	}
	for _, u := range slices.Sorted(maps.Keys(we.Changes)) {
		if err := apply(m.local(u.FsPath()), we.Changes[u]); err != nil {
			return nil, 0, 0, err
		}
	}
	for _, dc := range we.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.TextDocumentEdit:
			if err := apply(m.local(c.TextDocument.URI.FsPath()), textEdits(c.Edits)); err != nil {
				return nil, 0, 0, err
			}
		case *protocol.CreateFile:
			p := m.local(c.URI.FsPath())
			_, exists, err := get(p)
			if err != nil {
				return nil, 0, 0, err
			}
			if exists && (c.Options == nil || c.Options.Overwrite == nil || !*c.Options.Overwrite) {
				continue // ignoreIfExists, or a create that must not clobber
			}
			empty := ""
			state[p] = &empty
			changes = append(changes, tools.Change{Kind: tools.Write, Path: p, Content: []byte{}})
		case *protocol.RenameFile:
			from, to := m.local(c.OldURI.FsPath()), m.local(c.NewURI.FsPath())
			t, ok, err := get(from)
			if err != nil {
				return nil, 0, 0, err
			}
			if !ok {
				return nil, 0, 0, fmt.Errorf("%s does not exist", m.rel(from))
			}
			state[from], state[to] = nil, &t
			changes = append(changes, tools.Change{Kind: tools.Rename, Path: from, NewPath: to})
		case *protocol.DeleteFile:
			p := m.local(c.URI.FsPath())
			state[p] = nil
			changes = append(changes, tools.Change{Kind: tools.Delete, Path: p})
		}
	}
	return sortWrites(coalesce(changes)), edits, len(edited), nil
}

// sortWrites orders each run of writes between file operations by path:
// servers list independent edits in no particular order.
func sortWrites(changes []tools.Change) []tools.Change {
	for i := 0; i < len(changes); {
		j := i
		for j < len(changes) && changes[j].Kind == tools.Write {
			j++
		}
		slices.SortStableFunc(changes[i:j], func(a, b tools.Change) int { return strings.Compare(a.Path, b.Path) })
		i = j + 1
	}
	return changes
}

// coalesce drops a write that a later write to the same file replaces
// before anything else happens to that file.
func coalesce(changes []tools.Change) []tools.Change {
	keep := make([]bool, len(changes))
	later := map[string]bool{} // a later write to the path makes this one moot
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		switch c.Kind {
		case tools.Write:
			keep[i] = !later[c.Path]
			later[c.Path] = true
		default:
			keep[i] = true
			delete(later, c.Path)
			delete(later, c.NewPath)
		}
	}
	var out []tools.Change
	for i, c := range changes {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out
}
