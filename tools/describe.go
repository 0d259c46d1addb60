package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/reasonix/reasonix/tools/permission"
)

// A Describer is a tool that says what it is and what a call of it does,
// so that no other package need know it by name: the permission rules
// learn which capitalised rule names cover it from its family, the
// approval prompts show its change, and the front ends show its title,
// wording and kind. Every built-in tool implements it, beside its code
// (tools/builtin checks that); Describe gives a generic description of
// any other tool.
type Describer interface {
	// Traits is what holds for every call of the tool.
	Traits() Traits
	// Describe says what one call does, from its arguments alone.
	// Arguments that do not decode give what can be said without them.
	Describe(args json.RawMessage) Call
}

// Traits is what a tool is, whatever its arguments.
type Traits struct {
	// Family says which capitalised permission rules cover the tool
	// (permission.Family).
	Family permission.Family
	// Kind is the tool's kind in the Agent Client Protocol: read, edit,
	// delete, move, search, execute, think, fetch, switch_mode or other.
	Kind string
}

// The kinds a Traits may have (the ACP ToolKind values).
const (
	KindRead       = "read"
	KindEdit       = "edit"
	KindDelete     = "delete"
	KindMove       = "move"
	KindSearch     = "search"
	KindExecute    = "execute"
	KindThink      = "think"
	KindFetch      = "fetch"
	KindSwitchMode = "switch_mode"
	KindOther      = "other"
)

// KnownKind reports whether k is one of the kinds a Traits may have.
func KnownKind(k string) bool {
	switch k {
	case KindRead, KindEdit, KindDelete, KindMove, KindSearch, KindExecute, KindThink, KindFetch, KindSwitchMode, KindOther:
		return true
	}
	return false
}

// Call is what one call does, in the tool's own words.
type Call struct {
	// Title is the call in a few words, the tool's name first
	// ("read_file calc.go", "bash go test ./...", "move_file a.go →
	// b.go"); made visible (permission.Visible) and at most about 80
	// characters.
	Title string
	// Wording is what the agent wants to do, to follow "Reasonix wants
	// to" in a question ("run the command `go test`", "use edit_file on
	// calc.go"), as the arguments spell it, not yet made visible.
	Wording string
	// Reads and Writes are the paths the call reads and changes, as the
	// arguments spell them.
	Reads, Writes []string
	// Change is what the call would change, for a person to approve
	// (permission.Prompt.Change); "" for a call that changes nothing a
	// person reads better than its arguments.
	Change string
}

// An EditPreviewer is a tool that can show, before a call runs, the
// text each file it changes would have: computed by the tool's own code
// from the files' current text, which current gives (existed false for
// a file that does not exist). An error, or no edits, means there is
// nothing to show.
type EditPreviewer interface {
	PreviewEdits(args json.RawMessage, current func(path string) (text string, existed bool, err error)) ([]FileEdit, error)
}

// A FileEdit is one file's text before and after a call.
type FileEdit struct {
	// Path is the file, as the arguments spell it.
	Path     string
	Old, New string
	// Existed is false for a file the call creates.
	Existed bool
}

// Describe returns a tool's traits and its description of a call; a tool
// that does not describe itself gets the generic description (Generic),
// with the paths it declares (FileChanger, FileReader).
func Describe(t Tool, args json.RawMessage) (Traits, Call) {
	if d, ok := t.(Describer); ok {
		return d.Traits(), d.Describe(args)
	}
	tr, c := Generic(t.Name(), args)
	if fc, ok := t.(FileChanger); ok {
		c.Writes, _ = fc.ChangedPaths(args)
	}
	if fr, ok := t.(FileReader); ok {
		c.Reads, _ = fr.ReadPaths(args)
	}
	return tr, c
}

