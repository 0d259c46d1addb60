package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reasonix/reasonix/tools"
)

// Elicitation is a server asking the user for input in the middle of a
// tool call (elicitation/create). Reasonix declares the capability for
// form mode to every server, whoever will answer, because the servers
// are shared by sessions of which some have a user to ask and some do
// not, and the capability is fixed when the server is first connected.
// Where no one can answer, the request is declined: a server never gets
// an answer no person gave.
//
// The request is put to the user of the tool call in flight to the
// server, the latest when there are several, through that call's
// tools.Asker (the one the ask tool uses): a terminal prompt, an editor
// dialog or panel card, an ACP permission request. A form is a chain of
// questions: first whether to answer at all ("Accept", "Decline";
// dismissing cancels), then one per field, the field's choices as the
// answers (an enum's values, Yes/No for a boolean) and its default, if
// any, as the one suggested answer of a free-text field. Leaving a field
// unanswered takes its default; a required field left without an answer
// or a default, or answered with a value of the wrong type, cancels the
// request. A front end whose questions take only the offered answers
// (window/showMessageRequest, ACP) can therefore fill only fields with
// choices or defaults.

// Answers of the first question of an elicitation.
const (
	elicitAccept  = "Accept"
	elicitDecline = "Decline"
)

// elicitation results.
var (
	declined  = &mcp.ElicitResult{Action: "decline"}
	cancelled = &mcp.ElicitResult{Action: "cancel"}
)

// A caller is a tool call in flight to a server: whom an elicitation it
// causes is put to.
type caller struct {
	ctx     context.Context // the call's: an answer is no longer wanted when it ends
	asker   tools.Asker     // nil when no one can be asked
	session string          // the session the call belongs to
}

// callers are the tool calls in flight to one server.
type callers struct {
	mu   sync.Mutex // guards list
	list []*caller  // in the order the calls began
}

// enter records a call in flight until the returned function is called.
func (cs *callers) enter(ctx context.Context, env *tools.Env) (leave func()) {
	c := &caller{ctx: ctx, session: tools.SessionOf(ctx)}
	if env != nil {
		c.asker = env.Asker
	}
	cs.mu.Lock()
	cs.list = append(cs.list, c)
	cs.mu.Unlock()
	return func() {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		cs.list = slices.DeleteFunc(cs.list, func(x *caller) bool { return x == c })
	}
}

// latest returns the call that began last, or nil when none is in flight.
func (cs *callers) latest() *caller {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.list) == 0 {
		return nil
	}
	return cs.list[len(cs.list)-1]
}

// elicit answers the server's elicitation/create request. The SDK has
// checked a form's schema before, and afterwards checks the content
// against it and fills in the defaults of fields left out.
func (s *server) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	c := s.callers.latest()
	if c == nil || c.asker == nil || p.Mode == "url" {
		// Outside a tool call, in a call no one watches, or a page to
		// open in a browser, which Reasonix does not declare.
		s.m.log.Info("MCP elicitation declined: no one to ask", "server", s.name, "mode", p.Mode)
		return declined, nil
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(c.ctx, stop)()
	res, err := askForm(ctx, c.asker, c.session, s.name, p)
	if err != nil {
		if ctx.Err() != nil {
			return cancelled, nil
		}
		// The front end could not ask (an editor without dialogs).
		s.m.log.Info("MCP elicitation declined", "server", s.name, "error", err)
		return declined, nil
	}
	return res, nil
}

// A formField is one property of an elicitation's requested schema.
type formField struct {
	name        string
	title       string
	description string
	typ         string // "string", "number", "integer" or "boolean"
	required    bool
	def         any // nil when there is none
	// values and labels are an enum's values and how they are shown.
	values []string
	labels []string
}

// schemaProperty is the part of a property schema a form uses.
type schemaProperty struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Default     any      `json:"default"`
	Enum        []string `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	OneOf       []struct {
		Const string `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
}

