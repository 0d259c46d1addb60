package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed apply_patch.md
var applyPatchDescription string

type applyPatchArgs struct {
	Patch string `json:"patch"`
}

// applyPatch applies a unified diff that may touch several files. It is
// all-or-nothing: every section is parsed, checked against the sandbox and
// applied in memory first, and only a patch without problems reaches the
// FS, in one Apply call.
type applyPatch struct{}

var (
	_ tools.Tool        = applyPatch{}
	_ tools.FileChanger = applyPatch{}
)

func init() { tools.RegisterBuiltin(applyPatch{}) }

func (applyPatch) Name() string        { return "apply_patch" }
func (applyPatch) Description() string { return applyPatchDescription }
func (applyPatch) ReadOnly() bool      { return false }

var applyPatchSchema = schema(`{
	"type": "object",
	"properties": {
		"patch": {"type": "string", "description": "A unified diff (as git diff or diff -u prints it); it may change several files."}
	},
	"required": ["patch"],
	"additionalProperties": false
}`)

func (applyPatch) Schema() json.RawMessage { return applyPatchSchema }

// patchOf decodes the arguments and parses the patch. ChangedPaths and
// Execute both read a call with it, so the paths the permission rules
// judge are the paths the patch changes.
func patchOf(raw json.RawMessage) ([]*filePatch, error) {
	var args applyPatchArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.Patch) == "" {
		return nil, errors.New("patch is required")
	}
	files, err := parsePatch(args.Patch)
	if err != nil {
		return nil, fmt.Errorf("%v\nNo file was changed.", err)
	}
	return files, nil
}

