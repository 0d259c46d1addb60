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

//go:embed write_file.md
var writeFileDescription string

type writeFileArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (a *writeFileArgs) check() error {
	if a.Path == "" || a.Content == nil {
		return errors.New("path and content are required")
	}
	return nil
}

type writeFile struct{}

var _ tools.FileChanger = writeFile{}

func init() { tools.RegisterBuiltin(writeFile{}) }

func (writeFile) Name() string        { return "write_file" }
func (writeFile) Description() string { return writeFileDescription }
func (writeFile) ReadOnly() bool      { return false }

var writeFileSchema = schema(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "File to write."},
		"content": {"type": "string", "description": "The complete new content of the file."}
	},
	"required": ["path", "content"],
	"additionalProperties": false
}`)

func (writeFile) Schema() json.RawMessage { return writeFileSchema }

func (writeFile) ChangedPaths(raw json.RawMessage) ([]string, error) {
	args, err := decodeArgs[writeFileArgs](raw)
	return []string{args.Path}, err
}

func (writeFile) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[writeFileArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	abs, err := env.WritePath(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	verb := "Created"
	if fi, err := env.FS.Stat(abs); err == nil {
		if fi.IsDir() {
			return tools.Errorf("%s is a directory", args.Path), nil
		}
		verb = "Overwrote"
	}
	content := []byte(*args.Content)
	if err := env.FS.Apply(ctx, []tools.Change{{Kind: tools.Write, Path: abs, Content: content}}); err != nil {
		return tools.Errorf("writing %s: %v", args.Path, err), nil
	}
	lines := lineCount(content)
	return tools.Result{
		Content: fmt.Sprintf("%s %s (%d lines, %d bytes).", verb, env.Rel(abs), lines, len(content)),
		Summary: fmt.Sprintf("%s, %d lines", lowerFirst(verb), lines),
		Changed: []string{abs},
	}, nil
}

func (writeFile) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyWrite, Kind: tools.KindEdit}
}

func (t writeFile) Describe(args json.RawMessage) tools.Call {
	c := tools.PathCall(t, args)
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if json.Unmarshal(args, &a) == nil {
		c.Change = fmt.Sprintf("Write %s with this content:\n%s", a.Path, fence(a.Content))
	}
	return c
}

// PreviewEdits shows the content that replaces the file's.
func (writeFile) PreviewEdits(args json.RawMessage, current func(string) (string, bool, error)) ([]tools.FileEdit, error) {
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Path == "" {
		return nil, err
	}
	old, existed, err := current(a.Path)
	if err != nil {
		return nil, err
	}
	return []tools.FileEdit{{Path: a.Path, Old: old, New: a.Content, Existed: existed}}, nil
}
