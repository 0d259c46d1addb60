package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

var _ tools.CodeActor = (*Manager)(nil)

// actionDiagWait bounds the wait for a file's diagnostics before its code
// actions are asked for: the server's quick fixes answer the diagnostics
// the request carries, and a server still checking the file has none yet.
const actionDiagWait = 10 * time.Second

// An action is one entry of a textDocument/codeAction answer, read
// loosely: raw is sent back as it came for codeAction/resolve.
type action struct {
	raw         json.RawMessage
	Title       string                   `json:"title"`
	Kind        string                   `json:"kind"`
	IsPreferred bool                     `json:"isPreferred"`
	Disabled    *struct{ Reason string } `json:"disabled"`
	Edit        json.RawMessage          `json:"edit"`
	Command     json.RawMessage          `json:"command"`
	Data        json.RawMessage          `json:"data"`
	fixes       []string
}

// command returns the command the action runs, for an action that is a
// bare Command or carries one.
func (a *action) command() (*protocol.Command, error) {
	var c protocol.Command
	if len(a.Command) > 0 && a.Command[0] == '"' {
		// A bare Command: the entry itself.
		return &c, json.Unmarshal(a.raw, &c)
	}
	if !present(a.Command) {
		return nil, nil
	}
	return &c, json.Unmarshal(a.Command, &c)
}

// A commandCapture collects the edits a server asks the client to apply
// (workspace/applyEdit) while one of its commands runs: a command-only
// code action makes its edit that way. Reasonix applies them itself,
// through the FS, once the command has ended.
type commandCapture struct {
	run sync.Mutex // held while a command runs, so that the edits sent are known to be its own
	mu  sync.Mutex // guards edits and active
	// active is set while a command runs; edits are what it sent.
	active bool
	edits  []protocol.WorkspaceEdit
}

// take records an edit the server asks to apply, and reports whether a
// command is running to take it. It never blocks: it runs on the
// connection's read loop.
func (c *commandCapture) take(e protocol.WorkspaceEdit) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active {
		c.edits = append(c.edits, e)
	}
	return c.active
}

// execute runs a command on the server and returns the edits it sent
// back while it ran.
func (s *server) execute(ctx context.Context, cmd *protocol.Command) ([]protocol.WorkspaceEdit, error) {
	c := &s.commands
	c.run.Lock()
	defer c.run.Unlock()
	c.mu.Lock()
	c.active, c.edits = true, nil
	c.mu.Unlock()
	err := s.call(ctx, "workspace/executeCommand", &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments}, nil)
	c.mu.Lock()
	edits := c.edits
	c.active, c.edits = false, nil
	c.mu.Unlock()
	return edits, err
}

// editKind reports whether an action of kind k is, by the protocol's
// meaning of its kind, a change to the code: only such actions have their
// commands run. Other kinds' commands show documents, run tests or
// toggle the server's settings, which is not this tool's business (and
// running tests is running the project's code).
func editKind(k string) bool {
	for _, base := range []string{"quickfix", "refactor", "source.organizeImports", "source.fixAll"} {
		if k == base || strings.HasPrefix(k, base+".") {
			return true
		}
	}
	return false
}

// lineRange is the range of whole lines line to endLine of t, in the
// server's encoding.
func lineRange(t *wire.Text, line, endLine int, enc wire.Encoding) (protocol.Range, error) {
	if endLine == 0 {
		endLine = line
	}
	if line < 1 || endLine < line {
		return protocol.Range{}, fmt.Errorf("lines %d to %d are not a range", line, endLine)
	}
	if endLine > t.Lines() {
		return protocol.Range{}, fmt.Errorf("the file has %d lines", t.Lines())
	}
	return protocol.Range{
		Start: protocol.Position{Line: uint32(line - 1)},
		End:   toServer(t, endLine, len(t.Line(endLine-1))+1, enc),
	}, nil
}

// before reports whether position a comes before b.
func before(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// overlapping returns the diagnostics whose range meets r.
func overlapping(diags []protocol.Diagnostic, r protocol.Range) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	for _, d := range diags {
		if !before(d.Range.End, r.Start) && !before(r.End, d.Range.Start) {
			out = append(out, d)
		}
	}
	return out
}

