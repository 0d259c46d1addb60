package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed project_graph.md
var projectGraphDescription string

type projectGraphArgs struct {
	Action  string `json:"action"`
	Symbol  string `json:"symbol,omitempty"`
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	NewName string `json:"new_name,omitempty"`
}

type projectGraph struct{}

func init() { tools.RegisterBuiltin(projectGraph{}) }

func (projectGraph) Name() string        { return "project_graph" }
func (projectGraph) Description() string { return projectGraphDescription }
func (projectGraph) ReadOnly() bool      { return true }

var projectGraphSchema = schema(`{
	"type": "object",
	"properties": {
		"action": {"type": "string", "enum": ["find_symbol", "find_references", "definition", "incoming_calls", "outgoing_calls", "implementations", "type_hierarchy", "hover", "rename_check", "diagnostics"], "description": "What to ask."},
		"symbol": {"type": "string", "description": "A symbol name: Name, pkg.Name or Type.Method."},
		"path": {"type": "string", "description": "A file."},
		"line": {"type": "integer", "minimum": 1, "description": "1-based line of an occurrence in path."},
		"column": {"type": "integer", "minimum": 1, "description": "1-based column (characters) of an occurrence in path."},
		"new_name": {"type": "string", "description": "For rename_check: the proposed name."}
	},
	"required": ["action"],
	"additionalProperties": false
}`)

func (projectGraph) Schema() json.RawMessage { return projectGraphSchema }

// graphActions lists what project_graph answers, with what each needs.
var graphActions = map[string]string{
	"find_symbol":     "symbol",
	"find_references": "symbol, or path + line + column",
	"definition":      "path + line + column, or symbol",
	"incoming_calls":  "symbol, or path + line + column",
	"outgoing_calls":  "symbol, or path + line + column",
	"implementations": "symbol, or path + line + column",
	"type_hierarchy":  "symbol, or path + line + column",
	"hover":           "symbol, or path + line + column",
	"rename_check":    "path + line + column, and new_name",
	"diagnostics":     "path, or nothing for the files changed in this turn",
}

func (projectGraph) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	var args projectGraphArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return tools.Errorf("%v", err), nil
	}
	needs, ok := graphActions[args.Action]
	if !ok {
		return tools.Errorf("unknown action %q; use one of %s", args.Action, strings.Join(slices.Sorted(maps.Keys(graphActions)), ", ")), nil
	}
	if env.Graph == nil {
		return tools.Errorf("the project graph is turned off ([graph] enabled = false); use grep and read_file instead"), nil
	}
	q := tools.GraphQuery{Action: args.Action, Symbol: args.Symbol, Line: args.Line, Column: args.Column, NewName: args.NewName, Changed: tools.ChangedIn(ctx)}
	if rules := env.ReadRules; rules != nil {
		// A place in a file a rule about reading covers keeps its
		// position and loses its text: no one is asked about each.
		q.Withhold = func(path string) bool {
			rule, _ := rules.ReadRule(path)
			return rule != ""
		}
	}
	if args.Path != "" {
		abs, err := env.ReadPath(args.Path)
		if err != nil {
			return tools.Errorf("%v", err), nil
		}
		q.Path = abs
	}
	if err := checkGraphQuery(q); err != nil {
		return tools.Errorf("%s needs %s: %v", args.Action, needs, err), nil
	}
	out, err := env.Graph.Query(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Content: out, Summary: args.Action}, nil
}

// checkGraphQuery rejects a query missing what its action needs.
func checkGraphQuery(q tools.GraphQuery) error {
	pos := q.Path != "" && q.Line > 0 && q.Column > 0
	switch q.Action {
	case "find_symbol":
		if q.Symbol == "" {
			return fmt.Errorf("symbol is empty")
		}
	case "find_references", "definition", "incoming_calls", "outgoing_calls", "implementations", "type_hierarchy", "hover":
		if q.Symbol == "" && !pos {
			return fmt.Errorf("give symbol, or path, line and column")
		}
	case "rename_check":
		if !pos || q.NewName == "" {
			return fmt.Errorf("give path, line, column and new_name")
		}
	}
	return nil
}

func (projectGraph) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyGraph, Kind: tools.KindSearch}
}

func (t projectGraph) Describe(args json.RawMessage) tools.Call {
	return tools.PathCall(t, args)
}
