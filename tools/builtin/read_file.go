package builtin

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
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
		"path": {"type": "string", "description": "File to read."},
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
	var r io.Reader
	size := fi.Size()
	data, held, err := env.Held(abs)
	if held {
		r, size = bytes.NewReader(data), int64(len(data))
	} else if err == nil {
		// A file on disk is streamed: only the window shown is kept, so
		// a file of any size is read in bounded memory.
		var f *os.File
		if f, err = env.OpenDisk(abs); err == nil {
			defer f.Close()
			r = f
		}
	}
	if err != nil {
		return notFound(env, args.Path, err), nil
	}
	res, err := numberLines(ctx, r, size, args.Path, args.Offset, args.Limit)
	if err != nil {
		return tools.Errorf("%s: %v", args.Path, err), nil
	}
	return res, nil
}

// numberLines renders lines [offset, offset+limit) of r, the file at path
// (of about size bytes), as the model reads them, with a note when the
// view is partial that names the call that reads on. It keeps only the
// lines shown, and reads on past them only to count the file's lines.
func numberLines(ctx context.Context, r io.Reader, size int64, path string, offset, limit int) (tools.Result, error) {
	if offset == 0 {
		offset = 1
	}
	if limit == 0 {
		limit = readDefaultLimit
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(tools.SniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return tools.Result{}, err
	}
	if len(head) == 0 {
		return tools.Result{Content: fmt.Sprintf("%s is empty.", path), Summary: "empty"}, nil
	}
	if tools.IsBinary(head) {
		return tools.Result{
			Content: fmt.Sprintf("%s is a binary file (%d bytes); its content is not shown.", path, size),
			Summary: "binary file",
		}, nil
	}

	type shownLine struct {
		n    int
		text string
	}
	var (
		shown []shownLine
		used  int  // bytes of the lines shown
		cut   int  // lines shown cut short
		full  bool // the window is complete: only counting from here
		line  = 1  // the line being read
		cur   []byte
		nl    int  // newlines read
		last  byte // the last byte read
	)
	// prefix is the width of a line's number and tab: the file has at
	// most a line per byte.
	prefix := len(strconv.FormatInt(min(max(size, 1), int64(offset+limit-1)), 10)) + 1
	// end takes the line read into cur, if it is in the window.
	end := func() {
		if full || line < offset {
			return
		}
		text := cur
		if len(text) > 0 && text[len(text)-1] == '\r' {
			text = text[:len(text)-1]
		}
		long := len(text) > readMaxLineLen
		if long {
			text = append(text[:readMaxLineLen:readMaxLineLen], "… [line cut]"...)
		}
		// Each line is shown as "%*d\t%s\n".
		n := prefix + len(text) + 1
		if used+n > readMaxBytes {
			full = true
			return
		}
		if long {
			cut++
		}
		shown = append(shown, shownLine{line, string(text)})
		used += n
		full = len(shown) == limit
	}
	for reads := 1; !full; reads++ {
		if reads%4096 == 0 && ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		frag, err := br.ReadSlice('\n')
		if len(frag) > 0 {
			last = frag[len(frag)-1]
			body := frag
			if last == '\n' {
				body = frag[:len(frag)-1]
			}
			if line >= offset && len(cur) <= readMaxLineLen {
				// A long line keeps only what can be shown of it (and a
				// byte more, to know it was cut).
				cur = append(cur, body[:min(len(body), readMaxLineLen+1-len(cur))]...)
			}
			if last == '\n' {
				nl++
				end()
				line++
				cur = cur[:0]
			}
		}
		if err == io.EOF {
			if last != '\n' {
				end()
			}
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			return tools.Result{}, err
		}
	}
	// Count the rest of the file's lines.
	buf := make([]byte, 64<<10)
	for full {
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		n, err := br.Read(buf)
		if n > 0 {
			nl += bytes.Count(buf[:n], []byte("\n"))
			last = buf[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return tools.Result{}, err
		}
	}
	total := nl
	if last != '\n' {
		total++
	}
	if offset > total {
		return tools.Errorf("offset %d is past the end of the file, which has %d lines", offset, total), nil
	}
	lastShown := offset - 1
	if len(shown) > 0 {
		lastShown = shown[len(shown)-1].n
	}
	var b strings.Builder
	width := len(strconv.Itoa(min(total, offset+limit-1)))
	for _, l := range shown {
		fmt.Fprintf(&b, "%*d\t%s\n", width, l.n, l.text)
	}
	summary := fmt.Sprintf("%d lines", len(shown))
	if lastShown < total {
		next, _ := json.Marshal(struct {
			Path   string `json:"path"`
			Offset int    `json:"offset"`
		}{path, lastShown + 1})
		fmt.Fprintf(&b, "\n(Showing lines %d-%d of %d. To read on: read_file %s)\n", offset, lastShown, total, next)
		summary = fmt.Sprintf("lines %d-%d of %d", offset, lastShown, total)
	} else if offset > 1 {
		summary = fmt.Sprintf("lines %d-%d", offset, lastShown)
	}
	if cut > 0 {
		fmt.Fprintf(&b, "(%d long lines were cut at %d characters.)\n", cut, readMaxLineLen)
	}
	return tools.Result{Content: b.String(), Summary: summary}, nil
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

func (readFile) Traits() tools.Traits {
	return tools.Traits{Family: permission.FamilyRead, Kind: tools.KindRead}
}

func (t readFile) Describe(args json.RawMessage) tools.Call {
	return tools.PathCall(t, args)
}