// ChangedPaths lists every name of every section: what it modifies,
// creates or deletes, and both names of a rename or copy (a modifying
// section with two names may change either).
func (applyPatch) ChangedPaths(raw json.RawMessage) ([]string, error) {
	files, err := patchOf(raw)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		for _, name := range []string{f.oldName, f.newName} {
			if name != "" && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out, nil
}

func (applyPatch) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	files, err := patchOf(raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	plan := &patchPlan{env: env, owner: make(map[string]*fileEdit)}
	var problems []string
	for _, f := range files {
		if err := plan.add(f); err != nil {
			problems = append(problems, err.Error())
		}
	}
	switch len(problems) {
	case 0:
	case 1:
		return tools.Errorf("%s\nNo file was changed; fix the patch and send all of it again.", problems[0]), nil
	default:
		return tools.Errorf("the patch has %d problems; no file was changed. Fix them and send all of it again.\n- %s", len(problems), strings.Join(problems, "\n- ")), nil
	}
	if err := env.FS.Apply(ctx, plan.changes()); err != nil {
		if errors.Is(err, tools.ErrNotPermitted) {
			return tools.Errorf("%v\nNo file was changed.", err), nil
		}
		return tools.Result{}, fmt.Errorf("apply_patch: %w", err)
	}
	return plan.report(), nil
}

// A fileEdit is what one section of the patch does to the workspace,
// worked out in memory before anything is written.
type fileEdit struct {
	op            byte   // 'M', 'A', 'D', 'R' (rename) or 'C' (copy)
	name, newName string // as the patch names them; newName for R and C
	path, newPath string // the real paths the sandbox resolved them to
	// content is the file's new text, written to path (M, A) or newPath
	// (R, C) when write is set.
	content        string
	write          bool
	added, removed int
}

// A patchPlan collects the edits of a patch.
type patchPlan struct {
	env   *tools.Env
	edits []*fileEdit
	// owner maps each real path an edit touches to that edit, so two
	// sections cannot pull one file in different directions.
	owner map[string]*fileEdit
	notes []string
}

// add works out the edit of one section. Its errors are worded for the
// model and start with the file's name.
func (pl *patchPlan) add(f *filePatch) error {
	switch {
	case f.binary:
		return fmt.Errorf("%s: binary patches are not supported", f.name())
	case f.rename || f.copy:
		return pl.move(f)
	case f.create:
		return pl.create(f)
	case f.delete:
		return pl.remove(f)
	}
	return pl.modify(f)
}

func (pl *patchPlan) modify(f *filePatch) error {
	name, path, err := pl.target(f)
	if err != nil {
		return err
	}
	if prev := pl.owner[path]; prev != nil && (prev.op == 'M' || prev.op == 'A') {
		// A second section for the same file: models sometimes split one
		// file's hunks this way. Apply it on top of the first.
		content, err := applyHunks(prev.content, f.hunks)
		if err != nil {
			return fmt.Errorf("%s (second section, at line %d of the patch): %v", name, f.line, err)
		}
		a, r := countLines(f.hunks)
		prev.content, prev.added, prev.removed = content, prev.added+a, prev.removed+r
		return nil
	}
	if err := pl.claim(name, f, path); err != nil {
		return err
	}
	if len(f.hunks) == 0 {
		if f.modeChange {
			pl.notes = append(pl.notes, fmt.Sprintf("%s: mode change ignored; apply_patch does not change file modes", name))
			return nil
		}
		return fmt.Errorf("%s: the section has no hunks", name)
	}
	data, err := pl.read(name, path)
	if err != nil {
		return err
	}
	content, err := applyHunks(data, f.hunks)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	e := &fileEdit{op: 'M', name: name, path: path, content: content, write: true}
	e.added, e.removed = countLines(f.hunks)
	pl.edits = append(pl.edits, e)
	pl.owner[path] = e
	return nil
}

// target picks the file a modifying section changes. Its two names differ
// in diffs like `diff -u x.orig x`; as patch(1) does, it takes the new
// name if that file exists, and the old one otherwise.
func (pl *patchPlan) target(f *filePatch) (name, path string, err error) {
	names := []string{f.newName}
	if f.oldName != "" && f.oldName != f.newName {
		names = append(names, f.oldName)
	}
	for _, n := range names {
		abs, err := pl.env.ReadPath(n)
		if err != nil {
			return "", "", fmt.Errorf("%s: %v", n, err)
		}
		if _, err := pl.env.FS.Stat(abs); err == nil {
			path, err := pl.env.WritePath(n)
			if err != nil {
				return "", "", fmt.Errorf("%s: %v", n, err)
			}
			return n, path, nil
		}
	}
	msg := fmt.Sprintf("%s does not exist", f.newName)
	if hint := similarNames(pl.env, pl.env.Abs(f.newName)); hint != "" {
		msg += "; did you mean " + hint + "?"
	}
	if onlyAdds(f.hunks) {
		msg += " To create it, start its section with `--- /dev/null`."
	}
	return "", "", errors.New(msg)
}

func (pl *patchPlan) create(f *filePatch) error {
	name := f.newName
	path, err := pl.env.WritePath(name)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if ok, err := pl.exists(name, path); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("%s already exists, but the patch creates it (--- /dev/null); to change it, diff against its current content (--- a/%s)", name, name)
	}
	if err := pl.claim(name, f, path); err != nil {
		return err
	}
	content, err := newFileContent(f.hunks)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	e := &fileEdit{op: 'A', name: name, path: path, content: content, write: true}
	e.added, e.removed = countLines(f.hunks)
	pl.edits = append(pl.edits, e)
	pl.owner[path] = e
	return nil
}

// remove plans a deletion. Hunks, if the section has any, must match the
// file: a patch written against other content should not delete it.
func (pl *patchPlan) remove(f *filePatch) error {
	name := f.oldName
	path, err := pl.env.WritePath(name)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if err := pl.claim(name, f, path); err != nil {
		return err
	}
	data, err := pl.read(name, path)
	if err != nil {
		return err
	}
	if _, err := applyHunks(data, f.hunks); err != nil {
		return fmt.Errorf("%s: the patch deletes it, but %v", name, err)
	}
	e := &fileEdit{op: 'D', name: name, path: path}
	pl.edits = append(pl.edits, e)
	pl.owner[path] = e
	return nil
}

