package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Limits of the framing that NewStream reads.
const (
	// maxBody is the largest message body NewStream delivers. It keeps one
	// message from claiming unbounded memory while leaving ample room for
	// whole-file contents; a frame declaring a larger body is refused, and
	// the body is skipped as garbage without being stored.
	maxBody = 256 << 20

	// maxHeaderLine bounds one header line, not counting its terminator.
	maxHeaderLine = 8 << 10

	// maxHeaderBlock bounds a whole header block. A block is parsed inside
	// the read buffer before any of it is consumed, so that if it turns out
	// to be garbage the search for the next header can restart one byte
	// past its start; the read buffer is therefore this large.
	maxHeaderBlock = 64 << 10

	// bodyChunk is the first allocation for a body. A larger body grows as
	// its bytes arrive, so a header that promises 200 MB and then stops
	// costs only the memory for what was actually sent.
	bodyChunk = 1 << 20

	// maxKeptWriteBuf bounds the write buffer kept between writes; a larger
	// one, left by a big message, goes to the garbage collector.
	maxKeptWriteBuf = 64 << 10
)

// headerName is the one header field the framing uses, in lower case.
const headerName = "content-length"

// NewStream returns a jsonrpc2.Stream that speaks the LSP base protocol
// (a header block with Content-Length, a blank line, then a JSON body) over
// in and out, for either end of a connection: the server facing an editor
// and the client of a language server. Unlike jsonrpc2.NewHeaderStream it
// survives any input. Read returns an error only when the input ends or in
// fails, because any Read error ends the connection's read loop and with it
// the connection.
//
// Header blocks are lines ending in "\r\n" or a bare "\n", closed by a blank
// line. The Content-Length field name is matched in any case, spaces around
// the name and the value are allowed, and other fields (Content-Type) are
// ignored. Blank lines between frames are ignored, as HTTP servers ignore
// them before a request.
//
// A malformed header block is logged through logf and skipped. Malformed
// means: a line with no colon or an invalid field name, a line longer than
// 8 KiB, a block longer than 64 KiB, or a missing, non-numeric, zero or
// conflicting Content-Length (a minus sign is non-numeric). Read then
// discards input up to the next "Content-Length" (in any case), where it
// starts parsing a header block again. It searches every byte, not only
// line starts: a body ends without a newline, so after a frame lost to a
// bad header the next header follows the lost body on the same line. The
// search starts inside the rejected block, because garbage glued to the
// front of a header line ("junkContent-Length: 12") makes the block look
// malformed; but there it skips matches at the start of a line, which
// belong to the rejected block. A run of skipped input is logged twice,
// when it starts and when Read finds a header again.
//
// A body may be up to 256 MiB. A well-formed header block that declares a
// larger one is refused: Read logs it, answers with an Invalid Request error
// (id null), and then discards input up to the next "Content-Length", as
// after a malformed block, not the declared number of bytes. An absurd
// length such as 99999999999999 would otherwise have it wait for bytes that
// never come and swallow every later message. A body that does follow is
// skipped as garbage, through the read buffer, never stored. A JSON body
// cannot end the search early: a "Content-Length" in it lies in a string or
// a key, and JSON strings hold no line breaks, so the line that starts there
// also holds the closing quote, which makes the block malformed; the search
// goes on to the frame after the body. A header block inside a body that is
// not JSON is read as a header, as in any other garbage.
//
// Each body is read into a new buffer and decoded with
// jsonrpc2.DecodeMessage. The message borrows the buffer, and no later Read
// reuses it. Every defect that JSON-RPC assigns an error code to gets an
// error response written to out, and Read goes on to the next frame:
//
//   - a body that is not valid JSON: -32700 Parse error, id null;
//   - a batch (JSON array), which LSP does not have, or JSON that is not an
//     object: -32600 Invalid Request, id null;
//   - an object that is not a valid request (no "jsonrpc":"2.0", a method
//     that is not a string, an id that is not a string, integer or null...):
//     -32600 Invalid Request, with its id if the id is a string or an
//     integer that fits in int64, else null.
//
// An object shaped like a response (no "method"; "result" or "error") is
// never answered. An answer could loop between two peers that both reply
// to bad replies, and its id could be mistaken for a reply to the peer's
// own request with that id. Instead, if the object carries a usable id, Read
// returns an error Response for that id, so a call of this end that it
// answers fails rather than waiting forever. Without a usable id it is only
// logged.
//
// Read returns io.EOF when the input ends at a frame boundary or inside
// skipped garbage, which includes the body of a refused frame. It returns
// io.ErrUnexpectedEOF when the input ends after a Content-Length header or
// inside a body it reads, and in's own error when in fails. The int64 it
// returns counts the header block and body of the message it delivers;
// skipped input is not counted. Read checks ctx only between frames;
// closing the stream is what interrupts a blocked read.
//
// Write frames a message with jsonrpc2.AppendMessage and writes header and
// body with one out.Write. A mutex serialises writes from concurrent Write
// calls and from Read's error responses, so frames never interleave. Close
// closes closer (which may be nil) once; later calls return the same error.
// A nil logf discards the log.
func NewStream(in io.Reader, out io.Writer, closer io.Closer, logf func(format string, args ...any)) jsonrpc2.Stream {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &stream{
		in:      bufio.NewReaderSize(in, maxHeaderBlock),
		maxBody: maxBody,
		logf:    logf,
		out:     out,
		closer:  closer,
	}
}

