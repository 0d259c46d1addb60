package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/reasonix/reasonix/tools"
)

//go:embed read_file.md
var readFileDescription string

const (
	readDefaultLimit = 2000
	readMaxLineLen   = 2000
	// readMaxBytes bounds one result so a file of very long lines cannot
	// flood the context even within the line limit: the cap of every
	// tool result.
	readMaxBytes = tools.MaxResultBytes
)

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

type readFile struct{}

func init() { tools.RegisterBuiltin(readFile{}) }

func (readFile) Name() string        { return "read_file" }
func (readFile) Description() string { return readFileDescription }
func (readFile) ReadOnly() bool      { return true }

// CapsResult: a result is a window of at most readMaxBytes, and says
// which call reads on.
func (readFile) CapsResult() bool { return true }

var readFileSchema = schema(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "File to read, relative to the workspace root or absolute."},
		"offset": {"type": "integer", "minimum": 1, "description": "First line to read, 1-based. Default 1."},
		"limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines. Default 2000."}
	},
	"required": ["path"],
	"additionalProperties": false
}`)

func (readFile) Schema() json.RawMessage { return readFileSchema }

func (readFile) Execute(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	var args readFileArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return tools.Errorf("%v", err), nil
	}
	if args.Path == "" {
		return tools.Errorf("path is required"), nil
	}
	if args.Offset < 0 || args.Limit < 0 {
		return tools.Errorf("offset and limit must be positive"), nil
	}
	abs, err := env.ReadPath(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	fi, err := env.FS.Stat(abs)
	if err != nil {
		return notFound(env, args.Path, err), nil
	}
	if fi.IsDir() {
		return tools.Errorf("%s is a directory; use ls to list it", args.Path), nil
	}
	data, held, err := env.Held(abs)
	if !held {
		data, err = env.ReadDisk(abs, nil, 0)
	}
	if err != nil {
		return notFound(env, args.Path, err), nil
	}
	if tools.IsBinary(data) {
		return tools.Result{
			Content: fmt.Sprintf("%s is a binary file (%d bytes); its content is not shown.", args.Path, len(data)),
			Summary: "binary file",
		}, nil
	}
	if len(data) == 0 {
		return tools.Result{Content: fmt.Sprintf("%s is empty.", args.Path), Summary: "empty"}, nil
	}
	return numberLines(data, args.Path, args.Offset, args.Limit), nil
}

// numberLines renders lines [offset, offset+limit) of data, the file at
// path, as the model reads them, with a note when the view is partial
// that names the call that reads on.
func numberLines(data []byte, path string, offset, limit int) tools.Result {
	if offset == 0 {
		offset = 1
	}
	if limit == 0 {
		limit = readDefaultLimit
	}
	total := bytes.Count(data, []byte("\n"))
	if !bytes.HasSuffix(data, []byte("\n")) {
		total++
	}
	if offset > total {
		return tools.Errorf("offset %d is past the end of the file, which has %d lines", offset, total)
	}
	var b strings.Builder
	width := len(strconv.Itoa(min(total, offset+limit-1)))
	line, shown, cut := 1, 0, 0
	last := offset - 1
	rest := data
	for len(rest) > 0 && shown < limit {
		i := bytes.IndexByte(rest, '\n')
		var text []byte
		if i < 0 {
			text, rest = rest, nil
		} else {
			text, rest = rest[:i], rest[i+1:]
		}
		if line >= offset {
			text = bytes.TrimSuffix(text, []byte("\r"))
			if len(text) > readMaxLineLen {
				text = append(text[:readMaxLineLen:readMaxLineLen], "… [line cut]"...)
				cut++
			}
			if b.Len()+len(text) > readMaxBytes {
				break
			}
			fmt.Fprintf(&b, "%*d\t%s\n", width, line, text)
			shown++
			last = line
		}
		line++
	}
	summary := fmt.Sprintf("%d lines", shown)
	if last < total {
		next, _ := json.Marshal(struct {
			Path   string `json:"path"`
			Offset int    `json:"offset"`
		}{path, last + 1})
		fmt.Fprintf(&b, "\n(Showing lines %d-%d of %d. To read on: read_file %s)\n", offset, last, total, next)
		summary = fmt.Sprintf("lines %d-%d of %d", offset, last, total)
	} else if offset > 1 {
		summary = fmt.Sprintf("lines %d-%d", offset, last)
	}
	if cut > 0 {
		fmt.Fprintf(&b, "(%d long lines were cut at %d characters.)\n", cut, readMaxLineLen)
	}
	return tools.Result{Content: b.String(), Summary: summary}
}

// notFound words a failed read for the model, suggesting the nearest names
// when the file does not exist.
func notFound(env *tools.Env, path string, err error) tools.Result {
	if !errors.Is(err, fs.ErrNotExist) {
		return tools.Errorf("%s: %v", path, err)
	}
	msg := fmt.Sprintf("%s does not exist", path)
	if hint := similarNames(env, env.Abs(path)); hint != "" {
		msg += "; did you mean " + hint + "?"
	}
	return tools.Errorf("%s", msg)
}