// move plans a rename or a copy, with the section's hunks applied to the
// content at the new path.
func (pl *patchPlan) move(f *filePatch) error {
	e := &fileEdit{op: 'R', name: f.oldName, newName: f.newName}
	if f.copy {
		e.op = 'C'
	}
	if f.oldName == "" || f.newName == "" {
		return fmt.Errorf("line %d: a rename or copy needs both a from and a to path", f.line)
	}
	var err error
	if e.op == 'R' {
		e.path, err = pl.env.WritePath(f.oldName)
	} else {
		e.path, err = pl.env.ReadPath(f.oldName)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", f.oldName, err)
	}
	if e.newPath, err = pl.env.WritePath(f.newName); err != nil {
		return fmt.Errorf("%s: %v", f.newName, err)
	}
	data, err := pl.read(f.oldName, e.path)
	if err != nil {
		return err
	}
	if ok, err := pl.exists(f.newName, e.newPath); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("%s already exists, so %s cannot be renamed or copied to it", f.newName, f.oldName)
	}
	if e.op == 'R' {
		if err := pl.claim(f.oldName, f, e.path); err != nil {
			return err
		}
	}
	if err := pl.claim(f.newName, f, e.newPath); err != nil {
		return err
	}
	e.content, e.write = data, e.op == 'C'
	if len(f.hunks) > 0 {
		if e.content, err = applyHunks(data, f.hunks); err != nil {
			return fmt.Errorf("%s (renamed to %s): %v", f.oldName, f.newName, err)
		}
		e.write = true
		e.added, e.removed = countLines(f.hunks)
	}
	pl.edits = append(pl.edits, e)
	pl.owner[e.path] = e
	pl.owner[e.newPath] = e
	return nil
}

// claim records that section f touches path, refusing a path an earlier
// section already touches: the order of such changes would be a guess.
func (pl *patchPlan) claim(name string, f *filePatch, path string) error {
	if pl.owner[path] != nil {
		return fmt.Errorf("%s (section at line %d of the patch): an earlier section already changes this file; put all of a file's changes in one section", name, f.line)
	}
	return nil
}

func (pl *patchPlan) exists(name, path string) (bool, error) {
	_, err := pl.env.FS.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("%s: %v", name, err)
}

// read returns the current text of a file through the FS, which serves
// the editor's unsaved buffers when there is an editor.
func (pl *patchPlan) read(name, path string) (string, error) {
	if _, err := pl.env.ReadPath(path); err != nil {
		return "", fmt.Errorf("%s: %v", name, err)
	}
	if fi, err := pl.env.FS.Stat(path); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%s is a directory", name)
	}
	data, err := pl.env.ReadConfined(path)
	if errors.Is(err, fs.ErrNotExist) {
		msg := fmt.Sprintf("%s does not exist", name)
		if hint := similarNames(pl.env, path); hint != "" {
			msg += "; did you mean " + hint + "?"
		}
		return "", errors.New(msg)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %v", name, err)
	}
	if tools.IsBinary(data) {
		return "", fmt.Errorf("%s is a binary file; apply_patch changes text files only", name)
	}
	return string(data), nil
}

// changes lists the plan as FS changes: deletions first, then renames,
// then writes, so a path freed by one section can be reused by another
// (a file replaced by a directory, a rename into a deleted file's place).
func (pl *patchPlan) changes() []tools.Change {
	var dels, moves, writes []tools.Change
	for _, e := range pl.edits {
		switch e.op {
		case 'D':
			dels = append(dels, tools.Change{Kind: tools.Delete, Path: e.path})
		case 'R':
			moves = append(moves, tools.Change{Kind: tools.Rename, Path: e.path, NewPath: e.newPath})
		}
		switch {
		case !e.write:
		case e.op == 'R' || e.op == 'C':
			writes = append(writes, tools.Change{Kind: tools.Write, Path: e.newPath, Content: []byte(e.content)})
		default:
			writes = append(writes, tools.Change{Kind: tools.Write, Path: e.path, Content: []byte(e.content)})
		}
	}
	return append(append(dels, moves...), writes...)
}

// report describes the applied plan, one line per file in patch order.
func (pl *patchPlan) report() tools.Result {
	var b strings.Builder
	var changed []string
	for _, e := range pl.edits {
		switch e.op {
		case 'M':
			fmt.Fprintf(&b, "M %s (+%d -%d)\n", e.name, e.added, e.removed)
			changed = append(changed, e.path)
		case 'A':
			fmt.Fprintf(&b, "A %s\n", e.name)
			changed = append(changed, e.path)
		case 'D':
			fmt.Fprintf(&b, "D %s\n", e.name)
			changed = append(changed, e.path)
		case 'R', 'C':
			fmt.Fprintf(&b, "%c %s -> %s", e.op, e.name, e.newName)
			if e.added+e.removed > 0 {
				fmt.Fprintf(&b, " (+%d -%d)", e.added, e.removed)
			}
			b.WriteString("\n")
			if e.op == 'R' {
				changed = append(changed, e.path)
			}
			changed = append(changed, e.newPath)
		}
	}
	for _, n := range pl.notes {
		b.WriteString(n + "\n")
	}
	summary := fmt.Sprintf("%d files changed", len(pl.edits))
	if len(pl.edits) == 1 {
		summary = "1 file changed"
	}
	return tools.Result{Content: "Applied the patch: " + summary + ".\n" + b.String(), Summary: summary, Changed: changed}
}