// PathCall describes a call of a tool that names its file in "path":
// titled by it, worded as a use of the tool on it, with the paths the
// tool declares it changes (FileChanger) and reads (FileReader).
func PathCall(t Tool, args json.RawMessage) Call {
	c := Call{Title: Title(t.Name(), ArgString(args, "path")), Wording: UseWording(t.Name(), args)}
	if fc, ok := t.(FileChanger); ok {
		c.Writes, _ = fc.ChangedPaths(args)
	}
	if fr, ok := t.(FileReader); ok {
		c.Reads, _ = fr.ReadPaths(args)
	}
	return c
}

// Generic describes a tool known only by its name, and a call of it by
// its arguments (GenericCall): of no rule family, its kind fetch when its
// name says so, else other.
func Generic(name string, args json.RawMessage) (Traits, Call) {
	tr := Traits{Family: permission.FamilyOther, Kind: KindOther}
	if strings.Contains(name, "fetch") {
		tr.Kind = KindFetch
	}
	return tr, GenericCall(name, args)
}

// genericSubjects are the argument keys that commonly say what a call is
// about, in the order the generic title looks for them.
var genericSubjects = []string{"command", "path", "pattern", "source", "file_path", "question", "query", "name", "description"}

// GenericCall describes a call of a tool that does not describe itself
// (an MCP tool) from the argument keys tools commonly use: its title
// names the first of them the call sets, and a destination after it;
// its wording, and what it reads, name its path.
func GenericCall(name string, args json.RawMessage) Call {
	subject := ArgString(args, genericSubjects...)
	if d, ok := argStrings(args)["destination"]; ok && subject != "" {
		subject += " → " + d
	}
	c := Call{Title: Title(name, subject), Wording: UseWording(name, args)}
	if p := ArgString(args, "path"); p != "" {
		c.Reads = []string{p}
	}
	return c
}

// Title renders a call's title: the tool's name and the subject, its
// blanks collapsed, made visible (what the model wrote must not hide or
// reorder what a title says, on a terminal or in a question) and cut at
// 80 characters.
func Title(name, subject string) string {
	subject = permission.Visible(strings.Join(strings.Fields(subject), " "))
	if r := []rune(subject); len(r) > 80 {
		subject = string(r[:79]) + "…"
	}
	if subject == "" {
		return name
	}
	return name + " " + subject
}

// UseWording is the wording of a call that is only a use of a tool: "use
// edit_file on calc.go" when the call names a path, else "use the tool
// x".
func UseWording(name string, args json.RawMessage) string {
	if p := ArgString(args, "path"); p != "" {
		return fmt.Sprintf("use %s on %s", name, p)
	}
	return "use the tool " + name
}

// ArgString returns the first of the keys that the arguments set to a
// string that is not empty; "" for none. It reads arguments however
// badly typed the rest of them are.
func ArgString(args json.RawMessage, keys ...string) string {
	m := argStrings(args)
	for _, k := range keys {
		if s := m[k]; s != "" {
			return s
		}
	}
	return ""
}

// HasString reports whether the arguments set key to a string, empty
// or not.
func HasString(args json.RawMessage, key string) bool {
	_, ok := argStrings(args)[key]
	return ok
}

// argStrings returns the arguments that are strings, by key.
func argStrings(args json.RawMessage) map[string]string {
	var m map[string]any
	json.Unmarshal(args, &m)
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// CurrentText is the current text of the file at p as the tools that
// change files read it, for an EditPreviewer's current: resolved and
// judged as a write (WritePath), then read as ReadConfined reads it (an
// editor's buffer, or the disk judged by its real path), so a preview
// shows nothing the call itself could not read. A file that does not
// exist gives existed false; a binary file, an error.
func (e *Env) CurrentText(p string) (text string, existed bool, err error) {
	abs, err := e.WritePath(p)
	if err != nil {
		return "", false, err
	}
	data, err := e.ReadConfined(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, err
	case IsBinary(data):
		return "", false, fmt.Errorf("%s is a binary file", p)
	}
	return string(data), true, nil
}