// codeActions asks the server of the file at q.Path for its actions at
// q's lines, with the server's diagnostics there as their context.
func (m *Manager) codeActions(ctx context.Context, src *source, s *server, q tools.CodeActionQuery) ([]*action, error) {
	t := src.text(q.Path)
	if t == nil {
		return nil, fmt.Errorf("cannot read %s", m.rel(q.Path))
	}
	rng, err := lineRange(t, q.Line, q.EndLine, s.enc)
	if err != nil {
		return nil, err
	}
	got, err := m.actionDiagnostics(ctx, src, s, q)
	if err != nil {
		return nil, err
	}
	params := protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(q.Path)},
		Range:        rng,
		Context: protocol.CodeActionContext{
			Diagnostics: overlapping(got[q.Path], rng),
			TriggerKind: protocol.CodeActionTriggerKindInvoked,
		},
	}
	for _, k := range q.Only {
		params.Context.Only = append(params.Context.Only, protocol.CodeActionKind(k))
	}
	var raws []json.RawMessage
	var res jsonrpc2.RawMessage
	if err := s.call(ctx, "textDocument/codeAction", &params, &res); err != nil {
		return nil, fmt.Errorf("%s: code actions: %w", s.name, err)
	}
	if present(json.RawMessage(res)) {
		if err := json.Unmarshal(res, &raws); err != nil {
			return nil, fmt.Errorf("%s: reading its code actions: %w", s.name, err)
		}
	}
	var out []*action
	for _, raw := range raws {
		a := &action{raw: raw}
		if err := json.Unmarshal(raw, a); err != nil {
			return nil, fmt.Errorf("%s: reading a code action: %w", s.name, err)
		}
		var ds struct {
			Diagnostics []protocol.Diagnostic `json:"diagnostics"`
		}
		if protocol.Unmarshal(raw, &ds) == nil {
			for _, d := range ds.Diagnostics {
				a.fixes = append(a.fixes, message(d))
			}
		}
		if len(q.Only) == 0 || slices.ContainsFunc(q.Only, func(k string) bool { return a.Kind == k || strings.HasPrefix(a.Kind, k+".") }) {
			out = append(out, a)
		}
	}
	return out, nil
}

// actionDiagnostics returns the server's diagnostics of the file at
// q.Path, synced, when q asks for quick fixes, which answer them; other
// kinds need none, and are not kept waiting for a check of the file.
func (m *Manager) actionDiagnostics(ctx context.Context, src *source, s *server, q tools.CodeActionQuery) (map[string][]protocol.Diagnostic, error) {
	fixes := len(q.Only) == 0 || slices.ContainsFunc(q.Only, func(k string) bool {
		return k == "" || k == "quickfix" || strings.HasPrefix(k, "quickfix.")
	})
	if !fixes {
		return nil, s.sync(ctx, src, []string{q.Path})
	}
	wctx, cancel := context.WithTimeout(ctx, actionDiagWait)
	defer cancel()
	got, err := s.freshOrDiagnose(wctx, src, q.Path, time.Now().Add(actionDiagWait))
	switch {
	case err == nil:
		return got, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		// What the server has said so far: its fixes for the rest come
		// with its next report.
		return s.latest([]string{q.Path}), nil
	}
	return nil, err
}

// actionServer returns the supervisor of the file's server, or the
// model's reason there is none.
func (m *Manager) actionServer(path string) (*supervisor, error) {
	if !m.Checks(path) {
		_, err := m.config(path)
		return nil, err
	}
	return m.supervisorFor(path)
}

// CodeActions lists what the file's server offers at q's lines.
func (m *Manager) CodeActions(ctx context.Context, q tools.CodeActionQuery) ([]tools.CodeAction, error) {
	q.Path = m.abs(q.Path)
	sv, err := m.actionServer(q.Path)
	if err != nil {
		return nil, err
	}
	src := m.source()
	var out []tools.CodeAction
	err = m.withServer(ctx, sv, func(s *server) error {
		acts, err := m.codeActions(ctx, src, s, q)
		if err != nil {
			return err
		}
		out = out[:0]
		for _, a := range acts {
			ca := tools.CodeAction{Title: a.Title, Kind: a.Kind, Preferred: a.IsPreferred, Fixes: a.fixes}
			if a.Disabled != nil {
				ca.Disabled = a.Disabled.Reason
				if ca.Disabled == "" {
					ca.Disabled = "disabled"
				}
			}
			out = append(out, ca)
		}
		return nil
	})
	return out, err
}

