package wire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// framed frames body with the canonical LSP header.
func framed(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// callJSON is the body of a call with a numeric id.
func callJSON(id int, method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

// readStrictFrame reads one frame written by the stream. It accepts only
// the exact header the stream writes, so it also checks the framing.
func readStrictFrame(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		if err == io.EOF && line == "" {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("reading header: %q: %w", line, err)
	}
	digits, ok := strings.CutPrefix(line, "Content-Length: ")
	if !ok {
		return nil, fmt.Errorf("header line %q", line)
	}
	digits, ok = strings.CutSuffix(digits, "\r\n")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n <= 0 || digits != strconv.Itoa(n) {
		return nil, fmt.Errorf("header line %q", line)
	}
	var blank [2]byte
	if _, err := io.ReadFull(r, blank[:]); err != nil || string(blank[:]) != "\r\n" {
		return nil, fmt.Errorf("header not closed by a blank line: %q, %v", blank, err)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading %d-byte body: %w", n, err)
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("body is not valid JSON: %q", body)
	}
	return body, nil
}

// readStrictFrames parses out, everything a stream wrote, into frame bodies.
func readStrictFrames(out []byte) ([][]byte, error) {
	r := bufio.NewReader(bytes.NewReader(out))
	var bodies [][]byte
	for {
		body, err := readStrictFrame(r)
		if err == io.EOF {
			return bodies, nil
		}
		if err != nil {
			return bodies, err
		}
		bodies = append(bodies, body)
	}
}

// msgSummary describes a message compactly for comparisons: "call #1 m",
// "notification m", "response #1", "response #1 error -32600". Ids print
// as %q does: #1 for a number, "a" for a string, null when unset.
func msgSummary(msg jsonrpc2.Message) string {
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		return fmt.Sprintf("call %q %s", m.ID(), m.Method())
	case *jsonrpc2.Notification:
		return "notification " + m.Method()
	case *jsonrpc2.Response:
		var rerr *jsonrpc2.Error
		if errors.As(m.Err(), &rerr) {
			return fmt.Sprintf("response %q error %d", m.ID(), rerr.Code)
		}
		return fmt.Sprintf("response %q", m.ID())
	}
	return fmt.Sprintf("unknown %T", msg)
}

// replySummary describes an error response the stream wrote: its id and
// code, "null -32700".
func replySummary(t *testing.T, body []byte) string {
	t.Helper()
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		t.Fatalf("stream wrote an undecodable message %q: %v", body, err)
	}
	resp, ok := msg.(*jsonrpc2.Response)
	var rerr *jsonrpc2.Error
	if !ok || !errors.As(resp.Err(), &rerr) {
		t.Fatalf("stream wrote %q, want an error response", body)
	}
	return fmt.Sprintf("%q %d", resp.ID(), rerr.Code)
}

// logRecorder collects a stream's log lines.
type logRecorder struct {
	mu    sync.Mutex // guards lines
	lines []string
}

