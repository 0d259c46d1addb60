package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed edit_file.md
var editFileDescription string

type editFileArgs struct {
	Path string `json:"path"`
	edit
}

func (a *editFileArgs) check() error {
	if a.Path == "" {
		return errors.New("path is required")
	}
	return nil
}

type editFile struct{}

var _ tools.FileChanger = editFile{}

func init() { tools.RegisterBuiltin(editFile{}) }

func (editFile) Name() string        { return "edit_file" }
func (editFile) Description() string { return editFileDescription }
func (editFile) ReadOnly() bool      { return false }

var editFileSchema = schema(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "File to edit."},
		"old_string": {"type": "string", "description": "The exact text to replace."},
		"new_string": {"type": "string", "description": "The text to put in its place."},
		"replace_all": {"type": "boolean", "description": "Replace every occurrence instead of exactly one. Default false."}
	},
	"required": ["path", "old_string", "new_string"],
	"additionalProperties": false
}`)

func (editFile) Schema() json.RawMessage { return editFileSchema }

func (editFile) ChangedPaths(raw json.RawMessage) ([]string, error) {
	args, err := decodeArgs[editFileArgs](raw)
	return []string{args.Path}, err
}

func (editFile) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[editFileArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	abs, content, missing, fail := loadForEdit(env, args.Path)
	if fail != nil {
		return *fail, nil
	}
	if missing {
		return notFound(env, args.Path, errNotExist), nil
	}
	updated, n, err := applyEdit(content, args.edit, args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if err := env.FS.Apply(ctx, []tools.Change{{Kind: tools.Write, Path: abs, Content: []byte(updated)}}); err != nil {
		return tools.Errorf("writing %s: %v", args.Path, err), nil
	}
	what := "1 occurrence"
	if n != 1 {
		what = fmt.Sprintf("%d occurrences", n)
	}
	return tools.Result{
		Content: fmt.Sprintf("Edited %s: replaced %s. The file now reads:\n%s", env.Rel(abs), what, snippet(content, updated)),
		Summary: "replaced " + what,
		Changed: []string{abs},
	}, nil
}

func (editFile) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyWrite, Kind: tools.KindEdit}
}

func (t editFile) Describe(args json.RawMessage) tools.Call {
	c := tools.PathCall(t, args)
	var a editFileArgs
	if json.Unmarshal(args, &a) == nil {
		c.Change = fmt.Sprintf("In %s:\n%s", a.Path, replaceWords(a.edit))
	}
	return c
}

// PreviewEdits makes the replacement as a call would, on the file's
// current text; an edit that would fail shows nothing.
func (editFile) PreviewEdits(args json.RawMessage, current func(string) (string, bool, error)) ([]tools.FileEdit, error) {
	var a editFileArgs
	if err := json.Unmarshal(args, &a); err != nil || a.Path == "" {
		return nil, err
	}
	old, existed, err := current(a.Path)
	if err != nil || !existed {
		return nil, err
	}
	updated, _, err := applyEdit(old, a.edit, a.Path)
	if err != nil {
		return nil, err
	}
	return []tools.FileEdit{{Path: a.Path, Old: old, New: updated, Existed: true}}, nil
}
