package builtin

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed rename_symbol.md
var renameSymbolDescription string

type renameSymbolArgs struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	NewName string `json:"new_name"`
}

type renameSymbol struct{}

func init() { tools.RegisterBuiltin(renameSymbol{}) }

func (renameSymbol) Name() string        { return "rename_symbol" }
func (renameSymbol) Description() string { return renameSymbolDescription }
func (renameSymbol) ReadOnly() bool      { return false }

var renameSymbolSchema = schema(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "A file with an occurrence of the symbol."},
		"line": {"type": "integer", "minimum": 1, "description": "1-based line of the occurrence."},
		"column": {"type": "integer", "minimum": 1, "description": "1-based column (characters) of the occurrence."},
		"new_name": {"type": "string", "description": "The new name."}
	},
	"required": ["path", "line", "column", "new_name"],
	"additionalProperties": false
}`)

func (renameSymbol) Schema() json.RawMessage { return renameSymbolSchema }

func (renameSymbol) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	var args renameSymbolArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return tools.Errorf("%v", err), nil
	}
	if args.Path == "" || args.Line < 1 || args.Column < 1 || args.NewName == "" {
		return tools.Errorf("path, line, column and new_name are required"), nil
	}
	if env.Graph == nil {
		return tools.Errorf("the project graph is turned off ([graph] enabled = false); rename with edit_file or multi_edit"), nil
	}
	abs, err := env.ReadPath(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	changes, summary, err := env.Graph.Rename(ctx, abs, args.Line, args.Column, args.NewName)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf("%v", err), nil
	}
	if len(changes) == 0 {
		return tools.Errorf("the language server proposed no changes"), nil
	}
	changed, err := applyServerChanges(ctx, env, changes, "the rename")
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Content: summary + ".", Summary: summary, Changed: changed}, nil
}

// A rename's changes are judged where they are made, at the write seam,
// by the rules about files whatever their tool; no capitalised rule names
// the tool itself.
func (renameSymbol) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyGraph, Kind: tools.KindEdit}
}

// Describe names the file the rename starts from; the files it changes
// are known once the project graph answers.
func (t renameSymbol) Describe(args json.RawMessage) tools.Call {
	return tools.PathCall(t, args)
}