func (l *logRecorder) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logRecorder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func TestStreamRead(t *testing.T) {
	initialize := callJSON(1, "initialize", `{"processId":null,"rootUri":null,"capabilities":{}}`)
	ping := callJSON(2, "ping", `{}`)
	body300 := `{"jsonrpc":"2.0","method":"big","params":"` + strings.Repeat("x", 300) + `"}`
	// A JSON body that mentions the header in a key that begins a line, in
	// a string with escaped line ends, and at its very end, where the next
	// frame's header is glued to it.
	mentionsHeader := "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\n" +
		`"Content-Length": 12,` + "\r\n" +
		`"text": "Content-Length: 2\r\n\r\n{}",` + "\n" +
		`"more": "` + strings.Repeat("y", 300) + `content-length:5"}}`
	tests := []struct {
		name    string
		in      string
		maxBody int64    // 0: the default
		want    []string // summaries of the messages Read returns
		replies []string // summaries of the error responses written
		err     error    // how the input ends
		logs    bool     // whether anything is logged
	}{
		{name: "empty", err: io.EOF},
		{name: "initialize", in: framed(initialize), want: []string{"call #1 initialize"}, err: io.EOF},
		{
			name: "two frames back to back",
			in:   framed(initialize) + framed(ping),
			want: []string{"call #1 initialize", "call #2 ping"}, err: io.EOF,
		},
		{
			name: "notification and response",
			in:   framed(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) + framed(`{"jsonrpc":"2.0","id":3,"result":{"ok":true}}`),
			want: []string{"notification initialized", "response #3"}, err: io.EOF,
		},
		{
			name: "blank lines between frames",
			in:   "\r\n" + framed(initialize) + "\r\n\n\r\n" + framed(ping) + "\n",
			want: []string{"call #1 initialize", "call #2 ping"}, err: io.EOF,
		},
		{
			name: "lowercase name and spaces",
			in:   fmt.Sprintf("  content-length :  %d \t\r\n\r\n%s", len(ping), ping),
			want: []string{"call #2 ping"}, err: io.EOF,
		},
		{
			name: "Content-Type ignored",
			in:   fmt.Sprintf("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(ping), ping),
			want: []string{"call #2 ping"}, err: io.EOF,
		},
		{
			name: "LF-only headers",
			in:   fmt.Sprintf("Content-Length: %d\nContent-Type: x\n\n%s", len(ping), ping),
			want: []string{"call #2 ping"}, err: io.EOF,
		},
		{
			name: "repeated equal Content-Length",
			in:   fmt.Sprintf("Content-Length: %d\r\nContent-Length: %[1]d\r\n\r\n%s", len(ping), ping),
			want: []string{"call #2 ping"}, err: io.EOF,
		},
		{
			name: "garbage line before a frame",
			in:   "hello there\r\n" + framed(ping),
			want: []string{"call #2 ping"}, err: io.EOF, logs: true,
		},
		{
			name: "garbage without newline before a frame",
			in:   "garbage" + framed(ping),
			want: []string{"call #2 ping"}, err: io.EOF, logs: true,
		},
		{
			name: "binary garbage between frames",
			in:   framed(initialize) + "\x00\xff\xfe{]}\r\n\x1b[31m" + framed(ping),
			want: []string{"call #1 initialize", "call #2 ping"}, err: io.EOF, logs: true,
		},
		{
			name: "garbage mentioning content-length",
			in:   "CONTENT-LENGTH is what you need\r\ncontent-length\r\n" + framed(ping),
			want: []string{"call #2 ping"}, err: io.EOF, logs: true,
		},
		{name: "non-numeric length", in: "Content-Length: abc\r\n\r\n{}" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "negative length", in: "Content-Length: -5\r\n\r\n{}" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "zero length", in: "Content-Length: 0\r\n\r\n" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "empty length", in: "Content-Length:\r\n\r\n" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "plus sign length", in: "Content-Length: +2\r\n\r\n{}" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "length overflowing int64", in: "Content-Length: 99999999999999999999\r\n\r\n{}" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "conflicting lengths", in: "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "header without colon", in: "Content-Length 2\r\n\r\n{}" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "missing Content-Length", in: "Content-Type: x\r\n\r\n" + ping + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "over-long header line", in: "X-Junk: " + strings.Repeat("j", 9000) + "\r\n" + framed(ping), want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{
			name: "over-long header block",
			in:   strings.Repeat("X-Junk: 0123456789abcdef0123456789abcdef\r\n", 2000) + "\r\n" + framed(ping),
			want: []string{"call #2 ping"}, err: io.EOF, logs: true,
		},
		{
			name:    "length counted in characters",
			in:      fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(`{"jsonrpc":"2.0","method":"ü"}`)-1, `{"jsonrpc":"2.0","method":"ü"}`) + framed(ping),
			want:    []string{"call #2 ping"},
			replies: []string{"null -32700"}, err: io.EOF, logs: true,
		},
		{
			name: "invalid JSON", in: framed(`{"jsonrpc":"2.0","id":1,`) + framed(ping),
			want: []string{"call #2 ping"}, replies: []string{"null -32700"}, err: io.EOF, logs: true,
		},
		{
			name: "invalid JSON inside params", in: framed(`{"jsonrpc":"2.0","id":1,"method":"m","params":{]}`) + framed(ping),
			want: []string{"call #2 ping"}, replies: []string{"null -32700"}, err: io.EOF, logs: true,
		},
		{
			name: "whitespace body", in: framed("  ") + framed(ping),
			want: []string{"call #2 ping"}, replies: []string{"null -32700"}, err: io.EOF, logs: true,
		},
		{
			name: "invalid requests",
			in: framed(`{"jsonrpc":"2.0","id":7,"method":5}`) +
				framed(`{"id" : "abc" , "method":"m"}`) +
				framed(`{"jsonrpc":"1.0","id":-8,"method":"m"}`) +
				framed(`{"jsonrpc":"2.0","id":{},"method":"m"}`) +
				framed(`{"jsonrpc":"2.0","id":1.5,"method":"m"}`) +
				framed(`{"jsonrpc":"2.0","id":9,"method":"m","result":1}`) +
				framed(`{"jsonrpc":"2.0","id":10}`) +
				framed(`{}`) +
				framed(`42`) + framed(`"hi"`) + framed(`null`) +
				framed(ping),
			want: []string{"call #2 ping"},
			replies: []string{
				"#7 -32600", `"abc" -32600`, "#-8 -32600", "null -32600", "null -32600",
				"#9 -32600", "#10 -32600", "null -32600", "null -32600", "null -32600", "null -32600",
			},
			err: io.EOF, logs: true,
		},
		{
			name: "batches", in: framed(`[`+ping+`]`) + framed(`[]`) + framed(ping),
			want: []string{"call #2 ping"}, replies: []string{"null -32600", "null -32600"}, err: io.EOF, logs: true,
		},
		{
			name: "invalid responses",
			in: framed(`{"jsonrpc":"2.0","id":4,"result":1,"error":{"code":1,"message":"m"}}`) +
				framed(`{"jsonrpc":"2.0","id":"s","error":null}`) +
				framed(`{"id":5,"result":1}`) +
				framed(`{"jsonrpc":"2.0","id":1.5,"result":1,"error":{}}`) +
				framed(ping),
			want: []string{"response #4 error -32600", `response "s" error -32600`, "response #5 error -32600", "call #2 ping"},
			err:  io.EOF, logs: true,
		},
		{
			name: "body above the limit", maxBody: 256, in: framed(body300) + framed(ping),
			want: []string{"call #2 ping"}, replies: []string{"null -32600"}, err: io.EOF, logs: true,
		},
		{
			name: "body at the limit", maxBody: int64(len(body300)), in: framed(body300) + framed(ping),
			want: []string{"notification big", "call #2 ping"}, err: io.EOF,
		},
		{
			name: "body above the limit mentioning Content-Length", maxBody: 256, in: framed(mentionsHeader) + framed(ping),
			want: []string{"call #2 ping"}, replies: []string{"null -32600"}, err: io.EOF, logs: true,
		},
		{
			// Not JSON: raw header blocks inside a skipped body are headers.
			name: "body above the limit holding absurd headers", maxBody: 256,
			in:   framed(`{"params":"`+strings.Repeat("Content-Length: 99999999999999\r\n\r\n", 10)+`"}`) + framed(ping),
			want: []string{"call #2 ping"}, replies: slices.Repeat([]string{"null -32600"}, 11), err: io.EOF, logs: true,
		},
		{
			name: "absurd declared length", in: "Content-Length: 99999999999999\r\n\r\n" + framed(ping),
			want: []string{"call #2 ping"}, replies: []string{"null -32600"}, err: io.EOF, logs: true,
		},
		{
			name: "absurd declared lengths in a row", in: "Content-Length: 99999999999999\r\n\r\nContent-Length: 99999999999999\r\n\r\n" + framed(ping),
			want: []string{"call #2 ping"}, replies: []string{"null -32600", "null -32600"}, err: io.EOF, logs: true,
		},
		{
			name: "huge declared length, input ends", in: "Content-Length: 300000000\r\n\r\n{}",
			replies: []string{"null -32600"}, err: io.EOF, logs: true,
		},
		{name: "truncated body", in: framed(initialize) + framed(ping)[:30], want: []string{"call #1 initialize"}, err: io.ErrUnexpectedEOF},
		{name: "truncated header block", in: "Content-Length: 20\r\n", err: io.ErrUnexpectedEOF},
		{name: "truncated header line", in: "Content-Type: x\r\ncontent-length: 2", err: io.ErrUnexpectedEOF},
		{name: "trailing garbage", in: framed(ping) + "bye", want: []string{"call #2 ping"}, err: io.EOF, logs: true},
		{name: "trailing header without length", in: framed(ping) + "Content-Type: x\r\n", want: []string{"call #2 ping"}, err: io.EOF, logs: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			var log logRecorder
			s := NewStream(strings.NewReader(tt.in), &out, nil, log.logf).(*stream)
			if tt.maxBody != 0 {
				s.maxBody = tt.maxBody
			}
			var got []string
			var err error
			for {
				var msg jsonrpc2.Message
				var n int64
				msg, n, err = s.Read(t.Context())
				if err != nil {
					break
				}
				if n <= 0 {
					t.Errorf("Read returned %s with byte count %d", msgSummary(msg), n)
				}
				got = append(got, msgSummary(msg))
			}
			if err != tt.err {
				t.Errorf("Read ended with %v, want %v", err, tt.err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("messages:\n got %q\nwant %q", got, tt.want)
			}
			bodies, ferr := readStrictFrames(out.Bytes())
			if ferr != nil {
				t.Fatalf("output %q: %v", out.Bytes(), ferr)
			}
			var replies []string
			for _, b := range bodies {
				replies = append(replies, replySummary(t, b))
			}
			if !slices.Equal(replies, tt.replies) {
				t.Errorf("error responses:\n got %q\nwant %q\noutput: %s", replies, tt.replies, out.Bytes())
			}
			if logged := log.String() != ""; logged != tt.logs {
				t.Errorf("logged %v, want %v; log:\n%s", logged, tt.logs, log.String())
			}
		})
	}
}