// stream is the jsonrpc2.Stream that NewStream returns.
//
// It deliberately has no ReadFrame/WriteFrame methods: jsonrpc2.Conn uses
// such a stream's raw frames instead of its Read (and accepts batches), so
// they would bypass the recovery done here.
type stream struct {
	// The read side is used only by Read, which the connection calls from
	// one goroutine at a time.
	in       *bufio.Reader
	maxBody  int64 // limit on a body: maxBody, lowered in tests
	logf     func(format string, args ...any)
	skipping bool  // whether Read is in a run of skipped malformed input
	skipped  int64 // bytes skipped so far in that run

	writeMu sync.Mutex // guards out and wbuf: one frame at a time, from Write or from Read's error responses
	out     io.Writer
	wbuf    []byte // reused frame buffer

	closeOnce sync.Once
	closer    io.Closer
	closeErr  error // closer's result, set once by closeOnce
}

var _ jsonrpc2.Stream = (*stream)(nil)

// Read implements jsonrpc2.Stream; see NewStream for its behaviour.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		length, header, err := s.readHeader()
		if err != nil {
			return nil, 0, err
		}
		if length > s.maxBody {
			if err := s.refuse(length); err != nil {
				return nil, 0, err
			}
			continue
		}
		body, err := s.readBody(length)
		if err != nil {
			return nil, 0, err
		}
		if msg := s.decode(body); msg != nil {
			return msg, header + length, nil
		}
	}
}

// Write implements jsonrpc2.Stream.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.writeFrame(ctx, func(b []byte) []byte { return jsonrpc2.AppendMessage(b, msg) })
}

// Close implements jsonrpc2.Stream.
func (s *stream) Close() error {
	s.closeOnce.Do(func() {
		if s.closer != nil {
			s.closeErr = s.closer.Close()
		}
	})
	return s.closeErr
}

// readHeader consumes the next well-formed header block and returns the
// body length it declares and its own size, skipping malformed input.
func (s *stream) readHeader() (length, size int64, err error) {
	for {
		length, size, reject, err := s.scanHeader()
		if reject != "" {
			if err := s.skip("malformed input", reject, int(size)); err != nil {
				return 0, 0, err
			}
			continue
		}
		if err != nil {
			return 0, 0, err
		}
		if _, err := s.in.Discard(int(size)); err != nil {
			return 0, 0, err // cannot happen: scanHeader saw the bytes buffered
		}
		if s.skipping {
			s.logf("found a Content-Length header after skipping %d bytes", s.skipped)
			s.skipping = false
		}
		return length, size, nil
	}
}

