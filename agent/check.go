package agent

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/gotest"
)

// Checked before shown: when the model ends a turn that changed files, the
// project graph's language servers diagnose the changed files twice, as
// they were before the turn and as the agent sees them now, both given
// as overlays, so nothing is written and unsaved or proposed text counts.
// Errors found now and not before are the turn's. The model gets one
// bounded round to repair them; what remains is reported with the turn.

// Defaults of the check.
const (
	// DefaultCheckTimeout bounds one check (both diagnoses): a missing or
	// slow language server is skipped, with a log line, rather than
	// waited for.
	DefaultCheckTimeout = 30 * time.Second
	// DefaultCheckRepairSteps bounds the model requests of the repair
	// round.
	DefaultCheckRepairSteps = 4
	// maxCheckLines caps the errors the repair message lists.
	maxCheckLines = 20
	// maxCheckFiles caps the files one check diagnoses, first changed
	// first: a command that rewrote the tree (a formatter) must not open
	// all of it in the language server.
	maxCheckFiles = 50
)

// checkState is the check's part of a turn.
type checkState struct {
	// repairUntil is the step count at which the repair round ends;
	// zero while none has started.
	repairUntil int
	// answer is the model's answer that the check held back.
	answer string
	// repairTests says the repair round was held for failing tests
	// rather than new errors.
	repairTests bool
	// tests is the last run of the tests that reach the turn's changes.
	tests *gotest.Report
}

// lastAnswer returns the answer the model gave before the repair round,
// for a turn that ends while the model is still repairing.
func (t *turn) lastAnswer() string { return t.check.answer }