func TestStreamReadByteCount(t *testing.T) {
	body := callJSON(1, "m", `{}`)
	withType := "Content-Type: x\r\n" + framed(body)
	s := NewStream(strings.NewReader(withType+"junk\r\n"+framed(body)), io.Discard, nil, nil)
	for _, want := range []int{len(withType), len(framed(body))} { // junk is not counted
		if _, n, err := s.Read(t.Context()); err != nil || n != int64(want) {
			t.Errorf("Read = %d, %v; want %d, nil", n, err, want)
		}
	}
}

// repeatReader is an endless reader of pattern, repeated.
type repeatReader struct {
	pattern string
	off     int // offset in pattern of the next byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for n := 0; n < len(p); {
		m := copy(p[n:], r.pattern[r.off:])
		n += m
		r.off = (r.off + m) % len(r.pattern)
	}
	return len(p), nil
}

// TestStreamReadSkipsOversizedBody sends a JSON body one byte above the
// limit, holding a log that mentions the header on every line, and checks
// that it is refused and skipped without being stored, and that the frame
// glued to its end is still read.
func TestStreamReadSkipsOversizedBody(t *testing.T) {
	const (
		length = maxBody + 1
		prefix = `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"`
		line   = `[Trace] Sending request: Content-Length: 44\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":2}\n`
		suffix = `"}}`
	)
	if !json.Valid([]byte(prefix + line + line + suffix)) {
		t.Fatal("the body is not valid JSON")
	}
	ping := callJSON(2, "ping", "{}")
	in := io.MultiReader(
		strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", length, prefix)),
		io.LimitReader(&repeatReader{pattern: line}, length-int64(len(prefix)+len(suffix))),
		strings.NewReader(suffix+framed(ping)))
	var out bytes.Buffer
	s := NewStream(in, &out, nil, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg, _, err := s.Read(t.Context())
	runtime.ReadMemStats(&after)
	if err != nil || msgSummary(msg) != "call #2 ping" {
		t.Fatalf("Read = %s, %v; want the call after the skipped body", msgSummary(msg), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("skipping a %d-byte body allocated %d bytes", length, alloc)
	}
	want := framed(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message of 268435457 bytes exceeds the limit of 268435456 bytes"}}`)
	if out.String() != want {
		t.Errorf("output:\n got %s\nwant %s", out.String(), want)
	}
}

func TestStreamReadErrorMessages(t *testing.T) {
	var out bytes.Buffer
	in := framed(`{"jsonrpc":`) + framed(`[]`) + framed(`{"jsonrpc":"2.0","id":7,"method":5}`)
	s := NewStream(strings.NewReader(in), &out, nil, nil)
	if _, _, err := s.Read(t.Context()); err != io.EOF {
		t.Fatalf("Read: %v, want EOF", err)
	}
	want := framed(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`) +
		framed(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not supported"}}`) +
		framed(`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string"}}`)
	if out.String() != want {
		t.Errorf("output:\n got %s\nwant %s", out.String(), want)
	}
}

// oneByteReader returns one byte per Read, as a slow pipe might.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestStreamReadOneByteAtATime(t *testing.T) {
	in := "junk\n" + framed(callJSON(1, "a", `[1]`)) + "Content-Length: x\r\n\r\n" + framed(`{"jsonrpc":`) + framed(callJSON(2, "b", `[2]`))
	var out bytes.Buffer
	s := NewStream(oneByteReader{strings.NewReader(in)}, &out, nil, nil)
	var got []string
	for {
		msg, _, err := s.Read(t.Context())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, msgSummary(msg))
	}
	if want := []string{"call #1 a", "call #2 b"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if bodies, err := readStrictFrames(out.Bytes()); err != nil || len(bodies) != 1 {
		t.Errorf("output %q: %d frames, %v; want the one parse error", out.Bytes(), len(bodies), err)
	}
}

func TestStreamReadContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s := NewStream(strings.NewReader(framed(callJSON(1, "m", "{}"))), io.Discard, nil, nil)
	if _, _, err := s.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read: %v, want context.Canceled", err)
	}
}

