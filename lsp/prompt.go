package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/lsp/wire"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// contextLines is how much code around a diagnostic or selection goes into
// the prompt, on each side.
const contextLines = 15

// buildPrompt turns a request into the input of the agent's prompt
// pipeline and a short title for the progress area. A diagnostic makes it
// a fix request; otherwise the prompt goes as typed, and a uri (and
// range) becomes a typed attachment — the file the user is looking at, or
// the code selected, read from the overlay so unsaved text is what the
// model sees. The pipeline does the rest, as for every front end.
func (s *Server) buildPrompt(args askArgs, path string) (in agent.Input, title string, err error) {
	var diag *protocol.Diagnostic
	if len(args.Diagnostic) > 0 && string(args.Diagnostic) != "null" {
		var d protocol.Diagnostic
		if err := protocol.Unmarshal(args.Diagnostic, &d); err != nil {
			return in, "", jsonrpc2.NewError(jsonrpc2.InvalidParams, "bad diagnostic: "+err.Error())
		}
		diag = &d
	}
	if diag == nil && strings.TrimSpace(args.Prompt) == "" {
		return in, "", jsonrpc2.NewError(jsonrpc2.InvalidParams, "a prompt is required")
	}
	var doc document
	haveDoc := false
	if path != "" {
		doc, haveDoc = s.docFor(path)
		if !haveDoc && diag != nil {
			return in, "", jsonrpc2.NewError(jsonrpc2.InvalidParams, "cannot read "+path)
		}
	}
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()

	if diag == nil {
		in.Text = strings.TrimSpace(args.Prompt)
		switch {
		case haveDoc && args.Range != nil:
			in.Attachments = []agent.Attachment{selection(doc, *args.Range, enc)}
		case path != "":
			in.Attachments = []agent.Attachment{{Kind: agent.AttachFile, Path: path}}
		}
		return in, clip(firstLine(in.Text), 80), nil
	}
	var b strings.Builder
	msg := diagnosticMessage(diag)
	title = "Fixing: " + clip(firstLine(msg), 80)
	line, col := diag.Range.Start.Line+1, diag.Range.Start.Character+1
	fmt.Fprintf(&b, "Fix this problem in %s at line %d, column %d:\n\n", s.relPath(path), line, col)
	fmt.Fprintf(&b, "  %s", severityName(diag.Severity))
	if src, ok := diag.Source.Get(); ok && src != "" {
		fmt.Fprintf(&b, " from %s", src)
	}
	if code := diagnosticCode(diag); code != "" {
		fmt.Fprintf(&b, " [%s]", code)
	}
	fmt.Fprintf(&b, ": %s\n", msg)
	if strings.TrimSpace(args.Prompt) != "" {
		fmt.Fprintf(&b, "\nThe user adds: %s\n", strings.TrimSpace(args.Prompt))
	}
	b.WriteString("\n" + excerpt(doc, diag.Range, enc))
	b.WriteString("\nFind the cause, make the smallest change that fixes it, and verify the fix (build or run the relevant tests).")
	return agent.Input{Text: b.String()}, title, nil
}

// selection is the selected text of doc as an attachment: exactly the
// range, or its whole lines when the range does not fit the text.
func selection(doc document, r protocol.Range, enc wire.Encoding) agent.Attachment {
	at := agent.Attachment{Kind: agent.AttachSelection, Path: doc.Path, Language: doc.LanguageID,
		StartLine: int(r.Start.Line) + 1, EndLine: int(r.End.Line) + 1}
	startOff, err1 := wire.Offset(doc.Text, r.Start, enc)
	endOff, err2 := wire.Offset(doc.Text, r.End, enc)
	if err1 == nil && err2 == nil && endOff >= startOff {
		at.Text = doc.Text[startOff:endOff]
		return at
	}
	lines := strings.Split(doc.Text, "\n")
	from := min(int(r.Start.Line), len(lines))
	to := min(max(int(r.End.Line)+1, from), len(lines))
	at.Text = strings.Join(lines[from:to], "\n")
	return at
}

// excerpt shows the lines around r, numbered, with the range's lines
// marked.
func excerpt(doc document, r protocol.Range, enc wire.Encoding) string {
	lines := strings.Split(doc.Text, "\n")
	start := int(r.Start.Line)
	end := max(int(r.End.Line), start)
	from := max(0, start-contextLines)
	to := min(len(lines)-1, end+contextLines)
	var b strings.Builder
	fmt.Fprintf(&b, "```%s\n", doc.LanguageID)
	for i := from; i <= to; i++ {
		mark := "  "
		if i >= start && i <= end {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s%4d | %s\n", mark, i+1, strings.TrimSuffix(lines[i], "\r"))
	}
	b.WriteString("```\n")
	return b.String()
}

func diagnosticMessage(d *protocol.Diagnostic) string {
	switch m := d.Message.(type) {
	case protocol.String:
		return string(m)
	case *protocol.MarkupContent:
		return m.Value
	}
	return ""
}

func diagnosticCode(d *protocol.Diagnostic) string {
	switch c := d.Code.(type) {
	case protocol.String:
		return string(c)
	case protocol.Integer:
		return fmt.Sprint(int32(c))
	}
	return ""
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "information"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// fenceLanguages maps file extensions to Markdown fence languages.
var fenceLanguages = map[string]string{
	".go": "go", ".rs": "rust", ".py": "python", ".ts": "typescript", ".tsx": "tsx",
	".js": "javascript", ".jsx": "jsx", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
	".java": "java", ".rb": "ruby", ".lua": "lua", ".sh": "bash", ".json": "json",
	".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".md": "markdown",
}

// languageOf guesses a Markdown fence language from a file name.
func languageOf(path string) string {
	return fenceLanguages[strings.ToLower(filepath.Ext(path))]
}
