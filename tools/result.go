package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// A tool result enters the conversation once and stays in every later
// request of the session, so large results are capped when they are
// produced, never rewritten afterwards: a result longer than
// MaxResultBytes keeps its first and last ResultEdgeBytes, and the line
// between them says how much was left out and which call reads it. The
// shell streams its output under the same cap and saves the whole of a
// long output to a file; read_file reads a window of at most
// MaxResultBytes and names the call that reads on; the agent caps every
// other tool's result with CapResult, saving the whole beside the session.
const (
	MaxResultBytes  = 32 << 10
	ResultEdgeBytes = MaxResultBytes / 2
	// edgeSlack is how much of an edge may be given up to cut it at a
	// line break rather than inside a line.
	edgeSlack = 4 << 10
)

// ResultCapper is implemented by tools that keep their results within
// MaxResultBytes as they produce them, so the agent does not cut them
// again.
type ResultCapper interface {
	CapsResult() bool
}

type outputFileKey struct{}

// WithOutputFile returns a context in which a tool call may save a whole
// output it cut to path (see OutputFile).
func WithOutputFile(ctx context.Context, path string) context.Context {
	return context.WithValue(ctx, outputFileKey{}, path)
}

// OutputFile is where the running call may save the whole of an output it
// had to cut, or "" when there is nowhere to save it. The file does not
// exist yet; its directory may not either.
func OutputFile(ctx context.Context) string {
	p, _ := ctx.Value(outputFileKey{}).(string)
	return p
}

// CreateOutputFile creates the file at path, and its directory.
func CreateOutputFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}

// OmittedNote is the line that stands for the part of an output a cap
// left out: omitted bytes, on lines first to last (1-based) of the file
// at path, which holds the output saved (see OutputSaver), and names the
// read_file call that shows them. dropped is what the file left out in
// turn, from the middle of a very long output. With no path, the note
// only counts the bytes.
func OmittedNote(omitted int64, first, last int, path string, dropped int64) string {
	if path == "" {
		return fmt.Sprintf("[... %d bytes omitted ...]", omitted)
	}
	call, _ := json.Marshal(struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}{path, first, max(last-first+1, 1)})
	if dropped > 0 {
		return fmt.Sprintf("[... %d bytes omitted (lines %d-%d of the saved output); the output is saved but for %d bytes in its middle, past what is kept of one output: read_file %s shows what was kept ...]", omitted, first, last, dropped, call)
	}
	return fmt.Sprintf("[... %d bytes omitted (lines %d-%d); the whole output is saved: read_file %s shows them ...]", omitted, first, last, call)
}

// CapResult returns content as it may enter the conversation: as it is
// when it is at most MaxResultBytes long, else its head and tail around
// an OmittedNote. The whole — or as much as an OutputSaver keeps — is
// saved to path first when path is set (a failure to save only drops the
// read_file call from the note).
func CapResult(content, path string) string {
	if len(content) <= MaxResultBytes {
		return content
	}
	head := CutHead(content[:ResultEdgeBytes])
	tail := CutTail(content[len(content)-ResultEdgeBytes:])
	end := len(content) - len(tail) // the omitted bytes are content[len(head):end]
	// The note's lines are the saved file's, which ends as the output
	// does: its last omitted line is found counting from the end. With
	// nothing saved, the note names no lines.
	var saved SavedOutput
	if path != "" {
		var err error
		if saved, err = saveOutput(path, content); err != nil {
			path = ""
		}
	}
	first := strings.Count(head, "\n") + 1
	last := int(saved.Lines) - strings.Count(content[end-1:], "\n") + 1
	var b strings.Builder
	b.WriteString(head)
	if !strings.HasSuffix(head, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(OmittedNote(int64(end-len(head)), first, last, path, saved.Dropped))
	b.WriteByte('\n')
	b.WriteString(tail)
	return b.String()
}

// saveOutput saves content through an OutputSaver, a piece at a time so
// that no second copy of a long output is made.
func saveOutput(path, content string) (SavedOutput, error) {
	s, err := NewOutputSaver(path)
	if err != nil {
		return SavedOutput{}, err
	}
	const piece = 256 << 10
	for i := 0; i < len(content); i += piece {
		s.Write([]byte(content[i:min(i+piece, len(content))]))
	}
	return s.Close()
}

// CutHead ends the head of an output after its last line break when that
// gives up little, else at the last whole rune.
func CutHead(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && len(s)-(i+1) <= edgeSlack {
		return s[:i+1]
	}
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}

// CutTail starts the tail of an output after its first line break when
// that gives up little, else at the first whole rune.
func CutTail(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < edgeSlack {
		return s[i+1:]
	}
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}