func TestStreamWrite(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, nil, nil)
	msgs := []jsonrpc2.Message{
		jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), "a/b", jsonrpc2.RawMessage(`{"x":"ü"}`)),
		jsonrpc2.NewNotification("n", nil),
		jsonrpc2.NewResponse(jsonrpc2.NewStringID("s"), jsonrpc2.RawMessage(`[1,2]`), nil),
		jsonrpc2.NewResponse(jsonrpc2.NewNumberID(2), nil, jsonrpc2.NewError(jsonrpc2.InternalError, "boom")),
	}
	var total int64
	for _, m := range msgs {
		n, err := s.Write(t.Context(), m)
		if err != nil {
			t.Fatalf("Write(%s): %v", msgSummary(m), err)
		}
		total += n
	}
	if total != int64(out.Len()) {
		t.Errorf("Write counted %d bytes, wrote %d", total, out.Len())
	}
	want := framed(`{"jsonrpc":"2.0","method":"a/b","params":{"x":"ü"},"id":1}`) +
		framed(`{"jsonrpc":"2.0","method":"n"}`) +
		framed(`{"jsonrpc":"2.0","id":"s","result":[1,2]}`) +
		framed(`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}`)
	if out.String() != want {
		t.Errorf("output:\n got %s\nwant %s", out.String(), want)
	}

	if _, err := s.Write(t.Context(), nil); err == nil {
		t.Error("Write(nil) succeeded")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Write(ctx, msgs[1]); !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a canceled context: %v", err)
	}
	if out.String() != want {
		t.Errorf("failed writes wrote %q", out.String()[len(want):])
	}
}

