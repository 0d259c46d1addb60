package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed history.md
var historyDescription string

type historyArgs struct {
	Operation string `json:"operation,omitempty"`
	Query     string `json:"query,omitempty"`
	Scope     string `json:"scope,omitempty"`
	Session   string `json:"session,omitempty"`
	Index     *int   `json:"index,omitempty"`
	Radius    int    `json:"radius,omitempty"`
	Limit     int    `json:"limit,omitempty"`
}

func (a *historyArgs) check() error {
	switch a.Operation {
	case "", "search":
		if a.Query == "" {
			return errors.New("query is required to search")
		}
	case "around":
		if a.Session == "" || a.Index == nil {
			return errors.New(`"around" needs the session and index of a search hit`)
		}
	default:
		return errors.New(`operation is "search" or "around"`)
	}
	if a.Scope != "" && a.Scope != "project" && a.Scope != "global" {
		return errors.New(`scope is "project" or "global"`)
	}
	return nil
}

// historyTool searches the sessions saved before this one.
type historyTool struct{}

func init() { tools.RegisterBuiltin(historyTool{}) }

func (historyTool) Name() string        { return "history" }
func (historyTool) Description() string { return historyDescription }
func (historyTool) ReadOnly() bool      { return true }

var historySchema = schema(`{
	"type": "object",
	"properties": {
		"operation": {"type": "string", "enum": ["search", "around"], "description": "search (the default) or around."},
		"query": {"type": "string", "description": "Words to search for."},
		"scope": {"type": "string", "enum": ["project", "global"], "description": "project (the default): sessions of this workspace; global: every workspace."},
		"session": {"type": "string", "description": "For around: the session id of a hit."},
		"index": {"type": "integer", "description": "For around: the message index of a hit."},
		"radius": {"type": "integer", "description": "For around: messages on each side, 3 by default, at most 10."},
		"limit": {"type": "integer", "description": "For search: at most this many hits, 8 by default, at most 20."}
	},
	"additionalProperties": false
}`)

func (historyTool) Schema() json.RawMessage { return historySchema }

func (historyTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[historyArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if env.History == nil {
		return tools.Errorf("no saved sessions to search: this run keeps none"), nil
	}
	var out string
	if args.Operation == "around" {
		out, err = env.History.Around(ctx, args.Session, *args.Index, args.Radius)
	} else {
		out, err = env.History.Search(ctx, tools.HistoryQuery{
			Query:   args.Query,
			Global:  args.Scope == "global",
			Root:    env.Root,
			Current: tools.SessionOf(ctx),
			Limit:   min(args.Limit, 20),
		})
	}
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Content: out}, nil
}

func (historyTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyOther, Kind: tools.KindRead}
}

func (t historyTool) Describe(args json.RawMessage) tools.Call {
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "query")), Wording: tools.UseWording(t.Name(), args)}
}
