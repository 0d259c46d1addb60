package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/permission"
)

// renderer shows a headless run: the answer streams to stdout, everything
// else (tool activity, notices, the final accounting) goes to stderr, so
// `reasonix run ... > answer.md` captures just the answer.
//
// Everything it writes that came from the model, a tool, a file or an MCP
// server — the answer, the reasoning, tool titles, summaries and progress,
// notices — goes through shown first: a hostile model or file must not
// send the terminal escape sequences (set its title, write the clipboard,
// erase or forge lines) nor reorder text with bidirectional controls.
// The answer is escaped on stdout too when stdout is a file or a pipe:
// a later cat of the file would replay the sequences. Clean text is
// written byte for byte.
type renderer struct {
	mu      sync.Mutex // guards the fields below and the writers
	out     io.Writer
	err     io.Writer
	tty     bool // stderr is a terminal: status lines, and colours unless NO_COLOR
	colour  bool // stderr is a terminal and NO_COLOR is not set
	outTTY  bool // stdout is a terminal: the answer streams unbuffered
	verbose bool
	model   string

	// pending holds the current step's answer text when stdout is not a
	// terminal. It is written once the model's response is complete, so
	// a response that fails halfway and is retried leaves no half answer
	// in a redirected file.
	pending strings.Builder

	// atLineStart tracks whether the answer streamed to a terminal ended
	// with a newline, so stderr lines never glue onto a half-written
	// answer line. Held text needs no tracking: flush ends its line.
	atLineStart bool
	// transient is set while a "running…" status line is shown on a
	// terminal and must be cleared before anything else is written.
	transient bool
	reasoning bool
	// lastNotice is the text of the notice that is the last thing on
	// stderr ("" once anything else is written), so that a question
	// about what it just showed (the planner's plan) need not repeat it.
	lastNotice string
}

func newRenderer(out, err io.Writer, tty, outTTY, verbose bool) *renderer {
	return &renderer{out: out, err: err, tty: tty, outTTY: outTTY, verbose: verbose, atLineStart: true,
		colour: tty && os.Getenv("NO_COLOR") == ""}
}

// shown is text from the model, a tool, a file or an MCP server as it may
// reach a terminal: control characters (but line breaks and tabs) and
// bidirectional controls escaped, each alone, so text streamed in pieces
// is escaped however it is cut.
func shown(text string) string { return permission.Visible(text) }

// write sends answer text to stdout, or holds it until the step's response
// is complete; callers hold mu.
func (r *renderer) write(text string) {
	if !r.outTTY {
		r.pending.WriteString(text)
		return
	}
	fmt.Fprint(r.out, text)
	r.atLineStart = strings.HasSuffix(text, "\n")
}

// flush writes the held answer text of a complete response as whole
// lines: it ends with exactly one newline, so in a file (or a pipe that
// merges stderr) the next tool row or the next step's text starts a line
// of its own, with no blank line between; callers hold mu.
func (r *renderer) flush() {
	if text := strings.TrimRight(r.pending.String(), "\n"); text != "" {
		fmt.Fprintln(r.out, text)
	}
	r.pending.Reset()
}

const (
	dim   = "\x1b[2m"
	red   = "\x1b[31m"
	green = "\x1b[32m"
	cyan  = "\x1b[36m"
	reset = "\x1b[0m"
)

// color colours s on a terminal, unless the user asked for no colour
// (NO_COLOR).
func (r *renderer) color(c, s string) string {
	if !r.colour {
		return s
	}
	return c + s + reset
}

// clearTransient erases the status line; callers hold mu.
func (r *renderer) clearTransient() {
	if r.transient {
		fmt.Fprint(r.err, "\r\x1b[K")
		r.transient = false
	}
}

// line writes one stderr line; callers hold mu.
func (r *renderer) line(s string) {
	r.lastNotice = ""
	r.clearTransient()
	r.endReasoning()
	r.endAnswerLine()
	fmt.Fprintln(r.err, s)
}

// endAnswerLine finishes a half-written answer line so stderr output does
// not glue onto it in a terminal; callers hold mu.
func (r *renderer) endAnswerLine() {
	if r.outTTY && !r.atLineStart {
		r.write("\n")
	}
}

func (r *renderer) endReasoning() {
	if r.reasoning {
		fmt.Fprintln(r.err, r.color(reset, ""))
		r.reasoning = false
	}
}

