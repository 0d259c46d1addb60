package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed code_action.md
var codeActionDescription string

type codeActionArgs struct {
	Path    string   `json:"path"`
	Line    int      `json:"line"`
	EndLine int      `json:"end_line,omitempty"`
	Only    []string `json:"only,omitempty"`
	Apply   string   `json:"apply,omitempty"`
}

func (a *codeActionArgs) check() error {
	if a.Path == "" || a.Line < 1 {
		return fmt.Errorf("path and line (from 1) are required")
	}
	if a.EndLine != 0 && a.EndLine < a.Line {
		return fmt.Errorf("end_line %d is before line %d", a.EndLine, a.Line)
	}
	return nil
}

type codeAction struct{}

func init() { tools.RegisterBuiltin(codeAction{}) }

func (codeAction) Name() string        { return "code_action" }
func (codeAction) Description() string { return codeActionDescription }
func (codeAction) ReadOnly() bool      { return false }
func (codeAction) UsesGraph() bool     { return true }

var codeActionSchema = schema(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "The file."},
		"line": {"type": "integer", "minimum": 1, "description": "First line of the range."},
		"end_line": {"type": "integer", "minimum": 1, "description": "Last line of the range; default line."},
		"only": {"type": "array", "items": {"type": "string"}, "description": "Kinds to list, e.g. source.organizeImports, quickfix, refactor.extract."},
		"apply": {"type": "string", "description": "Title of a listed action to apply; omit to list."}
	},
	"required": ["path", "line"],
	"additionalProperties": false
}`)

func (codeAction) Schema() json.RawMessage { return codeActionSchema }

// ChangedPaths names the file the actions are asked about: a listing
// changes nothing, but one call may apply; the files an action changes
// beyond it are judged at the write seam.
func (codeAction) ChangedPaths(raw json.RawMessage) ([]string, error) {
	args, err := decodeArgs[codeActionArgs](raw)
	return []string{args.Path}, err
}

func (codeAction) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[codeActionArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	actor, err := graphActor(env, "edit with edit_file or multi_edit")
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	abs, err := env.ReadPath(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	q := tools.CodeActionQuery{Path: abs, Line: args.Line, EndLine: args.EndLine, Only: args.Only}
	if args.Apply == "" {
		acts, err := actor.CodeActions(ctx, q)
		if err != nil {
			return graphError(ctx, err)
		}
		if len(acts) == 0 {
			return tools.Result{Content: "The language server offers no code actions there.", Summary: "no actions"}, nil
		}
		b, err := json.Marshal(acts)
		if err != nil {
			return tools.Result{}, fmt.Errorf("code_action: %w", err)
		}
		return tools.Result{Content: string(b), Summary: fmt.Sprintf("%d actions offered", len(acts))}, nil
	}
	changes, summary, err := actor.ApplyCodeAction(ctx, q, args.Apply)
	if err != nil {
		return graphError(ctx, err)
	}
	changed, err := applyServerChanges(ctx, env, changes, fmt.Sprintf("%q", args.Apply))
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Content: summary + ".", Summary: summary, Changed: changed}, nil
}

// graphError turns the project graph's error into a result for the
// model, or the end of the call when its context ended.
func graphError(ctx context.Context, err error) (tools.Result, error) {
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	return tools.Errorf("%v", err), nil
}

func (codeAction) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyWrite, Kind: tools.KindEdit}
}

// Describe shows the action by the title the server gave it: what it
// changes is the server's to compute once the call runs, and arrives
// as any edit does.
func (t codeAction) Describe(args json.RawMessage) tools.Call {
	c := tools.PathCall(t, args)
	var a codeActionArgs
	if json.Unmarshal(args, &a) == nil {
		at := lines(a.Path, a.Line, a.EndLine)
		if a.Apply == "" {
			kinds := ""
			if len(a.Only) > 0 {
				kinds = " of kinds " + strings.Join(a.Only, ", ")
			}
			c.Change = fmt.Sprintf("List the language server's code actions%s at %s; nothing changes.", kinds, at)
		} else {
			c.Change = fmt.Sprintf("Apply the language server's code action %q at %s.", a.Apply, at)
		}
	}
	return c
}

// lines names a file's lines: "calc.go:5" or "calc.go:5-9".
func lines(path string, line, endLine int) string {
	if endLine > line {
		return fmt.Sprintf("%s:%d-%d", path, line, endLine)
	}
	return fmt.Sprintf("%s:%d", path, line)
}