// formFields reads the fields of a requested schema, sorted by name: the
// SDK hands the schema over as a map, without the server's order.
func formFields(schema any) ([]formField, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	var obj struct {
		Properties map[string]schemaProperty `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	fields := make([]formField, 0, len(obj.Properties))
	for name, p := range obj.Properties {
		f := formField{name: name, title: p.Title, description: p.Description, typ: p.Type,
			required: slices.Contains(obj.Required, name), def: p.Default}
		switch {
		case len(p.OneOf) > 0:
			for _, o := range p.OneOf {
				f.values = append(f.values, o.Const)
				f.labels = append(f.labels, cmpOr(o.Title, o.Const))
			}
		case len(p.Enum) > 0:
			f.values = p.Enum
			f.labels = p.Enum
			if len(p.EnumNames) == len(p.Enum) {
				f.labels = p.EnumNames
			}
		}
		fields = append(fields, f)
	}
	slices.SortFunc(fields, func(a, b formField) int { return strings.Compare(a.name, b.name) })
	return fields, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// askForm puts a form elicitation to the user as a chain of questions,
// as the comment at the top of this file describes.
func askForm(ctx context.Context, asker tools.Asker, session, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	fields, err := formFields(p.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %q asks: %s", server, strings.TrimSpace(p.Message))
	if len(fields) > 0 {
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = cmpOr(f.title, f.name)
		}
		fmt.Fprintf(&b, " (it wants: %s)", strings.Join(names, ", "))
	}
	answer, err := asker.Ask(ctx, tools.Question{SessionID: session, Question: b.String(), Options: []string{elicitAccept, elicitDecline}})
	switch {
	case err != nil:
		return nil, err
	case answer == elicitDecline:
		return declined, nil
	case answer != elicitAccept:
		return cancelled, nil
	}
	content := map[string]any{}
	for _, f := range fields {
		v, ok, err := askField(ctx, asker, session, f)
		if err != nil {
			return nil, err
		}
		if !ok {
			return cancelled, nil
		}
		if v != nil {
			content[f.name] = v
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// askField asks for one field's value. It returns the value (nil to
// leave an optional field out) and whether the form can go on.
func askField(ctx context.Context, asker tools.Asker, session string, f formField) (any, bool, error) {
	if !slices.Contains([]string{"string", "number", "integer", "boolean"}, f.typ) {
		// A multiple choice (an array) has no question here: its default
		// stands, or the form cannot be filled when it is required.
		return f.def, f.def != nil || !f.required, nil
	}
	q := cmpOr(f.title, f.name)
	if f.description != "" {
		q += ": " + f.description
	}
	var options []string
	switch {
	case len(f.labels) > 0:
		options = f.labels
	case f.typ == "boolean":
		options = []string{"Yes", "No"}
	case f.def != nil:
		options = []string{fmt.Sprint(f.def)}
	}
	if f.def != nil {
		q += fmt.Sprintf(" (default: %v)", f.def)
	}
	answer, err := asker.Ask(ctx, tools.Question{SessionID: session, Question: q, Options: options})
	if err != nil {
		return nil, false, err
	}
	answer = strings.TrimSpace(answer)
	if answer == "" {
		if f.def != nil {
			return f.def, true, nil
		}
		return nil, !f.required, nil
	}
	v, ok := parseField(f, answer)
	return v, ok, nil
}

// parseField turns an answer into a value of the field's type; ok is
// false when it is not one.
func parseField(f formField, answer string) (v any, ok bool) {
	if len(f.values) > 0 {
		for i, l := range f.labels {
			if answer == l || answer == f.values[i] {
				return f.values[i], true
			}
		}
		return nil, false
	}
	switch f.typ {
	case "boolean":
		switch strings.ToLower(answer) {
		case "yes", "y", "true":
			return true, true
		case "no", "n", "false":
			return false, true
		}
		return nil, false
	case "integer":
		n, err := strconv.ParseInt(answer, 10, 64)
		return n, err == nil
	case "number":
		n, err := strconv.ParseFloat(answer, 64)
		return n, err == nil
	}
	return answer, true
}
