package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

//go:embed bash_output.md
var bashOutputDescription string

type bashOutputArgs struct {
	jobArgs
	Filter string `json:"filter,omitempty"`
}

// jobArgs name a background job, for bash_output and kill_shell.
type jobArgs struct {
	ID string `json:"id"`
}

func (a *jobArgs) check() error {
	if a.ID == "" {
		return errors.New("id is required: the job's id, as bash returned it")
	}
	return nil
}

// bashOutput reads what a background job (bash with run_in_background)
// wrote since the last read.
type bashOutput struct{}

func init() { tools.RegisterBuiltin(bashOutput{}) }

func (bashOutput) Name() string        { return "bash_output" }
func (bashOutput) Description() string { return bashOutputDescription }
func (bashOutput) ReadOnly() bool      { return true }

var bashOutputSchema = schema(`{
	"type": "object",
	"properties": {
		"id": {"type": "string", "description": "The job's id, as bash returned it (bg1)."},
		"filter": {"type": "string", "description": "A regular expression (RE2): only the new lines that match are shown; the others are consumed all the same."}
	},
	"required": ["id"],
	"additionalProperties": false
}`)

func (bashOutput) Schema() json.RawMessage { return bashOutputSchema }

func (bashOutput) Execute(_ context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[bashOutputArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	j, res, ok := jobOf(env, args.ID)
	if !ok {
		return res, nil
	}
	var filter *regexp.Regexp
	if args.Filter != "" {
		if filter, err = regexp.Compile(args.Filter); err != nil {
			return tools.Errorf("filter: %v", err), nil
		}
	}
	out := j.Read(filter)
	var b strings.Builder
	text := cleanOutput([]byte(out.Text))
	switch {
	case text != "":
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	case filter != nil:
		b.WriteString("(no new output matches the filter)\n")
	default:
		b.WriteString("(no new output)\n")
	}
	if out.Dropped > 0 {
		fmt.Fprintf(&b, "(%d bytes of older output were let go unread: more than %d KiB waited to be read.)\n", out.Dropped, tools.JobKeepBytes>>10)
	}
	status := jobStatus(out)
	b.WriteString(status)
	return tools.Result{Content: b.String(), Summary: j.ID + " " + strings.ToLower(strings.TrimSuffix(status, "."))}, nil
}

// jobStatus says whether a job runs, else how it ended, as the last line
// of a foreground command says it.
func jobStatus(out tools.JobOutput) string {
	switch st := out.Status; {
	case out.Running:
		return "Still running."
	case st.Signal != 0:
		return fmt.Sprintf("Killed by signal %d (%s).", st.Signal, st.SignalName)
	default:
		return fmt.Sprintf("Exit code: %d", st.Code)
	}
}

// jobOf finds the background job id, or the result saying it is not
// there.
func jobOf(env *tools.Env, id string) (*tools.Job, tools.Result, bool) {
	if env.Jobs == nil {
		return nil, tools.Errorf("no background jobs here: bash cannot run commands in the background in this session"), false
	}
	if j := env.Jobs.Get(id); j != nil {
		return j, tools.Result{}, true
	}
	ids := env.Jobs.IDs()
	if len(ids) == 0 {
		return nil, tools.Errorf("no background job %q: none was started (bash with run_in_background starts one)", id), false
	}
	return nil, tools.Errorf("no background job %q; the jobs are %s", id, strings.Join(ids, ", ")), false
}

func (bashOutput) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyOther, Kind: tools.KindRead}
}

func (t bashOutput) Describe(args json.RawMessage) tools.Call {
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "id")), Wording: tools.UseWording(t.Name(), args)}
}
