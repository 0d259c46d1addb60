package builtin

import (
	"encoding/json"
	"slices"

	"github.com/reasonix/reasonix/tools"
)

// The tools that read files they name declare them (tools.FileReader),
// so the permission rules about reading judge those files, and where
// their links lead, before the call runs.

// readArg decodes a call's arguments as T and returns the one path it
// reads, named by at; an empty path is the workspace root, which the
// tools with an optional path read by default.
func readArg[T any](raw json.RawMessage, at func(*T) string) ([]string, error) {
	var args T
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	return []string{at(&args)}, nil
}

var (
	_ tools.FileReader = readFile{}
	_ tools.FileReader = lsTool{}
	_ tools.FileReader = globTool{}
	_ tools.FileReader = grepTool{}
	_ tools.FileReader = editFile{}
	_ tools.FileReader = multiEdit{}
	_ tools.FileReader = moveFile{}
	_ tools.FileReader = applyPatch{}
	_ tools.FileReader = projectGraph{}
	_ tools.FileReader = renameSymbol{}
	_ tools.FileReader = bash{}
)

func (readFile) ReadPaths(raw json.RawMessage) ([]string, error) {
	return readArg(raw, func(a *readFileArgs) string { return a.Path })
}

func (lsTool) ReadPaths(raw json.RawMessage) ([]string, error) {
	return readArg(raw, func(a *lsArgs) string { return a.Path })
}

func (globTool) ReadPaths(raw json.RawMessage) ([]string, error) {
	return readArg(raw, func(a *globArgs) string { return a.Path })
}

func (grepTool) ReadPaths(raw json.RawMessage) ([]string, error) {
	return readArg(raw, func(a *grepArgs) string { return a.Path })
}

// An edit matches its old text against the file: an answer such as "not
// found" or "appears twice" would read a file no tool may read.
func (editFile) ReadPaths(raw json.RawMessage) ([]string, error) {
	return readArg(raw, func(a *editFileArgs) string { return a.Path })
}

func (multiEdit) ReadPaths(raw json.RawMessage) ([]string, error) {
	return readArg(raw, func(a *multiEditArgs) string { return a.Path })
}

// A move carries the source's content to a name the rules may not
// cover; the destination is only written.
func (moveFile) ReadPaths(raw json.RawMessage) ([]string, error) {
	return readArg(raw, func(a *moveFileArgs) string { return a.Source })
}

func (projectGraph) ReadPaths(raw json.RawMessage) ([]string, error) {
	p, err := readArg(raw, func(a *projectGraphArgs) string { return a.Path })
	if err != nil || p[0] == "" {
		return nil, err // a question about a symbol names no file
	}
	return p, nil
}

// A rename reads the name at its position, and may say it back.
func (renameSymbol) ReadPaths(raw json.RawMessage) ([]string, error) {
	return readArg(raw, func(a *renameSymbolArgs) string { return a.Path })
}

// ReadPaths lists every file a section reads: what it modifies or
// deletes (matched against its hunks) and the source of a rename or a
// copy. A created file and the new name of a rename or a copy are only
// written.
func (applyPatch) ReadPaths(raw json.RawMessage) ([]string, error) {
	files, err := patchOf(raw)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		names := []string{f.oldName}
		switch {
		case f.create:
			names = nil
		case f.rename || f.copy || f.delete:
		default:
			names = append(names, f.newName)
		}
		for _, n := range names {
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out, nil
}