// countWriter counts Write calls so a test can check one write per frame.
type countWriter struct {
	buf    bytes.Buffer // not safe for concurrent use: the race detector checks the stream's lock
	writes int
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.buf.Write(p)
}

func TestStreamWriteConcurrent(t *testing.T) {
	// Read's error responses share the output with concurrent writers.
	junk := strings.Repeat(framed(`{"jsonrpc":`)+framed(`[]`), 50)
	out := &countWriter{}
	s := NewStream(strings.NewReader(junk), out, nil, nil)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				params := jsonrpc2.RawMessage(fmt.Sprintf(`{"w":%d,"i":%d,"pad":%q}`, w, i, strings.Repeat("p", i*100)))
				if _, err := s.Write(t.Context(), jsonrpc2.NewNotification("n", params)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		if _, _, err := s.Read(t.Context()); err != io.EOF {
			t.Errorf("Read: %v, want EOF", err)
		}
	})
	wg.Wait()
	bodies, err := readStrictFrames(out.buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := writers*each + 100; len(bodies) != want || out.writes != want {
		t.Errorf("got %d frames in %d writes, want %d", len(bodies), out.writes, want)
	}
}

// closeCounter is an io.Closer that counts its calls.
type closeCounter struct{ n int }

func (c *closeCounter) Close() error {
	c.n++
	return errors.New("closed")
}

