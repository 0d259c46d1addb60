package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed kill_shell.md
var killShellDescription string

// killShell stops a background job and every process it started.
type killShell struct{}

func init() { tools.RegisterBuiltin(killShell{}) }

func (killShell) Name() string        { return "kill_shell" }
func (killShell) Description() string { return killShellDescription }

// ReadOnly: it starts nothing and changes no file itself; it ends what
// the user already let run, sooner than the session's end would. So it
// is not asked about, and runs alone (Exclusive) so that a bash_output
// beside it reads before or after it as the model ordered the calls.
func (killShell) ReadOnly() bool  { return true }
func (killShell) Exclusive() bool { return true }

var killShellSchema = schema(`{
	"type": "object",
	"properties": {
		"id": {"type": "string", "description": "The job's id, as bash returned it (bg1)."}
	},
	"required": ["id"],
	"additionalProperties": false
}`)

func (killShell) Schema() json.RawMessage { return killShellSchema }

func (killShell) Execute(_ context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[jobArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	j, res, ok := jobOf(env, args.ID)
	if !ok {
		return res, nil
	}
	if out := j.Peek(); !out.Running {
		return tools.Result{Content: fmt.Sprintf("Job %s had already ended. %s", j.ID, jobStatus(out)), Summary: j.ID + " had ended"}, nil
	}
	j.Stop()
	return tools.Result{
		Content: fmt.Sprintf("Stopped job %s and every process it started. What it wrote and was not read yet is still there for bash_output.", j.ID),
		Summary: "stopped " + j.ID,
	}, nil
}

func (killShell) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyOther, Kind: tools.KindExecute}
}

func (t killShell) Describe(args json.RawMessage) tools.Call {
	id := tools.ArgString(args, "id")
	return tools.Call{Title: tools.Title(t.Name(), id), Wording: fmt.Sprintf("stop the background job %s", id)}
}
