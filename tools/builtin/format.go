package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed format.md
var formatDescription string

type formatArgs struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
}

func (a *formatArgs) check() error {
	switch {
	case a.Path == "":
		return fmt.Errorf("path is required")
	case a.Line < 0 || a.EndLine < 0:
		return fmt.Errorf("lines count from 1")
	case a.Line == 0 && a.EndLine != 0:
		return fmt.Errorf("end_line needs line")
	case a.EndLine != 0 && a.EndLine < a.Line:
		return fmt.Errorf("end_line %d is before line %d", a.EndLine, a.Line)
	}
	return nil
}

type format struct{}

func init() { tools.RegisterBuiltin(format{}) }

func (format) Name() string        { return "format" }
func (format) Description() string { return formatDescription }
func (format) ReadOnly() bool      { return false }
func (format) UsesGraph() bool     { return true }

var formatSchema = schema(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "The file."},
		"line": {"type": "integer", "minimum": 1, "description": "First line to format; omit for the whole file."},
		"end_line": {"type": "integer", "minimum": 1, "description": "Last line to format; default line."}
	},
	"required": ["path"],
	"additionalProperties": false
}`)

func (format) Schema() json.RawMessage { return formatSchema }

func (format) ChangedPaths(raw json.RawMessage) ([]string, error) {
	args, err := decodeArgs[formatArgs](raw)
	return []string{args.Path}, err
}

func (format) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[formatArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	actor, err := graphActor(env, "format with the language's formatter through bash")
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	abs, err := env.ReadPath(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	changes, summary, err := actor.Format(ctx, abs, args.Line, args.EndLine)
	if err != nil {
		return graphError(ctx, err)
	}
	if len(changes) == 0 {
		return tools.Result{Content: summary + ".", Summary: summary}, nil
	}
	changed, err := applyServerChanges(ctx, env, changes, "the formatting")
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Content: summary + ".", Summary: summary, Changed: changed}, nil
}

func (format) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyWrite, Kind: tools.KindEdit}
}

func (t format) Describe(args json.RawMessage) tools.Call {
	c := tools.PathCall(t, args)
	var a formatArgs
	if json.Unmarshal(args, &a) == nil {
		if a.Line == 0 {
			c.Change = fmt.Sprintf("Format %s with its language server.", a.Path)
		} else {
			c.Change = fmt.Sprintf("Format %s with its language server.", lines(a.Path, a.Line, a.EndLine))
		}
	}
	return c
}