// checkEdits diagnoses the files the turn changed and returns the errors
// that were not there before it. It returns nil when the check is off,
// nothing checkable changed, or the servers could not answer in time.
func (t *turn) checkEdits(ctx context.Context) []tools.Diagnostic {
	a := t.a
	if !a.CheckEdits || t.nested || a.Env == nil || a.Env.Graph == nil {
		return nil
	}
	d, ok := a.Env.Graph.(tools.Diagnoser)
	if !ok {
		return nil
	}
	var paths, basePaths []string
	before, after := map[string]string{}, map[string]string{}
	for _, c := range t.changes() {
		if c.Status == FileDeleted || !d.Checks(c.Abs) || (c.BeforeExisted && !c.BeforeKnown) || a.Env.CheckReadUnasked(c.Abs) != nil {
			// A diagnostic quotes the file: not of one the model may
			// not read unasked.
			continue
		}
		if len(paths) == maxCheckFiles {
			slog.Info("the check of the turn's edits covers its first files only", "session", t.s.ID, "files", maxCheckFiles)
			break
		}
		paths = append(paths, c.Abs)
		after[c.Abs] = string(c.After)
		if c.BeforeExisted {
			basePaths = append(basePaths, c.Abs)
			before[c.Abs] = string(c.BeforeData)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	timeout := a.CheckTimeout
	if timeout <= 0 {
		timeout = DefaultCheckTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	var base []tools.Diagnostic
	if len(basePaths) > 0 {
		var err error
		if base, err = d.Diagnose(cctx, basePaths, before); err != nil {
			slog.Info("the check of the turn's edits was skipped", "session", t.s.ID, "err", err)
			return nil
		}
	}
	now, err := d.Diagnose(cctx, paths, after)
	if err != nil {
		slog.Info("the check of the turn's edits was skipped", "session", t.s.ID, "err", err)
		return nil
	}
	fresh := newErrors(base, now, before, after)
	if len(fresh) > 0 {
		// Confirm them: asked again, with nothing changed since, a
		// server answers from a state that has every file's new text,
		// whatever it was catching up on the first time.
		again, err := d.Diagnose(cctx, paths, after)
		if err != nil {
			slog.Info("the check of the turn's edits was skipped", "session", t.s.ID, "err", err)
			return nil
		}
		fresh = slices.DeleteFunc(fresh, func(e tools.Diagnostic) bool {
			return !slices.ContainsFunc(again, func(a tools.Diagnostic) bool {
				return a.Path == e.Path && a.Line == e.Line && a.Column == e.Column && a.Message == e.Message
			})
		})
	}
	slog.Info("checked the turn's edits", "session", t.s.ID, "files", len(paths), "new", len(fresh), "took", time.Since(start).Round(time.Millisecond))
	for _, e := range fresh {
		slog.Info("new error", "session", t.s.ID, "error", e.String())
	}
	return fresh
}

// newErrors returns the errors of now that base does not hold: same file
// and message, at the same place once the lines the turn inserted or
// removed are allowed for.
func newErrors(base, now []tools.Diagnostic, before, after map[string]string) []tools.Diagnostic {
	used := make([]bool, len(base))
	var out []tools.Diagnostic
	for _, n := range now {
		if n.Severity != "error" {
			continue
		}
		lo, hi := changedLines(before[n.Path], after[n.Path])
		matched := false
		for i, b := range base {
			if used[i] || b.Severity != "error" || b.Path != n.Path || b.Message != n.Message {
				continue
			}
			if sameLine(b.Line, n.Line, lo, hi, lineCount(before[n.Path]), lineCount(after[n.Path])) {
				used[i], matched = true, true
				break
			}
		}
		if !matched {
			out = append(out, n)
		}
	}
	return out
}

// changedLines returns how many lines the two texts share at their start
// and at their end.
func changedLines(before, after string) (prefix, suffix int) {
	b, a := strings.SplitAfter(before, "\n"), strings.SplitAfter(after, "\n")
	for prefix < len(b) && prefix < len(a) && b[prefix] == a[prefix] {
		prefix++
	}
	for suffix < len(b)-prefix && suffix < len(a)-prefix && b[len(b)-1-suffix] == a[len(a)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

func lineCount(s string) int { return strings.Count(s, "\n") + 1 }

// sameLine reports whether line bl of the text before may be line al of
// the text after: above the changed region lines keep their numbers,
// below it they move by the lines inserted or removed, and within it any
// line of the region may be any other.
func sameLine(bl, al, prefix, suffix, nBefore, nAfter int) bool {
	switch {
	case bl <= prefix:
		return al == bl
	case bl > nBefore-suffix:
		return al == bl+nAfter-nBefore
	default:
		return al > prefix && al <= nAfter-suffix+1
	}
}

// NewErrorsSummary says in a few words where a turn's new errors are:
// "2 new errors in calc.go".
func NewErrorsSummary(errs []tools.Diagnostic) string {
	if len(errs) == 0 {
		return ""
	}
	var files []string
	for _, e := range errs {
		if !slices.Contains(files, e.File) {
			files = append(files, e.File)
		}
	}
	noun := "new errors"
	if len(errs) == 1 {
		noun = "new error"
	}
	return fmt.Sprintf("%d %s in %s", len(errs), noun, strings.Join(files, ", "))
}

// repairMessage is the user message that gives the model the new errors
// to fix.
func repairMessage(errs []tools.Diagnostic) string {
	var b strings.Builder
	noun := "new errors"
	if len(errs) == 1 {
		noun = "a new error"
		fmt.Fprintf(&b, "Your changes introduced %s:\n", noun)
	} else {
		fmt.Fprintf(&b, "Your changes introduced %d %s:\n", len(errs), noun)
	}
	for i, e := range errs {
		if i == maxCheckLines {
			fmt.Fprintf(&b, "… and %d more\n", len(errs)-i)
			break
		}
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	b.WriteString("Fix them, keeping the rest of your changes, then finish your answer.")
	return b.String()
}

// checkBeforeDone runs when the model answers without calling a tool.
// When the turn's edits brought new errors and no repair round was held
// yet, it gives them to the model and returns true: the loop goes on.
// Otherwise it returns the errors that remain, for the turn's result.
func (t *turn) checkBeforeDone(ctx context.Context) (again bool, remaining []tools.Diagnostic, err error) {
	errs := t.checkEdits(ctx)
	if len(errs) == 0 {
		if t.check.repairUntil > 0 && !t.check.repairTests {
			t.event(Event{Kind: EventCheck, Text: "checked: the repair fixed the new errors"})
		}
		// Tests run on text that compiles: new errors come first.
		return t.testBeforeDone(ctx)
	}
	// An earlier run's outcome was of other text.
	t.check.tests = nil
	if t.check.repairUntil > 0 || ctx.Err() != nil {
		t.event(Event{Kind: EventCheck, Text: "checked: still " + NewErrorsSummary(errs), Check: errs})
		return false, errs, nil
	}
	steps := t.a.CheckRepairSteps
	if steps <= 0 {
		steps = DefaultCheckRepairSteps
	}
	t.check.repairUntil = t.steps + steps
	t.event(Event{Kind: EventCheck, Text: "checked: " + NewErrorsSummary(errs) + "; asking the model to fix them", Check: errs})
	if err := t.s.append(provider.Message{Role: provider.RoleUser, Content: repairMessage(errs)}); err != nil {
		return false, errs, err
	}
	return true, nil, nil
}

// repairOver reports whether the repair round used its requests up.
func (t *turn) repairOver() bool {
	return t.check.repairUntil > 0 && t.steps >= t.check.repairUntil
}

// endRepair closes a repair round that used its requests up while the
// model was still calling tools, and returns the errors that remain.
func (t *turn) endRepair(ctx context.Context) ([]tools.Diagnostic, error) {
	msg := "[the repair round ended: its model requests are used up]"
	if err := t.s.append(provider.Message{Role: provider.RoleAssistant, Content: msg}); err != nil {
		return nil, err
	}
	_, remaining, err := t.checkBeforeDone(ctx)
	return remaining, err
}