func TestStreamClose(t *testing.T) {
	var c closeCounter
	s := NewStream(strings.NewReader(""), io.Discard, &c, nil)
	err1, err2 := s.Close(), s.Close()
	if c.n != 1 || err1 == nil || err2 != err1 {
		t.Errorf("two Closes: closer called %d times, returned %v, %v", c.n, err1, err2)
	}
	if err := NewStream(strings.NewReader(""), io.Discard, nil, nil).Close(); err != nil {
		t.Errorf("Close with a nil closer: %v", err)
	}
}

// pipeServer is a jsonrpc2.Conn served over NewStream, with the client's side
// of the pipes: raw input written by the test and strictly parsed output.
type pipeServer struct {
	t      *testing.T
	conn   jsonrpc2.Conn
	in     *io.PipeWriter
	frames chan []byte // bodies of the frames the server writes
	log    logRecorder
}

// pipeTimeout bounds every wait, so a broken stream fails a test instead of
// hanging it.
const pipeTimeout = 20 * time.Second

func startPipeServer(t *testing.T, handler jsonrpc2.Handler) *pipeServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &pipeServer{t: t, in: inW, frames: make(chan []byte, 16)}
	closer := pipeCloser(func() error {
		inR.Close()
		return outW.Close()
	})
	s.conn = jsonrpc2.NewConn(NewStream(inR, outW, closer, s.log.logf))
	s.conn.Go(t.Context(), handler)
	pumpErr := make(chan error, 1)
	go func() {
		defer close(s.frames)
		r := bufio.NewReader(outR)
		for {
			body, err := readStrictFrame(r)
			if err != nil {
				pumpErr <- err
				return
			}
			s.frames <- body
		}
	}()
	t.Cleanup(func() {
		// Closing both pipes unblocks a server stuck on either one.
		inW.Close()
		outR.Close()
		s.conn.Close()
		for range s.frames {
		}
		if err := <-pumpErr; err != io.EOF && !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("server output: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.log.String())
		}
	})
	return s
}

type pipeCloser func() error

func (f pipeCloser) Close() error { return f() }

// send writes data to the server's input, in writes of chunk bytes (all of
// it at once if chunk is 0).
func (s *pipeServer) send(data string, chunk int) {
	s.t.Helper()
	done := make(chan error, 1)
	go func() {
		if chunk == 0 {
			chunk = len(data)
		}
		for len(data) > 0 {
			n := min(chunk, len(data))
			if _, err := io.WriteString(s.in, data[:n]); err != nil {
				done <- err
				return
			}
			data = data[n:]
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			s.t.Fatalf("writing to the server: %v", err)
		}
	case <-time.After(pipeTimeout):
		s.t.Fatal("timed out writing to the server")
	}
}

