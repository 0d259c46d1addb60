package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed ask.md
var askDescription string

// Bounds on a question, so it fits a dialog's buttons.
const (
	askMinOptions   = 2
	askMaxOptions   = 4
	askMaxOptionLen = 100
	askMaxQuestion  = 1000
)

type askArgs struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

func (a *askArgs) check() error {
	a.Question = strings.TrimSpace(a.Question)
	switch {
	case a.Question == "":
		return errors.New("question is required")
	case len(a.Question) > askMaxQuestion:
		return fmt.Errorf("question is longer than %d characters: ask something short", askMaxQuestion)
	case len(a.Options) < askMinOptions || len(a.Options) > askMaxOptions:
		return fmt.Errorf("give %d to %d options, not %d", askMinOptions, askMaxOptions, len(a.Options))
	}
	for i, o := range a.Options {
		o = strings.Join(strings.Fields(o), " ")
		switch {
		case o == "":
			return fmt.Errorf("option %d is empty", i+1)
		case len(o) > askMaxOptionLen:
			return fmt.Errorf("option %d is longer than %d characters: keep options to a few words", i+1, askMaxOptionLen)
		case slices.Contains(a.Options[:i], o):
			return fmt.Errorf("option %q is given twice", o)
		}
		a.Options[i] = o
	}
	return nil
}

// askTool puts a question to the user. It is read-only, so it runs in
// plan mode and without a permission question, but exclusive: a call runs
// alone, so two questions never compete for the user.
type askTool struct{}

var _ tools.Exclusive = askTool{}

func init() { tools.RegisterBuiltin(askTool{}) }

func (askTool) Name() string        { return "ask" }
func (askTool) Description() string { return askDescription }
func (askTool) ReadOnly() bool      { return true }
func (askTool) Exclusive() bool     { return true }

var askSchema = schema(`{
	"type": "object",
	"properties": {
		"question": {"type": "string", "description": "One short question for the user."},
		"options": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4, "description": "Two to four likely answers, a few words each."}
	},
	"required": ["question", "options"],
	"additionalProperties": false
}`)

func (askTool) Schema() json.RawMessage { return askSchema }

// assume is what the model is told when no answer comes.
const assume = "Do not wait for one: carry on with the most reasonable choice, and state it in your answer as an assumption, labelled \"Assumption:\", with why you chose it."

func (askTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[askArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if env.Asker == nil {
		return tools.Result{
			Content: "No user available: this run is unattended, so no one can answer. " + assume,
			Summary: "no user available",
		}, nil
	}
	answer, err := env.Asker.Ask(ctx, tools.Question{SessionID: tools.SessionOf(ctx), Question: args.Question, Options: args.Options})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{
			Content: fmt.Sprintf("The question could not be shown (%v), so there is no answer. %s", err, assume),
			Summary: "not asked",
		}, nil
	}
	answer = strings.TrimSpace(answer)
	if answer == "" {
		return tools.Result{
			Content: "No answer: the user dismissed the question or left it unanswered. " + assume,
			Summary: "no answer",
		}, nil
	}
	how := "picked"
	if !slices.Contains(args.Options, answer) {
		how = "answered, in their own words"
	}
	return tools.Result{
		Content: fmt.Sprintf("The user %s: %s", how, answer),
		Summary: clipAnswer(answer),
	}, nil
}

func clipAnswer(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

func (askTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyAsk, Kind: tools.KindThink}
}

func (t askTool) Describe(args json.RawMessage) tools.Call {
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "question")), Wording: tools.UseWording(t.Name(), args)}
}
