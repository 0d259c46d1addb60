package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/reasonix/reasonix/lsp/udiff"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
)

// What a terminal approval shows of a call's change, before the question:
// a unified diff of each file it changes, as the tool itself computes the
// files' new text (tools.EditPreviewer), or else the change in the tool's
// words (permission.Prompt.Change). A long one is shortened to its first
// lines, and v shows it whole.

const (
	// diffContext is how many unchanged lines surround each change.
	diffContext = 3
	// shortChange is how many lines of a change a question shows before
	// it offers the rest.
	shortChange = 30
)

// A shownChange is a call's change as a question shows it.
type shownChange struct {
	// lines are the change's lines, made visible and coloured.
	lines []string
	// plain is the whole change, made visible and uncoloured, for a
	// pager.
	plain string
	// whole is set when the question must show every line: a call
	// asked about every time (a note to remember, a change to a control
	// file) is approved as it was seen, and the gate refuses one too long
	// to show.
	whole bool
}

// previewEdits returns what gives the file edits a call of a tool in
// reg would make, as the tool computes them from the files' current
// text, read as the tool would read it through env (so nothing the
// sandbox or the rules forbid reading is shown); nil when the tool
// cannot say. Paths are shown relative to the workspace.
func previewEdits(reg *tools.Registry, env *tools.Env) func(tool string, args json.RawMessage) []tools.FileEdit {
	return func(name string, args json.RawMessage) []tools.FileEdit {
		t, _ := reg.Get(name)
		ep, ok := t.(tools.EditPreviewer)
		if !ok {
			return nil
		}
		edits, err := ep.PreviewEdits(args, env.CurrentText)
		if err != nil {
			return nil
		}
		for i := range edits {
			edits[i].Path = env.Rel(env.Abs(edits[i].Path))
		}
		return edits
	}
}

// change is what the question about p shows of its change: nil for a
// call that changes nothing a person reads better than its arguments.
func (t *termApprover) change(p permission.Prompt) *shownChange {
	if p.Preview == "" && t.edits != nil {
		var lines []udiff.Line
		for _, e := range t.edits(p.Tool, p.Args) {
			lines = append(lines, udiff.Lines(udiff.File{Name: e.Path, Old: e.Old, New: e.New, Created: !e.Existed}, diffContext)...)
		}
		if len(lines) > 0 {
			c := &shownChange{plain: shown(udiff.Text(lines)), whole: p.AlwaysAsk}
			for _, l := range lines {
				c.lines = append(c.lines, t.r.diffLine(l))
			}
			return c
		}
	}
	text := p.Change()
	if text == "" {
		return nil
	}
	return &shownChange{lines: strings.Split(text, "\n"), plain: text + "\n", whole: p.AlwaysAsk}
}

// diffLine renders one line of a diff: removed lines red, added green,
// headers dim, as the renderer colours (not at all when it does not).
func (r *renderer) diffLine(l udiff.Line) string {
	s := shown(l.String())
	switch l.Kind {
	case udiff.Removed:
		return r.color(red, s)
	case udiff.Added:
		return r.color(green, s)
	case udiff.Hunk:
		return r.color(cyan, s)
	case udiff.Header, udiff.NoEOL:
		return r.color(dim, s)
	}
	return s
}

// show writes the change under the question, indented, its first lines
// only when it is long; it reports whether it left lines out. Callers
// hold r.mu.
func (c *shownChange) show(r *renderer) (shortened bool) {
	lines := c.lines
	if !c.whole && len(lines) > shortChange+1 {
		lines = lines[:shortChange]
	}
	for _, l := range lines {
		r.line("  " + l)
	}
	if more := len(c.lines) - len(lines); more > 0 {
		r.line(r.color(dim, fmt.Sprintf("  … %d more lines — press v to see the whole change", more)))
		return true
	}
	return false
}

// showWhole shows all of the change: through $PAGER when it is set and
// stderr is a terminal the pager can take, else on stderr. Callers hold
// r.mu.
func (c *shownChange) showWhole(ctx context.Context, r *renderer) {
	if page(ctx, r, c.plain) {
		return
	}
	for _, l := range c.lines {
		r.line("  " + l)
	}
}

// page runs $PAGER (a program and its arguments, as git reads it without
// a shell) on text, writing to stderr, and reports whether it did. No
// read of the terminal is pending meanwhile (readLine reads only when
// asked), so the pager has the keyboard to itself.
func page(ctx context.Context, r *renderer, text string) bool {
	pager := strings.Fields(os.Getenv("PAGER"))
	out, ok := r.err.(*os.File)
	if len(pager) == 0 || !ok {
		return false
	}
	cmd := exec.CommandContext(ctx, pager[0], pager[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(text), out, out
	return cmd.Run() == nil
}