// next returns the next message the server wrote.
func (s *pipeServer) next() jsonrpc2.Message {
	s.t.Helper()
	select {
	case body, ok := <-s.frames:
		if !ok {
			s.t.Fatal("server output ended")
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.t.Fatalf("server wrote %q: %v", body, err)
		}
		return msg
	case <-time.After(pipeTimeout):
		s.t.Fatal("timed out waiting for the server")
	}
	return nil
}

// expectResult checks that the next message is the response to call id
// with the given result.
func (s *pipeServer) expectResult(id int64, result string) {
	s.t.Helper()
	msg := s.next()
	resp, ok := msg.(*jsonrpc2.Response)
	if !ok || resp.ID() != jsonrpc2.NewNumberID(id) || resp.Err() != nil || string(resp.Result()) != result {
		s.t.Fatalf("got %s %q, want response #%d with result %s", msgSummary(msg), responseResult(msg), id, result)
	}
}

func responseResult(msg jsonrpc2.Message) string {
	if r, ok := msg.(*jsonrpc2.Response); ok {
		return string(r.Result())
	}
	return ""
}

// echoHandler answers "echo" with its params and "digest" with the length
// and SHA-256 of its params.
func echoHandler(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "echo":
		return jsonrpc2.RawMessage(bytes.Clone(req.Params())), nil
	case "digest":
		return digestOf(req.Params()), nil
	}
	return jsonrpc2.MethodNotFoundHandler(ctx, req)
}

func TestStreamConnSurvivesBadInput(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		chunk int      // write size; 0 writes all at once
		want  []string // summaries of what the server writes before the echo answer
	}{
		{name: "garbage line", in: "this is not a header\r\n"},
		{name: "garbage without newline", in: "garbage"},
		{name: "garbage between frames", in: framed(callJSON(100, "echo", `"before"`)) + "\x00\xff junk \r\n\r\n", want: []string{"response #100"}},
		{name: "bad Content-Length", in: "Content-Length: ten\r\n\r\n0123456789"},
		{name: "header without colon", in: "Content-Length 2\r\n\r\n{}"},
		{name: "invalid JSON", in: framed(`{"jsonrpc":"2.0","id":5,"method":"echo"`), want: []string{"response null error -32700"}},
		{name: "invalid message", in: framed(`{"jsonrpc":"2.0","id":6,"method":["echo"]}`), want: []string{"response #6 error -32600"}},
		{name: "batch", in: framed(`[` + callJSON(7, "echo", "1") + `]`), want: []string{"response null error -32600"}},
		{name: "split into single bytes", in: framed(callJSON(8, "echo", `"split"`)), chunk: 1, want: []string{"response #8"}},
		{name: "absurd Content-Length", in: "Content-Length: 99999999999999\r\n\r\n", want: []string{"response null error -32600"}},
		{name: "bare LF headers", in: fmt.Sprintf("Content-Length: %d\n\n%s", len(callJSON(9, "echo", "9")), callJSON(9, "echo", "9")), want: []string{"response #9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startPipeServer(t, echoHandler)
			s.send(tt.in, tt.chunk)
			for _, want := range tt.want {
				if got := msgSummary(s.next()); got != want {
					t.Fatalf("server wrote %s, want %s", got, want)
				}
			}
			s.send(framed(callJSON(1, "echo", `{"after":true}`)), 0)
			s.expectResult(1, `{"after":true}`)
		})
	}
}

// digestOf describes b by its length and SHA-256.
func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return fmt.Sprintf("%d %s", len(b), hex.EncodeToString(sum[:]))
}