func (r *renderer) event(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case agent.EventText:
		r.clearTransient()
		r.endReasoning()
		r.write(shown(e.Text))
	case agent.EventReasoning:
		if !r.verbose {
			if r.tty && !r.transient {
				fmt.Fprint(r.err, r.color(dim, "… thinking"))
				r.transient = true
			}
			return
		}
		r.clearTransient()
		if !r.reasoning {
			fmt.Fprint(r.err, r.color(dim, ""))
			r.reasoning = true
		}
		fmt.Fprint(r.err, shown(e.Text))
	case agent.EventRetry:
		if r.outTTY {
			r.line(r.color(dim, "! "+shown(e.Text)+" (the answer starts over)"))
		} else {
			r.pending.Reset()
			r.line(r.color(dim, "! "+shown(e.Text)))
		}
	case agent.EventUsage:
		// The model's response is complete.
		r.flush()
	case agent.EventToolStart:
		r.flush()
		if r.tty {
			r.clearTransient()
			r.endReasoning()
			r.endAnswerLine()
			r.flush()
			fmt.Fprint(r.err, r.color(dim, nested(e)+"… "+shown(e.Tool.Title)))
			r.transient = true
		}
	case agent.EventToolProgress:
		// On a terminal the running tool's status line says how far
		// along it is; elsewhere the result line is enough.
		if r.tty && r.transient {
			r.clearTransient()
			fmt.Fprint(r.err, r.color(dim, nested(e)+"… "+shown(e.Tool.Title)+" — "+shown(e.Text)))
			r.transient = true
		}
	case agent.EventToolResult:
		t := e.Tool
		mark, c := "✓", green
		if t.IsError {
			mark, c = "✗", red
		}
		s := nested(e) + r.color(c, mark) + " " + shown(t.Title)
		if t.Summary != "" {
			s += r.color(dim, " — "+shown(t.Summary))
		}
		if t.DurationMs >= 1000 {
			s += r.color(dim, fmt.Sprintf(" (%.1fs)", float64(t.DurationMs)/1000))
		}
		r.line(s)
	case agent.EventCheck:
		if e.Tests != nil && e.Text == "tested: "+agent.TestsSummary(e.Tests) {
			// The tests' last word: the closing line says it.
			return
		}
		r.line(r.color(dim, "note: "+shown(e.Text)))
		r.lastNotice = e.Text
	case agent.EventNotice, agent.EventCompaction, agent.EventRepair, agent.EventHook:
		r.line(r.color(dim, "note: "+shown(e.Text)))
		r.lastNotice = e.Text
	case agent.EventFileChanged:
		if e.File.Source == agent.SourceShell {
			r.line(r.color(dim, "  "+string(e.File.Status)+" "+shown(e.File.Path)))
		}
	case agent.EventError:
		// The command reports the error itself, with advice; the text of
		// the failed response is void.
		r.pending.Reset()
	}
}

// nested is what precedes the row of a call made by a sub-task's child
// session or by the planner (e.Parent set): they are indented under the
// parent's work, as the editors' chat panels show them, so a reader does
// not take the helper's reads for the agent's own.
func nested(e agent.Event) string {
	if e.Parent != "" {
		return "  ↳ "
	}
	return ""
}

// notice prints a message from outside the event stream.
func (r *renderer) notice(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.line(r.color(dim, "note: "+shown(msg)))
}

// warning prints a problem that does not stop the run, such as an MCP
// server that could not start.
func (r *renderer) warning(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.line(r.color(red, "warning: ") + shown(msg))
}

// finish ends the answer and prints the accounting line.
func (r *renderer) finish(res agent.TurnResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearTransient()
	r.endReasoning()
	r.endAnswerLine()
	r.flush()
	u := res.Usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return // no request succeeded: nothing to account
	}
	parts := []string{
		fmt.Sprintf("turn %d", res.Turn),
		plural(res.Steps, "request"),
		plural(res.ToolCalls, "tool call"),
		fmt.Sprintf("%s in (%.1f%% cache hit) + %s out", tokens(u.PromptTokens), 100*u.HitRatio(), tokens(u.CompletionTokens)),
	}
	if res.Priced {
		parts = append(parts, fmt.Sprintf("$%.4f (session $%.4f, %.1f%% cache hit)", res.Cost, res.SessionCost, 100*res.Session.HitRatio()))
	}
	if n := agent.NewErrorsSummary(res.NewErrors); n != "" {
		parts = append(parts, n)
	}
	if ts := agent.TestsSummary(res.Tests); ts != "" {
		parts = append(parts, ts)
	}
	switch {
	case res.EscalatedFrom != "":
		parts = append(parts, res.Model+" (escalated from "+res.EscalatedFrom+")")
	case r.model != "":
		parts = append(parts, r.model)
	}
	if res.Effort != "" {
		parts = append(parts, "effort "+res.Effort)
	}
	parts = append(parts, "session "+res.SessionID)
	fmt.Fprintln(r.err, r.color(dim, "— "+strings.Join(parts, " · ")))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// tokens renders a token count compactly: 950, 12.3k, 1.2M.
func tokens(n int) string { return agent.FormatTokens(n) }
