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
// than its buffer ends the connection. wire.lines stands in front of it so
// that bad input gets a clear error and the connection goes on: a line
// that is not JSON is answered with -32700 (parse error), one that is not
// a JSON object with -32600 (invalid request), and one longer than
// maxLine is dropped and answered with -32600, all with a null id, as
// JSON-RPC 2.0 says for a request whose id cannot be read.

// maxLine bounds one message: below the SDK's own bound (10 MiB), so a
// longer line is refused here instead of ending the connection.
const maxLine = 8 << 20

// wire is the stream as the SDK sees it: the client's lines, guarded,
// and the agent's messages, written whole one at a time. It counts the
// client's requests not yet answered, so that the server answers them
// all before it exits when the client closes its end early (a request
// piped in, then end of input).
type wire struct {
	in  io.Reader
	out io.Writer

	mu sync.Mutex // guards out's writes, pending and changed
	// pending counts requests read and not answered.
	pending int
	// changed is closed, and replaced, whenever pending drops.
	changed chan struct{}
}

func newWire(in io.Reader, out io.Writer) *wire {
	return &wire{in: in, out: out, changed: make(chan struct{})}
}

// envelope is what the counting and the errors need of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Error  json.RawMessage `json:"error"`
}

// Write sends one message of the agent's; a response settles a request.
// An error response goes out with its reason in its message
// (explainError, errors.go).
func (w *wire) Write(p []byte) (int, error) {
	var e envelope
	json.Unmarshal(p, &e)
	msg := p
	if len(e.Error) > 0 {
		msg = explainError(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.out.Write(msg)
	if e.Method == "" && len(e.ID) > 0 && w.pending > 0 {
		w.pending--
		close(w.changed)
		w.changed = make(chan struct{})
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// received counts a request of the client's.
func (w *wire) received(line []byte) {
	var e envelope
	if json.Unmarshal(line, &e) != nil || e.Method == "" || len(e.ID) == 0 || string(e.ID) == "null" {
		return
	}
	w.mu.Lock()
	w.pending++
	w.mu.Unlock()
}

// drain waits until every request read has been answered, or done ends.
func (w *wire) drain(done <-chan struct{}) {
	for {
		w.mu.Lock()
		n, changed := w.pending, w.changed
		w.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-done:
			return
		}
	}
}

// lines returns a reader of the client's messages, line by line,
// answering what is not a message. Nothing is read until start is
// called, so the connection reading it is in place before the first
// message is handled. It ends when the input does.
func (w *wire) lines() (r io.Reader, start func()) {
	pr, pw := io.Pipe()
	return pr, func() {
		go func() {
			err := w.copyLines(pw)
			pw.CloseWithError(err)
		}()
	}
}

func (w *wire) copyLines(to io.Writer) error {
	r := bufio.NewReaderSize(w.in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		switch {
		case tooLong:
			answerError(w, -32600, "Invalid Request", fmt.Sprintf("the message is longer than %d bytes", maxLine))
		case len(bytes.TrimSpace(line)) == 0:
		case !json.Valid(line):
			answerError(w, -32700, "Parse error", "the line is not JSON")
		case bytes.TrimSpace(line)[0] != '{':
			answerError(w, -32600, "Invalid Request", "a message is a JSON object")
		default:
			w.received(line)
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