// countLines totals the lines hunks add and remove.
func countLines(hunks []*hunk) (added, removed int) {
	for _, h := range hunks {
		a, r := h.counts()
		added, removed = added+a, removed+r
	}
	return added, removed
}

// onlyAdds reports whether hunks add lines without expecting any.
func onlyAdds(hunks []*hunk) bool {
	for _, h := range hunks {
		if len(h.old()) > 0 {
			return false
		}
	}
	return len(hunks) > 0
}

func (applyPatch) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyWrite, Kind: tools.KindEdit}
}

func (t applyPatch) Describe(args json.RawMessage) tools.Call {
	patch := tools.ArgString(args, "patch")
	c := tools.Call{Title: t.Name(), Wording: "apply a patch to " + strings.Join(patchTargets(patch), ", ")}
	c.Writes, _ = t.ChangedPaths(args)
	c.Reads, _ = t.ReadPaths(args)
	var a applyPatchArgs
	if json.Unmarshal(args, &a) == nil {
		c.Change = fmt.Sprintf("Apply this patch:\n%s", fence(a.Patch))
	}
	return c
}

// patchTargets lists the files a unified diff's +++ lines name, for the
// question; "files" when it names none.
func patchTargets(patch string) []string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		if name, ok := strings.CutPrefix(l, "+++ "); ok {
			name = strings.TrimPrefix(strings.Fields(name + " ")[0], "b/")
			if name != "/dev/null" {
				out = append(out, name)
			}
		}
	}
	if len(out) == 0 {
		out = []string{"files"}
	}
	return out
}

// PreviewEdits applies the patch as a call would, in memory, to the
// current text of the files it changes or creates, a second section of a
// file on top of the first. A patch that renames, copies or deletes a
// file, or holds a binary section, previews nothing (its question shows
// the patch itself), nor does one that would fail.
func (applyPatch) PreviewEdits(raw json.RawMessage, current func(string) (string, bool, error)) ([]tools.FileEdit, error) {
	files, err := patchOf(raw)
	if err != nil {
		return nil, err
	}
	var out []tools.FileEdit
	at := map[string]int{} // a file's name → its edit in out
	for _, f := range files {
		if f.binary || f.rename || f.copy || f.delete {
			return nil, nil
		}
		if f.create {
			if _, existed, err := current(f.newName); err != nil || existed {
				return nil, err
			}
			content, err := newFileContent(f.hunks)
			if err != nil {
				return nil, err
			}
			at[f.newName] = len(out)
			out = append(out, tools.FileEdit{Path: f.newName, New: content})
			continue
		}
		name, text, err := previewTarget(f, current)
		if err != nil || len(f.hunks) == 0 {
			return nil, err
		}
		if i, ok := at[name]; ok {
			if out[i].New, err = applyHunks(out[i].New, f.hunks); err != nil {
				return nil, err
			}
			continue
		}
		updated, err := applyHunks(text, f.hunks)
		if err != nil {
			return nil, err
		}
		at[name] = len(out)
		out = append(out, tools.FileEdit{Path: name, Old: text, New: updated, Existed: true})
	}
	return out, nil
}

// previewTarget picks the file a modifying section changes, as target
// does: its new name if that file exists, else its old one.
func previewTarget(f *filePatch, current func(string) (string, bool, error)) (name, text string, err error) {
	names := []string{f.newName}
	if f.oldName != "" && f.oldName != f.newName {
		names = append(names, f.oldName)
	}
	for _, n := range names {
		text, existed, err := current(n)
		if err != nil {
			return "", "", err
		}
		if existed {
			return n, text, nil
		}
	}
	return "", "", fmt.Errorf("%s does not exist", f.newName)
}
