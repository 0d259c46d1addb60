package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
)

// callStream is an event stream of one response whose tool calls have
// arguments of the given sizes, each streamed in pieces of 1 to maxPiece
// bytes (the scripted server sends 1 to 12), made as it is read so that a
// stream of any size costs the test nothing to hold.
type callStream struct {
	sizes    []int
	maxPiece int
	call     int // the call being streamed
	sent     int // of its arguments
	piece    int
	buf      bytes.Buffer
	ended    bool
}

func newCallStream(maxPiece int, sizes ...int) *callStream {
	return &callStream{sizes: sizes, maxPiece: maxPiece, call: -1}
}

func (s *callStream) Read(p []byte) (int, error) {
	for s.buf.Len() == 0 {
		if s.ended {
			return 0, io.EOF
		}
		s.next()
	}
	return s.buf.Read(p)
}

// next writes the stream's next event.
func (s *callStream) next() {
	event := func(v string) { fmt.Fprintf(&s.buf, "data: %s\n\n", v) }
	if s.call < 0 || s.sent == s.sizes[s.call] {
		s.call++
		s.sent = 0
		if s.call == len(s.sizes) {
			event(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
			event(`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}`)
			event("[DONE]")
			s.ended = true
			return
		}
		event(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"c%d","type":"function","function":{"name":"write_file","arguments":""}}]}}]}`, s.call, s.call))
		return
	}
	// The arguments are {"path":"big.txt","content":"xx…x"}, size bytes.
	const head, tail = `{"path":"big.txt","content":"`, `"}`
	size := s.sizes[s.call]
	s.piece = s.piece%s.maxPiece + 1
	n := min(s.piece, size-s.sent)
	b := make([]byte, 0, n)
	for i := s.sent; i < s.sent+n; i++ {
		switch {
		case i < len(head):
			b = append(b, head[i])
		case i >= size-len(tail):
			b = append(b, tail[i-(size-len(tail))])
		default:
			b = append(b, 'x')
		}
	}
	s.sent += n
	piece, _ := json.Marshal(string(b))
	event(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}}]}`, s.call, piece))
}

// TestStreamStopsAtAnOversizeArgument: a call whose arguments pass
// MaxArgumentBytes, or that take the response's past
// MaxResponseArgumentBytes, ends the reading there: the calls before it
// are whole, it is marked Oversize with "{}" for arguments, nothing after
// it is read, and what was held stays near the limit.
func TestStreamStopsAtAnOversizeArgument(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name  string
		sizes []int
		whole int // calls before the cut
	}{
		{"one call past the call limit", []int{40 * mib}, 0},
		{"after a whole call", []int{1000, 5 * mib, 1000}, 1},
		{"past the response limit", []int{3 * mib, 3 * mib, 3 * mib, 3 * mib, 3 * mib, 3 * mib, 1000}, 5},
		{"within the limits", []int{provider.MaxArgumentBytes, 1000}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newCallStream(4096, tc.sizes...)
			resp, err := readStream(s, func() {}, func(provider.Chunk) {})
			if err != nil {
				t.Fatal(err)
			}
			calls := resp.Message.ToolCalls
			for i, c := range calls[:tc.whole] {
				if c.Oversize != 0 || len(c.Arguments) != tc.sizes[i] || !json.Valid([]byte(c.Arguments)) {
					t.Errorf("call %d: oversize %d, %d bytes of arguments, want %d whole", i, c.Oversize, len(c.Arguments), tc.sizes[i])
				}
			}
			if tc.whole == len(tc.sizes) {
				if len(calls) != len(tc.sizes) || resp.Usage.Total() == 0 {
					t.Fatalf("%d calls, usage %+v: the response within the limits was not read whole", len(calls), resp.Usage)
				}
				return
			}
			if len(calls) != tc.whole+1 {
				t.Fatalf("%d calls, want %d before the cut and the cut one", len(calls), tc.whole)
			}
			cut := calls[tc.whole]
			over := cut.Oversize > provider.MaxArgumentBytes || tc.whole > 0 && cut.Oversize > 0
			if !over || cut.Arguments != "{}" || cut.ID != fmt.Sprintf("c%d", tc.whole) {
				t.Errorf("the cut call: %+v", cut)
			}
			// Reading stopped at the cut: the rest of that call's
			// arguments, and the calls after it, were never asked for.
			if s.call != tc.whole || s.sent == tc.sizes[tc.whole] {
				t.Errorf("the stream was read to call %d, %d bytes into it", s.call, s.sent)
			}
		})
	}
}

// BenchmarkStreamOversizeArgument reads a response whose one call has
// 40 MB of arguments, streamed in pieces of 1 to 12 bytes: the time and
// memory a hostile endpoint can cost a request.
//
//	go test -run '^$' -bench StreamOversizeArgument -benchmem ./agent/provider/openai/
func BenchmarkStreamOversizeArgument(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readStream(newCallStream(12, 40_000_000), func() {}, func(provider.Chunk) {}); err != nil {
			b.Fatal(err)
		}
	}
}