func TestStreamConnLargeMessage(t *testing.T) {
	// A pattern of odd length, so that a lost or repeated block of input
	// changes the digest even if it changes no length.
	pattern := make([]byte, 1009)
	for i := range pattern {
		pattern[i] = 'a' + byte(i*i%26)
	}
	params := `{"text":"` + strings.Repeat(string(pattern), 50<<20/len(pattern)) + `"}`
	s := startPipeServer(t, echoHandler)
	s.send(framed(callJSON(1, "digest", params)), 1<<20)
	s.expectResult(1, strconv.Quote(digestOf([]byte(params))))
	s.send(framed(callJSON(2, "echo", `"next"`)), 0)
	s.expectResult(2, `"next"`)
}

func TestStreamConnTruncatedFrame(t *testing.T) {
	s := startPipeServer(t, echoHandler)
	s.send("Content-Length: 100\r\n\r\n{\"jsonrpc\":", 0)
	s.in.Close()
	select {
	case <-s.conn.Done():
	case <-time.After(pipeTimeout):
		t.Fatal("connection did not end")
	}
	if err := s.conn.Err(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Err() = %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestStreamConnServerCall(t *testing.T) {
	s := startPipeServer(t, echoHandler)
	type result struct {
		answer string
		err    error
	}
	call := func(ctx context.Context) <-chan result {
		ch := make(chan result, 1)
		go func() {
			var r result
			_, r.err = s.conn.Call(ctx, "client/question", map[string]string{"q": "?"}, &r.answer)
			ch <- r
		}()
		return ch
	}
	wait := func(ch <-chan result) result {
		select {
		case r := <-ch:
			return r
		case <-time.After(pipeTimeout):
			t.Fatal("Call did not return")
		}
		return result{}
	}

	// A valid response reaches the call.
	done := call(t.Context())
	req, ok := s.next().(*jsonrpc2.Call)
	if !ok || req.Method() != "client/question" {
		t.Fatalf("server sent %v, want the call", req)
	}
	s.send(framed(string(jsonrpc2.AppendResponse(nil, req.ID(), jsonrpc2.RawMessage(`"yes"`), nil))), 0)
	if r := wait(done); r.err != nil || r.answer != "yes" {
		t.Errorf("Call = %q, %v; want yes", r.answer, r.err)
	}

	// An invalid response fails the call instead of leaving it waiting, and
	// is not answered.
	done = call(t.Context())
	req = s.next().(*jsonrpc2.Call)
	s.send(framed(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":1,"error":{"code":1,"message":"m"}}`, req.ID())), 0)
	if r := wait(done); r.err == nil || !strings.Contains(r.err.Error(), "invalid response") {
		t.Errorf("Call with an invalid response: %q, %v; want an invalid-response error", r.answer, r.err)
	}
	s.send(framed(callJSON(1, "echo", "1")), 0)
	s.expectResult(1, "1")
}

// TestStreamLibraryClient checks interoperation with jsonrpc2's own header
// framing, including a server-initiated call made from a handler.
func TestStreamLibraryClient(t *testing.T) {
	clientEnd, serverEnd := net.Pipe()
	var log logRecorder
	var srv jsonrpc2.Conn
	srv = jsonrpc2.NewConn(NewStream(serverEnd, serverEnd, serverEnd, log.logf))
	srv.Go(t.Context(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != "ask" {
			return echoHandler(ctx, req)
		}
		jsonrpc2.Async(ctx) // the answer is read by the read loop this handler would block
		var answer string
		_, err := srv.Call(ctx, "client/answer", nil, &answer)
		return "client said " + answer, err
	})
	client := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(clientEnd))
	client.Go(t.Context(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		return "42", nil
	})
	t.Cleanup(func() {
		client.Close()
		srv.Close()
	})

	ctx, cancel := context.WithTimeout(t.Context(), pipeTimeout)
	defer cancel()
	var got string
	if _, err := client.Call(ctx, "echo", "hi", &got); err != nil || got != "hi" {
		t.Errorf("echo = %q, %v", got, err)
	}
	if _, err := client.Call(ctx, "ask", nil, &got); err != nil || got != "client said 42" {
		t.Errorf("ask = %q, %v", got, err)
	}
	if log.String() != "" {
		t.Errorf("clean traffic was logged:\n%s", log.String())
	}
}
