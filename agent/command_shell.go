package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
)

// Claude Code's command files may run shell commands before their prompt
// is sent: each !`command` in the body is replaced by what the command
// printed, so that "Current status: !`git status`" reaches the model with
// the status. Reasonix runs each through a bash call of the agent's own,
// outside any turn of the conversation, as /init's write is: it meets
// what a model's call would — the permission rules and the question, the
// sandbox, the shell watch — and the editor shows it running. A command
// file cannot grant itself anything: Claude Code's allowed-tools key is
// not read, and the user's rules decide. A command refused or failing is
// replaced by what the call answered (why it was refused, the exit), so
// the model knows the context it lacks.

// commandShell matches !`command` in a command file's body.
var commandShell = regexp.MustCompile("!`([^`\n]+)`")

// commandShellCallID is the id of a command file's bash calls in their
// events, numbered.
const commandShellCallID = "command_shell"

// runCommandShell returns body with each !`command` replaced by its
// output, run in s.
func (a *Agent) runCommandShell(ctx context.Context, s *Session, body string) (string, error) {
	if !commandShell.MatchString(body) {
		return body, nil
	}
	t, end, err := a.begin(s, false)
	if err != nil {
		return "", err
	}
	defer end()
	defer t.release()
	n := 0
	out := commandShell.ReplaceAllStringFunc(body, func(m string) string {
		if ctx.Err() != nil {
			return m
		}
		n++
		command := commandShell.FindStringSubmatch(m)[1]
		args, _ := json.Marshal(map[string]string{"command": command})
		_, res := t.callResult(ctx, provider.ToolCall{ID: fmt.Sprintf("%s_%d", commandShellCallID, n), Name: "bash", Arguments: string(args)})
		return strings.TrimRight(res.Content, "\n")
	})
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return out, nil
}