// scanHeader parses the header block at the start of the buffered input
// without consuming it, so that a malformed block can be searched again for
// a header. It returns the declared body length and the size of the block;
// or why the block is malformed, with the size of the part examined (up to
// the end of the offending line, or just past the 8 KiB a line may run to);
// or the error that ended the input: io.EOF at a frame boundary,
// io.ErrUnexpectedEOF inside a block that has a Content-Length. Blank lines
// before the block are consumed and ignored.
func (s *stream) scanHeader() (length, size int64, reject string, err error) {
	length = -1
	var (
		buf     []byte // the buffered input, from the start of the block
		line    int    // offset of the current line in buf
		scanned int    // buf[line:scanned] holds no '\n'
		readErr error  // error of the last read, acted on once buf is parsed
	)
	for {
		// Look for the end of the line no further than a line may run, so
		// that rejecting a long line costs 8 KiB of scanning, not the whole
		// buffer: in a skipped body every "Content-Length" starts a block.
		limit := min(len(buf), line+maxHeaderLine+2) // +2 for "\r\n"
		i := bytes.IndexByte(buf[scanned:limit], '\n')
		if i < 0 {
			scanned = limit
			switch {
			case scanned-line > maxHeaderLine+1: // +1 for a '\r' awaiting its '\n'
				return 0, int64(scanned), "header line longer than 8 KiB", nil
			case readErr != nil:
				return endInHeader(buf, line, length, readErr)
			case len(buf) >= maxHeaderBlock:
				return 0, int64(len(buf)), "header block longer than 64 KiB", nil
			}
			buf, readErr = s.peekMore(len(buf))
			continue
		}
		end := scanned + i + 1
		scanned = end
		text := trimEOL(buf[line:end])
		if len(text) == 0 {
			if line == 0 {
				// A blank line between frames.
				if _, err := s.in.Discard(end); err != nil {
					return 0, 0, "", err // cannot happen: the bytes are buffered
				}
				buf, scanned = buf[end:], 0
				continue
			}
			if length < 0 {
				return 0, int64(end), "no Content-Length header", nil
			}
			return length, int64(end), "", nil
		}
		if len(text) > maxHeaderLine {
			return 0, int64(end), "header line longer than 8 KiB", nil
		}
		name, value, ok := bytes.Cut(text, []byte(":"))
		if !ok {
			return 0, int64(end), "header line " + snippet(text) + " has no colon", nil
		}
		name = trimSpace(name)
		if !isToken(name) {
			return 0, int64(end), "invalid header name " + snippet(name), nil
		}
		if equalFold(name, headerName) {
			n, ok := parseLength(trimSpace(value))
			switch {
			case !ok:
				return 0, int64(end), "invalid Content-Length " + snippet(trimSpace(value)), nil
			case length >= 0 && n != length:
				return 0, int64(end), "conflicting Content-Length headers", nil
			}
			length = n
		}
		line = end
	}
}

// endInHeader reports how the input ended inside a header block: a frame
// was cut short if the block has a Content-Length (or is starting one);
// otherwise the block is garbage, to be skipped up to the end.
func endInHeader(buf []byte, line int, length int64, err error) (int64, int64, string, error) {
	switch {
	case err != io.EOF:
		return 0, 0, "", err
	case len(buf) == 0:
		return 0, 0, "", io.EOF
	case length >= 0 || hasPrefixFold(trimSpace(buf[line:]), headerName):
		return 0, 0, "", io.ErrUnexpectedEOF
	}
	return 0, int64(len(buf)), "input ends inside a header block", nil
}

// skip discards input up to the next header with skipToHeader, as part of
// a run of skipped input. The log says when a run starts, with what was
// skipped and why, and if the input ends in it, how long it was.
func (s *stream) skip(what, why string, examined int) error {
	if !s.skipping {
		s.logf("skipping %s (%s) up to the next Content-Length header", what, why)
		s.skipping, s.skipped = true, 0
	}
	if err := s.skipToHeader(examined); err != nil {
		s.logf("input ended after %d bytes of skipped input", s.skipped)
		s.skipping = false
		return err
	}
	return nil
}

// skipToHeader discards input up to the next "Content-Length" in any case.
// After a malformed header block, the first examined bytes of the input
// (at least one) are that block, still buffered. In those bytes it takes
// only a match inside a line, after garbage glued to the front of a header;
// a match at a line start there is one of the rejected block's own lines.
// Beyond them it takes any match. examined is 0 when the rejected input has
// already been consumed. It returns io.EOF if the input ends first.
func (s *stream) skipToHeader(examined int) error {
	buf, _ := s.in.Peek(examined) // never fails: the bytes are buffered
	for i := 1; i < examined; {
		j := indexHeader(buf[i:])
		if j < 0 || i+j >= examined {
			break
		}
		if !atLineStart(buf, i+j) {
			s.discard(i + j)
			return nil
		}
		i += j + 1
	}
	s.discard(examined)
	kept := 0
	for {
		buf, err := s.peekMore(kept)
		if i := indexHeader(buf); i >= 0 {
			s.discard(i)
			return nil
		}
		if err != nil {
			s.discard(len(buf))
			return err
		}
		// Keep a tail that may begin a "Content-Length" split across reads.
		kept = min(len(buf), len(headerName)-1)
		s.discard(len(buf) - kept)
	}
}

// atLineStart reports whether only spaces and tabs precede buf[i] on its
// line.
func atLineStart(buf []byte, i int) bool {
	for i > 0 && (buf[i-1] == ' ' || buf[i-1] == '\t') {
		i--
	}
	return i == 0 || buf[i-1] == '\n'
}

