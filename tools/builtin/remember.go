package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/memory"
	"github.com/reasonix/reasonix/tools/permission"
)

// The memory tools that change the memory, remember and forget, need a
// person's approval of every call, whatever the posture or the grants
// (tools.AlwaysAsker): a note outlives the session and steers the next
// ones, so a prompt injection must not be able to plant one. The person
// asked sees the note (tools.Previewer).

//go:embed remember.md
var rememberDescription string

type rememberArgs struct {
	Scope       string `json:"scope"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Content     string `json:"content"`
}

func (a *rememberArgs) check() error {
	_, err := memory.ParseScope(a.Scope)
	return err
}

func (a rememberArgs) note() (memory.Note, error) {
	n := memory.Note{Scope: memory.Scope(a.Scope), Name: a.Name, Description: a.Description, Content: a.Content}
	return n, n.Check()
}

type rememberTool struct{}

var (
	_ tools.AlwaysAsker = rememberTool{}
	_ tools.Previewer   = rememberTool{}
)

func init() { tools.RegisterBuiltin(rememberTool{}) }

func (rememberTool) Name() string        { return "remember" }
func (rememberTool) Description() string { return rememberDescription }
func (rememberTool) ReadOnly() bool      { return false }
func (rememberTool) AlwaysAsk() bool     { return true }

var rememberSchema = schema(`{
	"type": "object",
	"properties": {
		"scope": {"type": "string", "enum": ["user", "project"], "description": "user: the user's, for every project; project: this workspace's."},
		"name": {"type": "string", "description": "A short name, lower case with dashes, such as go-style. An existing note of that name is replaced."},
		"description": {"type": "string", "description": "One line saying what the note is about, for the memory index."},
		"content": {"type": "string", "description": "The note, in Markdown."}
	},
	"required": ["scope", "name", "description", "content"],
	"additionalProperties": false
}`)

func (rememberTool) Schema() json.RawMessage { return rememberSchema }

// Preview shows the note as it will be saved, and the one it replaces.
func (rememberTool) Preview(env *tools.Env, raw json.RawMessage) (string, error) {
	args, err := decodeArgs[rememberArgs](raw)
	if err != nil {
		return "", err
	}
	n, err := args.note()
	if err != nil {
		return "", err
	}
	store := memory.ForEnv(env)
	path := store.Path(n.Scope, n.Name)
	if path == "" {
		return "", fmt.Errorf("there is no %s memory here", n.Scope)
	}
	note := noteText(n.Description, n.Content)
	where := fmt.Sprintf("%s/%s (%s)", n.Scope, n.Name, env.Rel(path))
	if old, err := store.Get(n.Scope, n.Name); err == nil {
		head := fmt.Sprintf("Replace the note %s, which reads:\n", where)
		tail := "\nwith:\n" + fenced(note)
		room := permission.MaxChangeRunes - shownRunes(head+tail+fenced(""))
		if room < minOldShown {
			return "", noteTooLong(n)
		}
		return head + fenced(clipShown(noteText(old.Description, old.Content), room)) + tail, nil
	}
	preview := fmt.Sprintf("Save the note %s, %s:\n%s", where, scopeWords(n.Scope), fenced(note))
	if shownRunes(preview) > permission.MaxChangeRunes {
		return "", noteTooLong(n)
	}
	return preview, nil
}

// A note is saved only as the person asked saw it: whole. A question
// shows at most permission.MaxChangeRunes characters of a change and cuts
// the middle of a longer one, where an injection would go unseen, so a
// note that does not fit is refused before anyone is asked. The note it
// replaces may be cut instead (to its first minOldShown characters at
// least): the person sees what they approve.
const minOldShown = 200

// noteTooLong is the refusal of a note the question cannot show whole.
func noteTooLong(n memory.Note) error {
	return fmt.Errorf("the note is too long to be shown whole to the person who approves it (%d characters with its description; keep it under about %d): save a shorter note, or split it into several",
		shownRunes(noteText(n.Description, n.Content)), permission.MaxChangeRunes-minOldShown-300)
}

// shownRunes is how many characters a question takes to show text.
func shownRunes(text string) int { return utf8.RuneCountInString(permission.Visible(text)) }

// clipShown cuts text to be shown in at most room characters, saying so.
func clipShown(text string, room int) string {
	if shownRunes(text) <= room {
		return text
	}
	const more = "\n[… the rest of this note is not shown]"
	budget, used := room-utf8.RuneCountInString(more), 0
	for i, r := range text {
		if used += shownRunes(string(r)); used > budget {
			return text[:i] + more
		}
	}
	return text
}

func (rememberTool) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	args, err := decodeArgs[rememberArgs](raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	n, err := args.note()
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	store := memory.ForEnv(env)
	_, getErr := store.Get(n.Scope, n.Name)
	path, err := store.Save(ctx, n)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	// The user approved this change to .reasonix/: the watch over the
	// control files keeps it.
	env.Control.Accept(path)
	verb := "Saved"
	if getErr == nil {
		verb = "Replaced"
	}
	return tools.Result{
		Content: fmt.Sprintf("%s the note %s/%s (%s). Sessions started from now on list it in their memory index.", verb, n.Scope, n.Name, env.Rel(path)),
		Summary: fmt.Sprintf("%s %s/%s", strings.ToLower(verb), n.Scope, n.Name),
	}, nil
}

// scopeWords says whom a scope's notes serve.
func scopeWords(sc memory.Scope) string {
	if sc == memory.User {
		return "in your memory, for every project"
	}
	return "in this project's memory"
}

// noteText is a note as a person approving it reads it.
func noteText(description, content string) string {
	return "description: " + description + "\n\n" + strings.TrimSpace(content)
}

// fenced sets a note off between lines of dashes, as a permission prompt
// shows a change.
func fenced(text string) string {
	const rule = "----------"
	return rule + "\n" + strings.TrimSuffix(text, "\n") + "\n" + rule
}

// findNote resolves a note by name, in scope or, when scope is empty, in
// whichever scope has it; the error is worded for the model.
func findNote(store *memory.Store, scope, name string) (memory.Entry, error) {
	if scope != "" {
		if _, err := memory.ParseScope(scope); err != nil {
			return memory.Entry{}, err
		}
	}
	n, err := memory.CheckName(name)
	if err != nil {
		return memory.Entry{}, err
	}
	found := store.Find(memory.Scope(scope), n)
	switch len(found) {
	case 0:
		return memory.Entry{}, fmt.Errorf("there is no note %q; list the notes with the memory tool to find its name", name)
	case 1:
		return found[0], nil
	}
	return memory.Entry{}, errors.New("both the user's and the project's memory have a note of this name: give scope")
}

// A note is not a workspace file: no Edit rule covers remember, which
// asks every time (AlwaysAsk) and shows the note (Preview).
func (rememberTool) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyMemory, Kind: tools.KindEdit}
}

func (t rememberTool) Describe(args json.RawMessage) tools.Call {
	return tools.Call{Title: tools.Title(t.Name(), tools.ArgString(args, "name", "description")), Wording: "save a note in its memory"}
}
