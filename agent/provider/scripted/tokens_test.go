package scripted

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"hello", []string{"hell", "o"}},
		{"func main() {}", []string{"func", " ", "main", "(", ")", " ", "{", "}"}},
		{"1234567", []string{"123", "456", "7"}},
		{"a1b", []string{"a", "1", "b"}},
		{"x  \n\ty", []string{"x", "  \n\t", "y"}},
		{"naïve café", []string{"naïv", "e", " ", "café"}},
		{"🙂🙂", []string{"🙂", "🙂"}},
	}
	for _, tt := range tests {
		got := tokenize(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Join(got, "") != tt.in {
			t.Errorf("tokenize(%q) does not rejoin", tt.in)
		}
	}
}

// words returns n distinct short tokens, so every token is one word.
func words(prefix string, n int) []string {
	toks := make([]string, n)
	for i := range toks {
		toks[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return toks
}

func TestPrefixCacheHit(t *testing.T) {
	var c prefixCache
	first := words("w", 200) // three whole blocks and 8 tokens over
	if got := c.hit(blockHashes(first)); got != 0 {
		t.Errorf("first prompt: hit %d, want 0", got)
	}

	// Extending the first prompt shares all of its whole blocks.
	second := append(slices.Clone(first), words("x", 100)...)
	if got, want := c.hit(blockHashes(second)), 200/cacheBlock*cacheBlock; got != want {
		t.Errorf("extension: hit %d, want %d", got, want)
	}

	// The same prompt again is a hit on all its whole blocks.
	if got, want := c.hit(blockHashes(second)), 300/cacheBlock*cacheBlock; got != want {
		t.Errorf("repeat: hit %d, want %d", got, want)
	}

	// Changing token 70 (in the second block) keeps only the first block.
	changed := slices.Clone(second)
	changed[70] = "edited"
	if got := c.hit(blockHashes(changed)); got != cacheBlock {
		t.Errorf("early change: hit %d, want %d", got, cacheBlock)
	}

	// A later block that matches an earlier request's block at the same
	// position is no hit when the blocks before it differ: hashes chain.
	other := slices.Clone(second)
	other[0] = "different"
	if got := c.hit(blockHashes(other)); got != 0 {
		t.Errorf("first token changed: hit %d, want 0", got)
	}

	// Short prompts never hit more than they have.
	short := words("w", 63)
	if got := c.hit(blockHashes(short)); got != 0 {
		t.Errorf("short prompt: hit %d, want 0", got)
	}
	for n := 0; n <= 300; n += 37 {
		if got := c.hit(blockHashes(second[:n])); got > n {
			t.Errorf("prompt of %d tokens: hit %d exceeds it", n, got)
		}
	}
}

func TestRenderPromptExtends(t *testing.T) {
	base := &chatRequest{Messages: []Message{
		{Role: "system", Content: "You are terse.  "},
		{Role: "user", Content: "list files"},
	}}
	longer := &chatRequest{Messages: append(slices.Clone(base.Messages),
		Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "ls", Arguments: "{}"}}}},
		Message{Role: "tool", ToolCallID: "c1", Content: "a.go\n"},
	)}
	a, b := tokenize(renderPrompt(base)), tokenize(renderPrompt(longer))
	if len(b) <= len(a) || !slices.Equal(a, b[:len(a)]) {
		t.Errorf("tokens of an extended request do not start with the original's:\n%q\n%q", a, b)
	}
}