// peekMore waits until more than n bytes are buffered, or the input ends or
// fails, and returns all buffered bytes with the error. n must be less than
// the buffer size.
func (s *stream) peekMore(n int) ([]byte, error) {
	_, err := s.in.Peek(n + 1)
	buf, _ := s.in.Peek(s.in.Buffered()) // never fails: the bytes are buffered
	return buf, err
}

// discard drops n buffered bytes as skipped input.
func (s *stream) discard(n int) {
	n, _ = s.in.Discard(n) // never fails: the bytes are buffered
	s.skipped += int64(n)
}

// refuse answers a frame whose declared body exceeds the size limit, its
// header block already consumed, then skips input up to the next header
// rather than the declared number of bytes, which may never come (see
// NewStream).
func (s *stream) refuse(length int64) error {
	s.logf("refusing a %d-byte message: the limit is %d bytes", length, s.maxBody)
	s.reply(jsonrpc2.ID{}, jsonrpc2.InvalidRequest,
		fmt.Sprintf("Invalid Request: a message of %d bytes exceeds the limit of %d bytes", length, s.maxBody))
	return s.skip("its body", "over the size limit", 0)
}

// readBody reads a body of n bytes (0 < n <= s.maxBody) into a new buffer,
// growing it as the bytes arrive.
func (s *stream) readBody(n int64) ([]byte, error) {
	body := make([]byte, 0, min(n, bodyChunk))
	for int64(len(body)) < n {
		if len(body) == cap(body) {
			grown := make([]byte, len(body), min(n, 2*int64(cap(body))))
			copy(grown, body)
			body = grown
		}
		m, err := io.ReadFull(s.in, body[len(body):cap(body)])
		body = body[:len(body)+m]
		if err != nil {
			return nil, midFrame(err)
		}
	}
	return body, nil
}

// midFrame maps the end of the input inside a frame to io.ErrUnexpectedEOF.
func midFrame(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// decode returns the message in body, or answers the body with the JSON-RPC
// error for its defect and returns nil.
func (s *stream) decode(body []byte) jsonrpc2.Message {
	// DecodeMessage checks only the brackets inside params, so validate the
	// whole body first: what Read delivers is always valid JSON.
	if !json.Valid(body) {
		reason := syntaxError(body)
		s.logf("answering a body of %d bytes that is not valid JSON with a parse error: %s", len(body), reason)
		s.reply(jsonrpc2.ID{}, jsonrpc2.ParseError, "Parse error: "+reason)
		return nil
	}
	switch body[len(body)-len(bytes.TrimLeft(body, " \t\r\n"))] {
	case '{':
	case '[':
		s.logf("answering a batch, which LSP does not have, with an invalid-request error")
		s.reply(jsonrpc2.ID{}, jsonrpc2.InvalidRequest, "Invalid Request: batches are not supported")
		return nil
	default:
		s.logf("answering a message that is not a JSON object with an invalid-request error")
		s.reply(jsonrpc2.ID{}, jsonrpc2.InvalidRequest, "Invalid Request: a message must be a JSON object")
		return nil
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err == nil {
		return msg
	}
	return s.rejectObject(body)
}

// rejectObject handles a JSON object that is not a valid JSON-RPC message:
// a request-like object is answered with Invalid Request; a response-like
// one becomes an error response for the call it names, if any.
func (s *stream) rejectObject(body []byte) jsonrpc2.Message {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(body, &m) // cannot fail: body is a valid JSON object
	reason := invalidReason(m)
	id, hasID := messageID(m["id"])
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasMethod && (hasResult || hasError) {
		if !hasID {
			s.logf("dropping an invalid response without a usable id: %s", reason)
			return nil
		}
		s.logf("failing call %v: its response is invalid: %s", id, reason)
		return jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "invalid response: "+reason))
	}
	s.logf("answering an invalid request (id %v) with an invalid-request error: %s", id, reason)
	s.reply(id, jsonrpc2.InvalidRequest, "Invalid Request: "+reason)
	return nil
}

// invalidReason says why m, the members of a JSON object that
// jsonrpc2.DecodeMessage rejected, is not a valid JSON-RPC message.
func invalidReason(m map[string]json.RawMessage) string {
	method, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	id, hasID := m["id"]
	switch {
	case string(m["jsonrpc"]) != `"2.0"`:
		return `"jsonrpc" must be "2.0"`
	case hasMethod && (hasResult || hasError):
		return `a message cannot have both "method" and "result" or "error"`
	case hasMethod && !bytes.HasPrefix(method, []byte(`"`)):
		return `"method" must be a string`
	case hasID && string(id) != "null" && !validID(id):
		return `"id" must be a string, an integer or null`
	case !hasMethod && !hasResult && !hasError:
		return `missing "method"`
	case hasResult && hasError:
		return `a response cannot have both "result" and "error"`
	case hasError:
		return `malformed "error" object`
	}
	return "not a valid JSON-RPC message"
}

