package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed multi_edit.md
var multiEditDescription string

type multiEditArgs struct {
	Path  string `json:"path"`
	Edits []edit `json:"edits"`
}

func (a *multiEditArgs) check() error {
	if a.Path == "" || len(a.Edits) == 0 {
		return errors.New("path and at least one edit are required")
	}
	return nil
}

type multiEdit struct{}

var _ tools.FileChanger = multiEdit{}

func init() { tools.RegisterBuiltin(multiEdit{}) }

func (multiEdit) Name() string        { return "multi_edit" }
func (multiEdit) Description() string { return multiEditDescription }
func (multiEdit) ReadOnly() bool      { return false }

var multiEditSchema = schema(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "File to edit."},
		"edits": {
			"type": "array",
			"minItems": 1,
			"description": "Replacements applied in order.",
			"items": {
				"type": "object",
				"properties": {
					"old_string": {"type": "string", "description": "The exact text to replace."},
					"new_string": {"type": "string", "description": "The text to put in its place."},
					"replace_all": {"type": "boolean", "description": "Replace every occurrence. Default false."}
				},
				"required": ["old_string", "new_string"],
				"additionalProperties": false
			}
		}
	},
	"required": ["path", "edits"],
	"additionalProperties": false
}`)

func (multiEdit) Schema() json.RawMessage { return multiEditSchema }

func (multiEdit) ChangedPaths(raw json.RawMessage) ([]string, error) {
	args, err := decodeArgs[multiEditArgs](raw)
	return []string{args.Path}, err
}

func (multiEdit) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[multiEditArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	abs, content, missing, fail := loadForEdit(env, args.Path)
	if fail != nil {
		return *fail, nil
	}
	if missing && args.Edits[0].OldString != "" {
		return notFound(env, args.Path, errNotExist), nil
	}
	verb, original := "Edited", content
	if missing {
		verb, original = "Created", ""
	}
	content, total, err := args.apply(content, missing)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if err := env.FS.Apply(ctx, []tools.Change{{Kind: tools.Write, Path: abs, Content: []byte(content)}}); err != nil {
		return tools.Errorf("writing %s: %v", args.Path, err), nil
	}
	return tools.Result{
		Content: fmt.Sprintf("%s %s: %d edits, %d replacements. The changed region now reads:\n%s", verb, env.Rel(abs), len(args.Edits), total, snippet(original, content)),
		Summary: fmt.Sprintf("%d edits", len(args.Edits)),
		Changed: []string{abs},
	}, nil
}

// apply makes the edits, in order, on content, the file's text; for a
// file that does not exist (missing), the first edit, whose old_string
// is empty, gives its text. The error is worded for the model.
func (a *multiEditArgs) apply(content string, missing bool) (updated string, replaced int, err error) {
	edits := a.Edits
	if missing {
		content, edits = edits[0].NewString, edits[1:]
	}
	for i, e := range edits {
		updated, n, err := applyEdit(content, e, a.Path)
		if err != nil {
			return "", 0, fmt.Errorf("edit %d of %d: %v. No edit was applied", i+1+boolInt(missing), len(a.Edits), err)
		}
		content = updated
		replaced += n
	}
	return content, replaced, nil
}

// PreviewEdits makes the edits as a call would, on the file's current
// text; edits that would fail show nothing.
func (multiEdit) PreviewEdits(raw json.RawMessage, current func(string) (string, bool, error)) ([]tools.FileEdit, error) {
	args, err := decodeArgs[multiEditArgs](raw)
	if err != nil {
		return nil, err
	}
	old, existed, err := current(args.Path)
	if err != nil || (!existed && args.Edits[0].OldString != "") {
		return nil, err
	}
	updated, _, err := args.apply(old, !existed)
	if err != nil {
		return nil, err
	}
	return []tools.FileEdit{{Path: args.Path, Old: old, New: updated, Existed: existed}}, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (multiEdit) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyWrite, Kind: tools.KindEdit}
}

func (t multiEdit) Describe(args json.RawMessage) tools.Call {
	c := tools.PathCall(t, args)
	var a multiEditArgs
	if json.Unmarshal(args, &a) == nil {
		var b strings.Builder
		fmt.Fprintf(&b, "In %s, %d edits in order:\n", a.Path, len(a.Edits))
		for _, e := range a.Edits {
			b.WriteString(replaceWords(e))
		}
		c.Change = b.String()
	}
	return c
}
