package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// diagnosticCodeProposal marks the diagnostics of proposed changes.
const diagnosticCodeProposal = "reasonix.proposal"

// publishProposals sends the diagnostics of path's pending hunks (none
// clears them).
func (s *Server) publishProposals(_ context.Context, path string) {
	s.review.publishMu.Lock()
	defer s.review.publishMu.Unlock()
	cur, err := s.userText(path)
	if err != nil {
		return
	}
	s.mu.Lock()
	enc, tag := s.enc, s.caps.unnecessaryTag
	s.mu.Unlock()
	diags := []protocol.Diagnostic{}
	if f, ok := s.review.Pending(path, cur); ok {
		tests := s.review.testsOf(path)
		for _, h := range f.Hunks {
			d := hunkDiagnostic(cur, f, h, enc, tag)
			if tests != "" && !h.Applied && !h.Stale {
				// Where every editor shows it: beside the change it judges.
				d.Message = protocol.String(strings.TrimRight(hunkMessage(f, h), "\n") + "\nTests: " + tests)
			}
			diags = append(diags, d)
		}
		s.addImpact(path, cur, f, diags, enc)
		if s.review.Proposes(path) {
			for _, e := range s.review.newErrorsOf(path) {
				diags = append(diags, newErrorDiagnostic(cur, f, e, enc))
			}
		}
	}
	params := &protocol.PublishDiagnosticsParams{URI: uri.File(path), Diagnostics: diags}
	// The connection's context: a turn cancelled right after proposing
	// must not leave the editor showing something else.
	if err := publishDiagnostics.notify(s.ctx, s, params); err != nil {
		s.log.Warn("publishing proposals", "path", path, "err", err)
	}
}

// hunkRange is the range of a hunk's old text in cur: whole lines, or the
// start of the line an insertion goes before.
func hunkRange(cur string, h *review.Hunk, enc wire.Encoding) protocol.Range {
	start := wire.Position(cur, h.Start, enc)
	end := wire.Position(cur, h.End, enc)
	if h.Stale {
		end = start
	}
	return protocol.Range{Start: start, End: end}
}

// hunkData identifies a hunk in a diagnostic's data and a command's
// argument.
type hunkData struct {
	URI  string `json:"uri"`
	Hunk int    `json:"hunk,omitempty"`
	// Hunks, when given, names hunks of any files to accept or reject
	// together (uri and hunk are then those of the action's document).
	Hunks []hunkData `json:"hunks,omitempty"`
}

func hunkDiagnostic(cur string, f review.File, h *review.Hunk, enc wire.Encoding, tag bool) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:    hunkRange(cur, h, enc),
		Severity: protocol.DiagnosticSeverityInformation,
		Source:   protocol.NewOptional("reasonix"),
		Code:     protocol.String(diagnosticCodeProposal),
		Message:  protocol.String(hunkMessage(f, h)),
	}
	d.Data, _ = json.Marshal(hunkData{URI: string(uri.File(f.Path)), Hunk: h.ID})
	if tag && h.Old != "" && !h.Stale && !h.Applied {
		d.Tags = protocol.NewDiagnosticTags(protocol.DiagnosticTagUnnecessary)
	}
	return d
}

// hunkMessage says what a hunk does, with its new text.
func hunkMessage(f review.File, h *review.Hunk) string {
	if h.Applied {
		return appliedMessage(h)
	}
	switch {
	case h.Stale:
		return "Stale proposed change: the text it replaces was edited since; reject it, or ask again"
	case h.Delete:
		return "Proposed change: delete this file"
	case h.Old == "" && f.Kind == review.Create:
		return "Proposed change: create this file with:\n" + h.New
	case h.Old == "":
		return "Proposed change: insert before this line:\n" + h.New
	case h.New == "":
		return fmt.Sprintf("Proposed change: delete %s", lines(h.Old))
	}
	return fmt.Sprintf("Proposed change: replace %s with:\n%s", lines(h.Old), h.New)
}

// appliedMessage says what a change a shell command made does: its range
// is the text it made, so the message shows what was there before.
func appliedMessage(h *review.Hunk) string {
	const made = "Change made by a shell command, already on disk (reject it to undo it): "
	switch {
	case h.Stale:
		return "Stale change made by a shell command: its text was edited since; reject it to forget it"
	case h.Created:
		return "File created by a shell command, already on disk (reject it to remove it), with:\n" + h.New
	case h.Delete:
		return "File deleted by a shell command (reject it to put it back), which read:\n" + h.Old
	case h.Old == "":
		return made + fmt.Sprintf("inserted %s", lines(h.New))
	case h.New == "":
		return made + fmt.Sprintf("deleted before this line:\n%s", h.Old)
	}
	return made + fmt.Sprintf("%s, which read:\n%s", lines(h.New), h.Old)
}

func lines(t string) string {
	n := strings.Count(t, "\n")
	if !strings.HasSuffix(t, "\n") {
		n++
	}
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// isProposal reports whether d is one of the proposal diagnostics.
func isProposal(d *protocol.Diagnostic) bool {
	src, _ := d.Source.Get()
	return src == "reasonix" && diagnosticCode(d) == diagnosticCodeProposal
}

// diagnosticCodeNewError marks the errors the check found in proposed
// text.
const diagnosticCodeNewError = "reasonix.newError"

// newErrorDiagnostic shows an error the check found in the proposed text
// of a file (the agent's view) in its text now: on the hunk whose new
// text has the error's line, else on the line it corresponds to.
func newErrorDiagnostic(cur string, f review.File, e tools.Diagnostic, enc wire.Encoding) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Severity: protocol.DiagnosticSeverityWarning,
		Source:   protocol.NewOptional("reasonix"),
		Code:     protocol.String(diagnosticCodeNewError),
		Message:  protocol.String("New error if accepted: " + e.Message),
	}
	line := e.Line - 1 // in the proposed text, 0-based
	shift := 0         // proposed lines minus current lines before here
	for _, h := range f.Hunks {
		if h.Stale || h.Applied || h.Delete {
			continue
		}
		start := review.Line(cur, h.Start) + shift
		added := strings.Count(h.New, "\n")
		if line >= start && line < start+max(added, 1) {
			d.Range = hunkRange(cur, h, enc)
			return d
		}
		if line < start {
			break
		}
		shift += added - strings.Count(h.Old, "\n")
	}
	at := max(line-shift, 0)
	off := lineStart(cur, at)
	// Column counts characters of the line.
	for col := 1; col < e.Column && off < len(cur) && cur[off] != '\n'; col++ {
		_, size := utf8.DecodeRuneInString(cur[off:])
		off += size
	}
	p := wire.Position(cur, off, enc)
	d.Range = protocol.Range{Start: p, End: p}
	return d
}

// lineStart is the offset of 0-based line n of text (its end when text
// has fewer lines).
func lineStart(text string, n int) int {
	off := 0
	for ; n > 0; n-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}
