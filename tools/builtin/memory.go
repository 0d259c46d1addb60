package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/memory"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed memory.md
var memoryDescription string

// memorySearchHits bounds what one search returns.
const memorySearchHits = 10

type memoryArgs struct {
	Action string `json:"action"`
	Query  string `json:"query,omitempty"`
	Name   string `json:"name,omitempty"`
	Scope  string `json:"scope,omitempty"`
}

func (a *memoryArgs) check() error {
	switch a.Action {
	case "list":
	case "search":
		if strings.TrimSpace(a.Query) == "" {
			return errors.New("search needs a query")
		}
	case "read":
		if a.Name == "" {
			return errors.New("read needs the name of a note")
		}
	default:
		return fmt.Errorf("action must be list, search or read, not %q", a.Action)
	}
	if a.Scope != "" {
		if _, err := memory.ParseScope(a.Scope); err != nil {
			return err
		}
	}
	return nil
}

// memoryTool reads the agent's memory; remember and forget change it.
type memoryTool struct{}

func init() { tools.RegisterBuiltin(memoryTool{}) }

func (memoryTool) Name() string        { return "memory" }
func (memoryTool) Description() string { return memoryDescription }
func (memoryTool) ReadOnly() bool      { return true }

var memorySchema = schema(`{
	"type": "object",
	"properties": {
		"action": {"type": "string", "enum": ["list", "search", "read"], "description": "list every note, search them for words, or read one."},
		"query": {"type": "string", "description": "search: the words to look for."},
		"name": {"type": "string", "description": "read: the note's name, as the index or a list shows it after the scope."},
		"scope": {"type": "string", "enum": ["user", "project"], "description": "read: which scope's note, when both have that name. Default: both."}
	},
	"required": ["action"],
	"additionalProperties": false
}`)

func (memoryTool) Schema() json.RawMessage { return memorySchema }

func (memoryTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[memoryArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	store := memory.ForEnv(env)
	switch args.Action {
	case "search":
		return memorySearch(store, args.Query)
	case "read":
		return memoryRead(store, memory.Scope(args.Scope), args.Name)
	}
	return memoryList(store)
}

func memoryList(store *memory.Store) (tools.Result, error) {
	notes, err := store.List(false)
	if len(notes) == 0 {
		if err != nil {
			return tools.Errorf("%v", err), nil
		}
		return tools.Result{Content: "No notes are saved yet.", Summary: "no notes"}, nil
	}
	var b strings.Builder
	for _, e := range notes {
		fmt.Fprintf(&b, "%s: %s\n", e.ID(), e.Description)
	}
	if err != nil {
		fmt.Fprintf(&b, "(some notes could not be read: %v)\n", err)
	}
	return tools.Result{Content: b.String(), Summary: fmt.Sprintf("%d %s", len(notes), grepPlural(len(notes), "note", "notes"))}, nil
}

func memorySearch(store *memory.Store, query string) (tools.Result, error) {
	hits, err := store.Search(query, memorySearchHits)
	if len(hits) == 0 {
		if err != nil {
			return tools.Errorf("%v", err), nil
		}
		return tools.Result{
			Content: fmt.Sprintf("No note holds %q. Try other or fewer words, or list the notes.", query),
			Summary: "no match",
		}, nil
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s: %s\n", h.ID(), h.Description)
		if h.Line != "" {
			fmt.Fprintf(&b, "    %s\n", h.Line)
		}
	}
	return tools.Result{Content: b.String(), Summary: fmt.Sprintf("%d %s", len(hits), grepPlural(len(hits), "match", "matches"))}, nil
}

func memoryRead(store *memory.Store, scope memory.Scope, name string) (tools.Result, error) {
	n, err := memory.CheckName(name)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	found := store.Find(scope, n)
	if len(found) == 0 {
		return tools.Errorf("there is no note %q; list or search the notes to find its name", name), nil
	}
	var b strings.Builder
	for i, e := range found {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s: %s\n(saved %s)\n\n%s\n", e.ID(), e.Description, e.Updated.Format("2006-01-02"), e.Content)
	}
	return tools.Result{Content: b.String(), Summary: found[0].ID()}, nil
}

func (memoryTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyMemory, Kind: tools.KindRead}
}

func (t memoryTool) Describe(args json.RawMessage) tools.Call {
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "query", "name")), Wording: tools.UseWording(t.Name(), args)}
}
