package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/memory"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed forget.md
var forgetDescription string

type forgetArgs struct {
	Name  string `json:"name"`
	Scope string `json:"scope,omitempty"`
}

func (a *forgetArgs) check() error {
	if a.Name == "" {
		return errors.New("name is required")
	}
	return nil
}

// forgetTool archives a note (see remember.go for why it always asks).
type forgetTool struct{}

var (
	_ tools.AlwaysAsker = forgetTool{}
	_ tools.Previewer   = forgetTool{}
)

func init() { tools.RegisterBuiltin(forgetTool{}) }

func (forgetTool) Name() string        { return "forget" }
func (forgetTool) Description() string { return forgetDescription }
func (forgetTool) ReadOnly() bool      { return false }
func (forgetTool) AlwaysAsk() bool     { return true }

var forgetSchema = schema(`{
	"type": "object",
	"properties": {
		"name": {"type": "string", "description": "The note's name."},
		"scope": {"type": "string", "enum": ["user", "project"], "description": "Needed only when both scopes have a note of this name."}
	},
	"required": ["name"],
	"additionalProperties": false
}`)

func (forgetTool) Schema() json.RawMessage { return forgetSchema }

// Preview shows the note that will be archived.
func (forgetTool) Preview(env *tools.Env, raw json.RawMessage) (string, error) {
	args, err := decodeArgs[forgetArgs](raw)
	if err != nil {
		return "", err
	}
	e, err := findNote(memory.ForEnv(env), args.Scope, args.Name)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Forget the note %s (%s): it moves to %s, kept for people to read but no longer offered to the agent. It reads:\n%s",
		e.ID(), env.Rel(e.Path), env.Rel(filepath.Join(filepath.Dir(e.Path), "archive"))+string(filepath.Separator),
		fenced(noteText(e.Description, e.Content))), nil
}

func (forgetTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[forgetArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	store := memory.ForEnv(env)
	e, err := findNote(store, args.Scope, args.Name)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	dest, err := store.Archive(ctx, e.Scope, e.Name)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	env.Control.Accept(e.Path, dest)
	return tools.Result{
		Content: fmt.Sprintf("Forgot the note %s: it is archived as %s and no longer offered.", e.ID(), env.Rel(dest)),
		Summary: "archived " + e.ID(),
	}, nil
}

func (forgetTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyMemory, Kind: tools.KindEdit}
}

func (t forgetTool) Describe(args json.RawMessage) tools.Call {
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "name")), Wording: "forget a note in its memory"}
}
