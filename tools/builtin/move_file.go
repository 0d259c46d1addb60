package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed move_file.md
var moveFileDescription string

var errNotExist = fs.ErrNotExist

type moveFileArgs struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

func (a *moveFileArgs) check() error {
	if a.Source == "" || a.Destination == "" {
		return errors.New("source and destination are required")
	}
	return nil
}

type moveFile struct{}

var _ tools.FileChanger = moveFile{}

func init() { tools.RegisterBuiltin(moveFile{}) }

func (moveFile) Name() string        { return "move_file" }
func (moveFile) Description() string { return moveFileDescription }
func (moveFile) ReadOnly() bool      { return false }

var moveFileSchema = schema(`{
	"type": "object",
	"properties": {
		"source": {"type": "string", "description": "The file or directory to move."},
		"destination": {"type": "string", "description": "Its new path; must not exist yet."}
	},
	"required": ["source", "destination"],
	"additionalProperties": false
}`)

func (moveFile) Schema() json.RawMessage { return moveFileSchema }

// ChangedPaths names both ends: the source disappears, the destination
// appears.
func (moveFile) ChangedPaths(raw json.RawMessage) ([]string, error) {
	args, err := decodeArgs[moveFileArgs](raw)
	return []string{args.Source, args.Destination}, err
}

func (moveFile) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[moveFileArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	src, err := env.WritePath(args.Source)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	dst, err := env.WritePath(args.Destination)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if _, err := env.FS.Stat(src); err != nil {
		return notFound(env, args.Source, err), nil
	}
	if _, err := env.FS.Stat(dst); err == nil {
		return tools.Errorf("%s already exists; move_file never overwrites", args.Destination), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return tools.Errorf("%s: %v", args.Destination, err), nil
	}
	if err := env.FS.Apply(ctx, []tools.Change{{Kind: tools.Rename, Path: src, NewPath: dst}}); err != nil {
		return tools.Errorf("moving %s: %v", args.Source, err), nil
	}
	return tools.Result{
		Content: fmt.Sprintf("Moved %s to %s.", env.Rel(src), env.Rel(dst)),
		Summary: "moved",
		Changed: []string{src, dst},
	}, nil
}

func (moveFile) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyWrite, Kind: tools.KindMove}
}

func (t moveFile) Describe(args json.RawMessage) tools.Call {
	src, dst := tools.ArgString(args, "source"), tools.ArgString(args, "destination")
	subject := src
	if subject != "" && tools.HasString(args, "destination") {
		subject += " → " + dst
	}
	c := tools.Call{Title: tools.Title(t.Name(), subject), Wording: fmt.Sprintf("move %s to %s", src, dst)}
	c.Writes, _ = t.ChangedPaths(args)
	c.Reads, _ = t.ReadPaths(args)
	var a moveFileArgs
	if json.Unmarshal(args, &a) == nil {
		c.Change = fmt.Sprintf("Move %s to %s.", a.Source, a.Destination)
	}
	return c
}
