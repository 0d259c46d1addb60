package scripted

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenize splits s into approximate tokens. It is no real model's
// tokenizer, only a cheap deterministic stand-in whose counts grow with the
// text the way real ones do:
//
//   - a run of letters (with their combining marks) is one token per 4 runes;
//   - a run of digits is one token per 3 digits;
//   - a run of whitespace is one token;
//   - any other rune (punctuation, symbols) is a token by itself.
//
// Concatenating the tokens gives s back.
func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		class, limit := runeClass(r), 0
		switch class {
		case classLetter:
			limit = 4
		case classDigit:
			limit = 3
		case classSpace:
			limit = -1 // the whole run
		case classOther:
			toks = append(toks, s[i:i+size])
			i += size
			continue
		}
		j, n := i, 0
		for j < len(s) && (limit < 0 || n < limit) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if runeClass(r) != class {
				break
			}
			j += size
			n++
		}
		toks = append(toks, s[i:j])
		i = j
	}
	return toks
}

const (
	classLetter = iota
	classDigit
	classSpace
	classOther
)

func runeClass(r rune) int {
	switch {
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return classLetter
	case unicode.IsDigit(r):
		return classDigit
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

// renderPrompt is the canonical rendering of a request's prompt: what it
// means, in request order, independent of how the JSON was spelled (key
// order, escapes, whitespace). Tools come first, each as its name,
// description and parameters JSON (compacted); then every message as its
// role, content, reasoning_content if sent, tool calls (id, name,
// arguments) and tool_call_id.
//
// Every field starts with a "<|...|>" marker and ends with "\n", so the
// tokens of a rendering are the tokens of its fields laid end to end: a
// request that extends another has the other's tokens as a prefix.
func renderPrompt(req *chatRequest) string {
	var b strings.Builder
	field := func(marker string, parts ...string) {
		b.WriteString("<|" + marker + "|>")
		for i, p := range parts {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(p)
		}
		b.WriteByte('\n')
	}
	for _, t := range req.Tools {
		params := t.Function.Parameters
		var compact bytes.Buffer
		if err := json.Compact(&compact, params); err == nil {
			params = compact.Bytes()
		}
		field("tool", t.Function.Name)
		field("description", t.Function.Description)
		field("parameters", string(params))
	}
	for _, m := range req.Messages {
		field(m.Role, m.Content)
		if m.ReasoningContent != nil {
			field("reasoning", *m.ReasoningContent)
		}
		for _, tc := range m.ToolCalls {
			field("call", tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if m.ToolCallID != "" {
			field("result", m.ToolCallID)
		}
	}
	return b.String()
}

// cacheBlock is the granularity of DeepSeek's prefix cache, in tokens.
const cacheBlock = 64

type blockHash [sha256.Size]byte

// blockHashes returns one hash per whole cacheBlock of toks. Each hash
// covers its block and, through the previous hash, everything before it,
// so equal hashes mean equal prefixes.
func blockHashes(toks []string) []blockHash {
	hashes := make([]blockHash, 0, len(toks)/cacheBlock)
	var prev blockHash
	var lenBuf [binary.MaxVarintLen64]byte
	for end := cacheBlock; end <= len(toks); end += cacheBlock {
		h := sha256.New()
		h.Write(prev[:])
		for _, t := range toks[end-cacheBlock : end] {
			// Length-prefix each token so token boundaries are part of
			// the hash.
			h.Write(lenBuf[:binary.PutUvarint(lenBuf[:], uint64(len(t)))])
			h.Write([]byte(t))
		}
		h.Sum(prev[:0])
		hashes = append(hashes, prev)
	}
	return hashes
}

// prefixCache emulates DeepSeek's context cache: it remembers every whole
// block of every prompt it has seen, keyed by chained hash.
type prefixCache struct {
	seen map[blockHash]struct{}
}

// hit returns how many leading tokens of a prompt with these block hashes
// an earlier prompt shared, in whole blocks, and then remembers the
// prompt's blocks. It costs O(blocks).
func (c *prefixCache) hit(hashes []blockHash) int {
	if c.seen == nil {
		c.seen = make(map[blockHash]struct{})
	}
	n := 0
	for n < len(hashes) {
		if _, ok := c.seen[hashes[n]]; !ok {
			break
		}
		n++
	}
	for _, h := range hashes[n:] {
		c.seen[h] = struct{}{}
	}
	return n * cacheBlock
}