// ApplyCodeAction asks the server for its actions at q's lines again
// (actions are not stable across requests), picks the one titled title,
// and turns its edit into changes: the edit it carries, else the one
// codeAction/resolve gives, else the one its command sends back.
func (m *Manager) ApplyCodeAction(ctx context.Context, q tools.CodeActionQuery, title string) ([]tools.Change, string, error) {
	q.Path = m.abs(q.Path)
	sv, err := m.actionServer(q.Path)
	if err != nil {
		return nil, "", err
	}
	src := m.source()
	var changes []tools.Change
	var summary string
	err = m.withServer(ctx, sv, func(s *server) error {
		acts, err := m.codeActions(ctx, src, s, q)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(acts, func(a *action) bool { return a.Title == title })
		if i < 0 {
			var titles []string
			for _, a := range acts {
				titles = append(titles, fmt.Sprintf("%q", a.Title))
			}
			if len(titles) == 0 {
				return fmt.Errorf("%s offers no code actions at %s:%d", s.name, m.rel(q.Path), q.Line)
			}
			return fmt.Errorf("%s offers no code action titled %q there; it offers %s", s.name, title, strings.Join(titles, ", "))
		}
		a := acts[i]
		if a.Disabled != nil {
			return fmt.Errorf("%s says %q cannot apply now: %s", s.name, title, a.Disabled.Reason)
		}
		edits, err := m.actionEdits(ctx, s, a)
		if err != nil {
			return err
		}
		cs, total, files, err := m.workspaceChanges(src, &edits[0], s.enc)
		if err != nil {
			return fmt.Errorf("applying %s's edit for %q: %w", s.name, title, err)
		}
		changes = cs
		if len(changes) == 0 {
			return fmt.Errorf("%q changes nothing here", title)
		}
		summary = fmt.Sprintf("applied %s: %s in %s", title, plural(total, "edit"), plural(files, "file"))
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	m.FilesChanged(touched(changes))
	return changes, summary, nil
}

// actionEdits returns the workspace edits applying a makes.
// It is one edit: the one the action carries or resolves to, or the one
// its command sends.
func (m *Manager) actionEdits(ctx context.Context, s *server, a *action) ([]protocol.WorkspaceEdit, error) {
	if !present(a.Edit) && present(a.Data) && s.caps.resolveActions {
		var res jsonrpc2.RawMessage
		if err := s.call(ctx, "codeAction/resolve", json.RawMessage(a.raw), &res); err != nil {
			return nil, fmt.Errorf("%s: resolving %q: %w", s.name, a.Title, err)
		}
		resolved := &action{raw: json.RawMessage(res)}
		if err := json.Unmarshal(res, resolved); err != nil {
			return nil, fmt.Errorf("%s: reading the resolved %q: %w", s.name, a.Title, err)
		}
		a = resolved
	}
	if present(a.Edit) {
		var e protocol.WorkspaceEdit
		if err := protocol.Unmarshal(a.Edit, &e); err != nil {
			return nil, fmt.Errorf("%s: reading the edit of %q: %w", s.name, a.Title, err)
		}
		return []protocol.WorkspaceEdit{e}, nil
	}
	cmd, err := a.command()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the command of %q: %w", s.name, a.Title, err)
	}
	if cmd == nil {
		return nil, fmt.Errorf("%s's %q carries neither an edit nor a command", s.name, a.Title)
	}
	if !editKind(a.Kind) {
		return nil, fmt.Errorf("%q (kind %q) is not an edit: it runs %s's command %s, which code_action does not run; ask the user to use it from the editor", a.Title, a.Kind, s.name, cmd.Command)
	}
	edits, err := s.execute(ctx, cmd)
	// What the command did beyond its edits (gopls runs the go command
	// for some fixes) is on disk: the servers look again.
	m.DiskChanged()
	if err != nil {
		return nil, fmt.Errorf("%s: running %q: %w", s.name, a.Title, err)
	}
	switch len(edits) {
	case 0:
		return nil, fmt.Errorf("%s ran %q but sent no edit to apply", s.name, a.Title)
	case 1:
		return edits, nil
	}
	// Each edit is made against the text the one before left, which
	// workspaceChanges does not follow across edits.
	return nil, fmt.Errorf("%s ran %q and sent %d edits; code_action applies one", s.name, a.Title, len(edits))
}

// touched lists the files changes write, move or delete.
func touched(changes []tools.Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Path)
		if c.NewPath != "" {
			out = append(out, c.NewPath)
		}
	}
	return out
}

// codeActionCapabilities declares what the graph's client does with code
// actions: it reads them as literals of any kind, and resolves their
// edits lazily, as gopls prefers for its refactorings.
func codeActionCapabilities() map[string]any {
	return map[string]any{
		"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": []string{
			"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports", "source.fixAll",
		}}},
		"isPreferredSupport": true,
		"disabledSupport":    true,
		"dataSupport":        true,
		"resolveSupport":     map[string]any{"properties": []string{"edit"}},
	}
}

// readActions takes the code action and formatting capabilities from a
// server's initialize result.
func (c *capabilities) readActions(actions, formatting, rangeFormatting json.RawMessage) {
	var opts struct {
		ResolveProvider bool `json:"resolveProvider"`
	}
	if json.Unmarshal(actions, &opts) == nil {
		c.resolveActions = opts.ResolveProvider
	}
	c.formatting = present(formatting)
	c.rangeFormatting = present(rangeFormatting)
}
