package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
	"unicode/utf8"
)

// keepAliveEvery is how many chunks pass between ": keep-alive" comments,
// which DeepSeek sends while a response is being generated. One is always
// sent before the first chunk, so clients must skip comments.
const keepAliveEvery = 16

// stream writes the reply as server-sent events, honouring the step's delay
// and stream fault. It returns an error when the client went away.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, rep *reply) error {
	st := rep.step
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sse := sseWriter{w: w, rc: http.NewResponseController(w)}
	if err := sse.frame(": keep-alive\n\n"); err != nil {
		return err
	}

	deltas := st.deltas()
	n := len(deltas)
	switch st.fault.kind {
	case faultDrop:
		n = 1 + (len(deltas)-1)/2 // the role chunk and about half the rest
	case faultMalformed:
		n = min(n, 3)
	}
	for i, d := range deltas[:n] {
		if err := sleep(ctx, st.delay); err != nil {
			return err
		}
		if i > 0 && i%keepAliveEvery == 0 {
			if err := sse.frame(": keep-alive\n\n"); err != nil {
				return err
			}
		}
		if err := sse.data(rep.chunk(d, nil)); err != nil {
			return err
		}
	}

	switch st.fault.kind {
	case faultDrop:
		return hangUp(w)
	case faultMalformed:
		return sse.frame(fmt.Sprintf("data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"unterminated\n\n", rep.id))
	case faultTruncate:
		return nil
	}

	if err := sleep(ctx, st.delay); err != nil {
		return err
	}
	finish := st.finishReason()
	if err := sse.data(rep.chunk(delta{}, &finish)); err != nil {
		return err
	}
	usage := chunk{ID: rep.id, Object: "chat.completion.chunk", Created: rep.created, Model: rep.model,
		Choices: []chunkChoice{}, Usage: &rep.usage}
	if err := sse.data(usage); err != nil {
		return err
	}
	return sse.frame("data: [DONE]\n\n")
}

// complete writes the reply as one chat.completion object, after waiting as
// long as the stream would have taken.
func (s *Server) complete(ctx context.Context, w http.ResponseWriter, rep *reply) error {
	st := rep.step
	if err := sleep(ctx, st.delay*time.Duration(len(st.deltas())+1)); err != nil {
		return err
	}
	switch st.fault.kind {
	case faultDrop:
		return hangUp(w)
	case faultMalformed:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, err := fmt.Fprintf(w, "{\"id\":%q,\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"unterminated", rep.id)
		return err
	}
	msg := completionMessage{Role: "assistant", Content: st.contentText(), ReasoningContent: st.reasoningText()}
	for i, c := range st.calls {
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: st.callID(i), Type: "function",
			Function: FunctionCall{Name: c.name, Arguments: c.args}})
	}
	finish, usage := new(st.finishReason()), &rep.usage
	if st.fault.kind == faultTruncate {
		finish, usage = nil, nil
	}
	writeJSON(w, http.StatusOK, completion{
		ID: rep.id, Object: "chat.completion", Created: rep.created, Model: rep.model,
		Choices: []completionChoice{{Message: msg, FinishReason: finish}},
		Usage:   usage,
	})
	return nil
}

func (rep *reply) chunk(d delta, finish *string) chunk {
	return chunk{
		ID: rep.id, Object: "chat.completion.chunk", Created: rep.created, Model: rep.model,
		Choices: []chunkChoice{{Delta: d, FinishReason: finish}},
	}
}

// deltas are the step's streamed deltas in order: the role, the reasoning
// pieces, the content pieces, then for each call a first delta with its id
// and name followed by its arguments in pieces.
func (st *step) deltas() []delta {
	ds := []delta{{Role: "assistant", Content: new("")}}
	for _, p := range pieces(st.reasoningText(), st.num, 0) {
		ds = append(ds, delta{ReasoningContent: new(p)})
	}
	for _, p := range pieces(st.contentText(), st.num, 1) {
		ds = append(ds, delta{Content: new(p)})
	}
	for i, c := range st.calls {
		ds = append(ds, delta{ToolCalls: []deltaToolCall{{Index: i, ID: st.callID(i), Type: "function",
			Function: deltaFunction{Name: c.name}}}})
		for _, p := range pieces(c.args, st.num, 2+i) {
			ds = append(ds, delta{ToolCalls: []deltaToolCall{{Index: i, Function: deltaFunction{Arguments: p}}}})
		}
	}
	return ds
}

// completionTokens counts the tokens of what the step generates, and how
// many of them are reasoning.
func (st *step) completionTokens() (total, reasoning int) {
	reasoning = len(tokenize(st.reasoningText()))
	total = reasoning + len(tokenize(st.contentText()))
	for _, c := range st.calls {
		total += len(tokenize(c.name)) + len(tokenize(c.args))
	}
	return total, reasoning
}

// pieces splits s into pieces of 1 to 12 bytes, never inside a rune (a
// piece only grows past 12 bytes to hold a single wide rune). The sizes come
// from a tiny LCG seeded by the step and stream, so a step always streams
// the same way. A string of two or more runes always yields two or more
// pieces, so a client has to reassemble them.
func pieces(s string, stepNum, stream int) []string {
	var out []string
	x := uint32(stepNum)*2654435761 + uint32(stream)*40503 + 1
	for len(s) > 0 {
		x = x*1664525 + 1013904223
		n := 1 + int(x>>16)%12
		if len(out) == 0 {
			n = min(n, max(1, len(s)/2))
		}
		n = min(n, len(s))
		for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 { // a rune wider than the piece: send it whole
			_, n = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// sseWriter writes server-sent events, flushing after every frame so the
// client sees each one as it is sent.
type sseWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (sw sseWriter) frame(s string) error {
	if _, err := io.WriteString(sw.w, s); err != nil {
		return err
	}
	return sw.rc.Flush()
}

func (sw sseWriter) data(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sw.frame("data: " + string(b) + "\n\n")
}

// hangUp closes the TCP connection under a response without finishing it,
// so the client sees the body end with an unexpected EOF.
func hangUp(w http.ResponseWriter) error {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return fmt.Errorf("cannot drop the connection: %w", err)
	}
	buf.Flush()
	return conn.Close()
}

// sleep waits d, or until ctx ends. With d == 0 it only checks ctx, so a
// client that hung up stops the stream at the next chunk.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
