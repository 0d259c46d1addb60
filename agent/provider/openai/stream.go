package openai

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
)

// maxEventSize bounds one server-sent event; a tool call's arguments arrive
// in many small events, so a single huge one means a broken stream.
const maxEventSize = 16 << 20

// readStream consumes a server-sent event stream of chat.completion.chunk
// objects. Text and reasoning are emitted as they arrive; tool calls are
// assembled by index and emitted whole once the message is finished. kick
// is called on every line so an idle watchdog can tell a slow stream from a
// dead one. A call whose arguments pass a limit ends the reading: the
// response holds what came before it and that call, marked Oversize, and
// no usage (the stream's last chunk carries it).
func readStream(r io.Reader, kick func(), emit func(provider.Chunk)) (provider.Response, error) {
	var (
		a        assembler
		data     bytes.Buffer
		hasData  bool
		finished bool
		done     bool
	)
	br := bufio.NewReaderSize(r, 64<<10)
	dispatch := func() error {
		if !hasData {
			return nil
		}
		payload := bytes.TrimSpace(data.Bytes())
		data.Reset()
		hasData = false
		if string(payload) == "[DONE]" {
			done = true
			return nil
		}
		var c wireChunk
		if err := json.Unmarshal(payload, &c); err != nil {
			return fmt.Errorf("malformed stream chunk %q: %v", abbreviate(payload), err)
		}
		if c.Error != nil {
			return fmt.Errorf("error in stream: %s", c.Error.Message)
		}
		if a.apply(&c, emit) {
			finished = true
		}
		return nil
	}
	for !done && !a.cut {
		line, err := readLine(br)
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			return provider.Response{}, err
		}
		kick()
		switch {
		case len(line) == 0:
			if err := dispatch(); err != nil {
				return provider.Response{}, err
			}
		case line[0] == ':':
			// A comment, such as DeepSeek's ": keep-alive".
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			if string(field) == "data" {
				if hasData {
					data.WriteByte('\n')
				}
				if data.Len()+len(value) > maxEventSize {
					return provider.Response{}, fmt.Errorf("stream event larger than %d bytes", maxEventSize)
				}
				data.Write(value)
				hasData = true
			}
		}
		if eof {
			if err := dispatch(); err != nil {
				return provider.Response{}, err
			}
			if !finished && !done && !a.cut {
				return provider.Response{}, provider.ErrStreamTruncated
			}
			break
		}
	}
	if !finished && !a.cut && !a.sawContent() {
		// "[DONE]" without a finish_reason or any content: nothing usable.
		return provider.Response{}, provider.ErrStreamTruncated
	}
	return a.response(emit), nil
}

// newCallID returns a random tool call id.
func newCallID() string {
	var b [12]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// readLine reads one line without its terminator, however long.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		buf := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(buf) > maxEventSize {
				return nil, fmt.Errorf("stream line longer than %d bytes", maxEventSize)
			}
			line, err = br.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, err
}

func abbreviate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// assembler builds the assistant message from stream deltas.
type assembler struct {
	content   strings.Builder
	reasoning strings.Builder
	calls     []*callBuilder
	byIndex   map[int]*callBuilder
	usage     *provider.Usage
	finish    string
	model     string
	// argBytes counts the arguments held, all calls together; cut is
	// set once a call's arguments passed a limit (provider.
	// MaxArgumentBytes, MaxResponseArgumentBytes): reading stops there,
	// so what a stream can make Reasonix hold, and the time it can keep
	// it reading, stay bounded.
	argBytes int
	cut      bool
}

type callBuilder struct {
	id, name string
	args     strings.Builder
	// oversize is the size the arguments had reached when they were
	// dropped for passing a limit; 0 while they are held.
	oversize int
}

// apply folds one chunk in and reports whether it finished the message.
func (a *assembler) apply(c *wireChunk, emit func(provider.Chunk)) bool {
	if c.Model != "" {
		a.model = c.Model
	}
	if c.Usage != nil {
		u := c.Usage.usage()
		a.usage = &u
	}
	finished := false
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // only the first choice is requested
		}
		d := ch.Delta
		if r := d.ReasoningContent; r != nil && *r != "" {
			a.reasoning.WriteString(*r)
			emit(provider.Chunk{Kind: provider.ChunkReasoning, Text: *r})
		} else if r := d.Reasoning; r != nil && *r != "" {
			a.reasoning.WriteString(*r)
			emit(provider.Chunk{Kind: provider.ChunkReasoning, Text: *r})
		}
		if d.Content != nil && *d.Content != "" {
			a.content.WriteString(*d.Content)
			emit(provider.Chunk{Kind: provider.ChunkText, Text: *d.Content})
		}
		for i, tc := range d.ToolCalls {
			a.toolDelta(i, tc)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
			finished = true
		}
	}
	return finished
}

