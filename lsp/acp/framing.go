package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The SDK's connection reads one JSON-RPC message per line. It logs and
// skips a line that is not a message, without answering, and a line longer
// than its buffer ends the connection. guardLines stands in front of it so
// that bad input gets a clear error and the connection goes on: a line
// that is not JSON is answered with -32700 (parse error), one that is not
// a JSON object with -32600 (invalid request), and one longer than
// maxLine is dropped and answered with -32600, all with a null id, as
// JSON-RPC 2.0 says for a request whose id cannot be read.

// maxLine bounds one message: below the SDK's own bound (10 MiB), so a
// longer line is refused here instead of ending the connection.
const maxLine = 8 << 20

// lockedWriter serialises whole writes, so an error written here never
// interleaves with a message the SDK is writing.
type lockedWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// guardLines returns a reader of in's messages, line by line, answering
// what is not a message on out. Nothing is read until start is called,
// so the connection reading it is in place before the first message is
// handled. It ends when in does.
func guardLines(in io.Reader, out io.Writer) (r io.Reader, start func()) {
	pr, pw := io.Pipe()
	return pr, func() {
		go func() {
			err := copyLines(in, pw, out)
			pw.CloseWithError(err)
		}()
	}
}

func copyLines(in io.Reader, to io.Writer, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		switch {
		case tooLong:
			answerError(out, -32600, "Invalid Request", fmt.Sprintf("the message is longer than %d bytes", maxLine))
		case len(bytes.TrimSpace(line)) == 0:
		case !json.Valid(line):
			answerError(out, -32700, "Parse error", "the line is not JSON")
		case bytes.TrimSpace(line)[0] != '{':
			answerError(out, -32600, "Invalid Request", "a message is a JSON object")
		default:
			if _, werr := to.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads up to the next newline; a line longer than maxLine is
// read through and reported too long.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// answerError writes an error response with a null id.
func answerError(out io.Writer, code int, msg, data string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": msg, "data": map[string]string{"error": data}}})
	out.Write(append(b, '\n'))
}
