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
	"github.com/reasonix/reasonix/tools/skills"
)

//go:embed skill.md
var skillDescription string

type skillArgs struct {
	Name string `json:"name"`
}

func (a *skillArgs) check() error {
	a.Name = strings.TrimPrefix(strings.TrimSpace(a.Name), "/")
	if a.Name == "" {
		return errors.New("name is required")
	}
	return nil
}

// skillTool loads a skill's instructions; the system prompt lists the
// skills by name and description only.
type skillTool struct{}

func init() { tools.RegisterBuiltin(skillTool{}) }

func (skillTool) Name() string        { return "skill" }
func (skillTool) Description() string { return skillDescription }
func (skillTool) ReadOnly() bool      { return true }

var skillSchema = schema(`{
	"type": "object",
	"properties": {
		"name": {"type": "string", "description": "The skill's name, as the list of skills gives it."}
	},
	"required": ["name"],
	"additionalProperties": false
}`)

func (skillTool) Schema() json.RawMessage { return skillSchema }

func (skillTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[skillArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	all, _ := skills.Load(env)
	var s *skills.Skill
	names := make([]string, 0, len(all))
	for i := range all {
		names = append(names, all[i].Name)
		if all[i].Name == args.Name {
			s = &all[i]
		}
	}
	if s == nil {
		if len(names) == 0 {
			return tools.Errorf("there is no skill %q: none is installed", args.Name), nil
		}
		return tools.Errorf("there is no skill %q; the skills are: %s", args.Name, strings.Join(names, ", ")), nil
	}
	text, err := skills.Render(env, *s)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Content: text, Summary: fmt.Sprintf("loaded %s (%s)", s.Name, s.Source)}, nil
}

func (skillTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyOther, Kind: tools.KindRead}
}

func (t skillTool) Describe(args json.RawMessage) tools.Call {
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "name")), Wording: tools.UseWording(t.Name(), args)}
}