// toolDelta merges one tool-call fragment. Fragments are keyed by index;
// servers that omit the index are handled by treating a new id as a new
// call and anything else as a continuation of the latest one.
func (a *assembler) toolDelta(pos int, tc wireToolCall) {
	if a.byIndex == nil {
		a.byIndex = map[int]*callBuilder{}
	}
	var b *callBuilder
	if tc.Index != nil {
		b = a.byIndex[*tc.Index]
		if b == nil {
			b = &callBuilder{}
			a.byIndex[*tc.Index] = b
			a.calls = append(a.calls, b)
		}
	} else {
		switch {
		case tc.ID != "" && (len(a.calls) == 0 || a.calls[len(a.calls)-1].id != tc.ID):
			b = &callBuilder{}
			a.calls = append(a.calls, b)
		case len(a.calls) == 0:
			b = &callBuilder{}
			a.calls = append(a.calls, b)
		default:
			b = a.calls[len(a.calls)-1]
		}
	}
	if tc.ID != "" {
		b.id = tc.ID
	}
	if tc.Function.Name != "" {
		// Names arrive whole in practice; a few servers repeat them on
		// every fragment, so do not concatenate.
		b.name = tc.Function.Name
	}
	piece := tc.Function.Arguments
	if b.oversize > 0 {
		return
	}
	if n := b.args.Len() + len(piece); n > provider.MaxArgumentBytes || a.argBytes+len(piece) > provider.MaxResponseArgumentBytes {
		b.oversize = n
		b.args = strings.Builder{} // let the memory go now
		a.cut = true
		return
	}
	a.argBytes += len(piece)
	b.args.WriteString(piece)
}

func (a *assembler) sawContent() bool {
	return a.content.Len() > 0 || a.reasoning.Len() > 0 || len(a.calls) > 0
}

// response emits the whole tool calls and returns the final message.
func (a *assembler) response(emit func(provider.Chunk)) provider.Response {
	msg := provider.Message{
		Role:      provider.RoleAssistant,
		Content:   a.content.String(),
		Reasoning: a.reasoning.String(),
	}
	for _, b := range a.calls {
		id := b.id
		if id == "" {
			// Ids pair calls with their results for the whole session;
			// a server that sends none gets unique ones, not positions
			// that repeat every response.
			id = newCallID()
		}
		args := b.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		tc := provider.ToolCall{ID: id, Name: b.name, Arguments: args, Oversize: b.oversize}
		msg.ToolCalls = append(msg.ToolCalls, tc)
		emit(provider.Chunk{Kind: provider.ChunkToolCall, ToolCall: &tc})
	}
	resp := provider.Response{Message: msg, FinishReason: a.finish, Model: a.model}
	if a.usage != nil {
		resp.Usage = *a.usage
	}
	return resp
}

// readWhole reads a non-streamed chat.completion object and replays it as
// chunks.
func readWhole(r io.Reader, emit func(provider.Chunk)) (provider.Response, error) {
	var v struct {
		Model   string `json:"model"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Content          *string        `json:"content"`
				ReasoningContent *string        `json:"reasoning_content"`
				Reasoning        *string        `json:"reasoning"`
				ToolCalls        []wireToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *wireUsage `json:"usage"`
		Error *wireError `json:"error"`
	}
	body, err := io.ReadAll(io.LimitReader(r, maxEventSize))
	if err != nil {
		return provider.Response{}, err
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return provider.Response{}, fmt.Errorf("malformed response %q: %v", abbreviate(body), err)
	}
	if v.Error != nil {
		return provider.Response{}, fmt.Errorf("error in response: %s", v.Error.Message)
	}
	if len(v.Choices) == 0 {
		return provider.Response{}, provider.ErrStreamTruncated
	}
	c := wireChunk{Model: v.Model, Usage: v.Usage}
	m := v.Choices[0].Message
	choice := wireChoice{FinishReason: v.Choices[0].FinishReason}
	choice.Delta = wireDelta{Content: m.Content, ReasoningContent: m.ReasoningContent, Reasoning: m.Reasoning}
	for i, tc := range m.ToolCalls {
		idx := i
		tc.Index = &idx
		choice.Delta.ToolCalls = append(choice.Delta.ToolCalls, tc)
	}
	c.Choices = []wireChoice{choice}
	var a assembler
	a.apply(&c, emit)
	return a.response(emit), nil
}
