package provider

import (
	"errors"
	"fmt"
	"testing"
)

func TestContextLimit(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int // 0: no limit named
	}{
		{&APIError{Status: 400, Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."}, 8192},
		{&APIError{Status: 400, Message: "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (69000 in the messages, 1000 in the completion)."}, 65536},
		{fmt.Errorf("turn: %w", &APIError{Status: 400, Message: "maximum context length is 4096 tokens"}), 4096},
		{&APIError{Status: 400, Code: "context_length_exceeded", Message: "the prompt is too long"}, 0},
		{&APIError{Status: 500, Message: "This model's maximum context length is 8192 tokens."}, 0},
		{&APIError{Status: 400, Message: "maximum context length is 0 tokens"}, 0},
		{errors.New("maximum context length is 8192 tokens"), 0},
	} {
		got, ok := ContextLimit(c.err)
		if got != c.want || ok != (c.want > 0) {
			t.Errorf("ContextLimit(%v) = %d, %v; want %d", c.err, got, ok, c.want)
		}
	}
}
