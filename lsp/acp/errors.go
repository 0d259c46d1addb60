package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"
)

// Errors reach the client as JSON-RPC errors. The SDK words each one as
// JSON-RPC names its code ("Internal error", "Invalid params") and puts
// the reason in data.error, and clients show the message: acpx printed a
// failed turn as "Internal error" and nothing else. So every error
// response is completed on its way out (wire.Write calls explainError):
// the reason follows the code's name in message, and data carries it as
// data.details, the field the TypeScript SDK fills for a failed handler
// and the one Zed and acpx show before anything else. Doing it on the
// wire covers every path at one place: the agent's own errors, the
// SDK's (parameters that do not parse, a handler's plain error, a method
// it does not know) and the framing guard's answers.

// codeNames are the messages that only name an error's code, as the
// SDKs word them.
var codeNames = map[string]bool{
	"parse error":             true,
	"invalid request":         true,
	"method not found":        true,
	"invalid params":          true,
	"internal error":          true,
	"request cancelled":       true,
	"authentication required": true,
	"resource not found":      true,
}

// generic reports whether message says no more than the error's code.
func generic(message string) bool {
	return message == "" || codeNames[strings.ToLower(strings.TrimSpace(message))]
}

// reasonFields are the data fields the SDKs put an error's reason in:
// details (the TypeScript SDK), error (the Go SDK), message.
var reasonFields = []string{"details", "error", "message"}

// dataReason returns the reason an error's data carries and the field
// it was in ("" for data that is a string).
func dataReason(data any) (reason, field string) {
	switch d := data.(type) {
	case string:
		return strings.TrimSpace(d), ""
	case map[string]any:
		for _, k := range reasonFields {
			if s, ok := d[k].(string); ok && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s), k
			}
		}
	}
	return "", ""
}

// errorReason says why the peer's request failed, in words: the message
// when it says more than the code's name, else the reason its data
// carries, else the message.
func errorReason(err error) string {
	var re *acpsdk.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	if !generic(re.Message) {
		return re.Message
	}
	if r, _ := dataReason(re.Data); r != "" {
		return r
	}
	if re.Message != "" {
		return re.Message
	}
	return err.Error()
}

// wireError is a JSON-RPC error object as it goes out.
type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// explain completes an error object: a message that only names the code
// gets the reason after it, and the reason moves to data.details; other
// fields of data stay. A method not found is named in the message.
func explain(e wireError) wireError {
	if !generic(e.Message) {
		return e
	}
	name := strings.TrimSpace(e.Message)
	if name == "" {
		name = "Error"
	}
	if d, ok := e.Data.(map[string]any); ok && e.Code == -32601 {
		if m, ok := d["method"].(string); ok && m != "" {
			e.Message = name + ": " + m
		}
		return e
	}
	reason, field := dataReason(e.Data)
	if reason == "" {
		return e
	}
	e.Message = name + ": " + reason
	data := map[string]any{}
	if d, ok := e.Data.(map[string]any); ok {
		for k, v := range d {
			if k != field {
				data[k] = v
			}
		}
	}
	data["details"] = reason
	e.Data = data
	return e
}

// explainError rewrites one outgoing message, a response with an error,
// so that its message says why; anything it cannot read goes out as it
// came.
func explainError(msg []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || len(m["error"]) == 0 {
		return msg
	}
	var e wireError
	dec := json.NewDecoder(bytes.NewReader(m["error"]))
	dec.UseNumber() // numbers in data go out as they came
	if dec.Decode(&e) != nil {
		return msg
	}
	raw, err := json.Marshal(explain(e))
	if err != nil {
		return msg
	}
	m["error"] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	if bytes.HasSuffix(msg, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

// requestError makes a failure of the agent a JSON-RPC error: a
// RequestError as it is (unwrapped: the SDK recognises only the bare
// type, and would report a wrapped one as an internal error whose reason
// is its JSON), anything else an internal error with the error's text.
func requestError(err error) error {
	var re *acpsdk.RequestError
	if errors.As(err, &re) {
		return re
	}
	return acpsdk.NewInternalError(map[string]any{"error": err.Error()})
}