// validID reports whether raw is an id jsonrpc2 can represent.
func validID(raw json.RawMessage) bool {
	_, ok := messageID(raw)
	return ok
}

// messageID returns the id in raw, an "id" member's value, if it is a
// string or an integer that fits in int64.
func messageID(raw json.RawMessage) (jsonrpc2.ID, bool) {
	if bytes.HasPrefix(raw, []byte(`"`)) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc2.ID{}, false
		}
		return jsonrpc2.NewStringID(s), true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc2.ID{}, false
	}
	return jsonrpc2.NewNumberID(n), true
}

// syntaxError describes why body is not valid JSON.
func syntaxError(body []byte) string {
	// Unmarshal validates the whole input before decoding anything.
	var v json.RawMessage
	if err := json.Unmarshal(body, &v); err != nil {
		return err.Error()
	}
	return "invalid JSON"
}

// reply writes an error response on behalf of Read. A failure is only
// logged: a broken output is the connection's to notice on its own writes.
func (s *stream) reply(id jsonrpc2.ID, code jsonrpc2.Code, message string) {
	rerr := jsonrpc2.NewError(code, message)
	_, err := s.writeFrame(context.Background(), func(b []byte) []byte {
		return jsonrpc2.AppendResponse(b, id, nil, rerr)
	})
	if err != nil {
		s.logf("could not send an error response: %v", err)
	}
}

// writeFrame frames the body that appendBody appends to its argument and
// writes header and body to out with one Write.
func (s *stream) writeFrame(ctx context.Context, appendBody func([]byte) []byte) (int64, error) {
	const (
		prefix  = "Content-Length: "
		reserve = len(prefix) + 20 + len("\r\n\r\n") // room for any int64 length
	)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	// A write can wait long behind a big one; give up if the caller did.
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// Append the body after room for the header, then put the header right
	// before the body, so the frame is built without moving the body.
	buf := appendBody(append(s.wbuf[:0], make([]byte, reserve)...))
	n := len(buf) - reserve
	if n == 0 {
		return 0, errors.New("wire: cannot encode an empty or unknown message")
	}
	var hdr [reserve]byte
	h := append(strconv.AppendInt(append(hdr[:0], prefix...), int64(n), 10), "\r\n\r\n"...)
	start := reserve - len(h)
	copy(buf[start:], h)
	w, err := s.out.Write(buf[start:])
	if cap(buf) <= maxKeptWriteBuf {
		s.wbuf = buf[:0]
	} else {
		s.wbuf = nil
	}
	return int64(w), err
}

// trimEOL removes a trailing "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// trimSpace removes surrounding spaces and tabs, the whitespace HTTP allows
// in a header field.
func trimSpace(b []byte) []byte {
	return bytes.Trim(b, " \t")
}

// isToken reports whether b is a valid header field name (an RFC 9110
// token). Garbage glued to the front of a header line rarely is one, so the
// line is rejected and the header after the garbage is found.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0:
		default:
			return false
		}
	}
	return true
}

// parseLength parses a Content-Length value: decimal digits only, above
// zero, fitting in int64.
func parseLength(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil && n > 0
}

// lower lower-cases an ASCII letter and returns other bytes unchanged.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFold reports whether b equals the lower-case ASCII string s, ignoring
// the case of ASCII letters only.
func equalFold(b []byte, s string) bool {
	return len(b) == len(s) && hasPrefixFold(b, s)
}

// hasPrefixFold reports whether b begins with the lower-case ASCII string s,
// ignoring the case of ASCII letters only.
func hasPrefixFold(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	for i := range len(s) {
		if lower(b[i]) != s[i] {
			return false
		}
	}
	return true
}

// indexHeader returns the index of the first "Content-Length" in b, in any
// case, or -1. Skipped input can be a whole oversized body, so it lets
// bytes.IndexByte find the candidates by the name's hyphen, which has no
// case, instead of comparing every byte.
func indexHeader(b []byte) int {
	const hyphen = len("content") // offset of the hyphen in headerName
	for i := hyphen; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], '-')
		if j < 0 {
			return -1
		}
		i += j
		if hasPrefixFold(b[i-hyphen:], headerName) {
			return i - hyphen
		}
	}
	return -1
}

// snippet quotes the start of b for a log line.
func snippet(b []byte) string {
	const n = 40
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}
