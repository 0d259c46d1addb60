package compact

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reasonix/reasonix/agent/provider"
)

// A compact notation for histories: "u" user, "U" oversized user, "a"
// assistant text, "c" assistant with one tool call, "t" its result, "d" a
// digest, "T" a large tool result. The system message comes first
// implicitly.
func testHistory(spec string) []provider.Message {
	msgs := []provider.Message{{Role: provider.RoleSystem, Content: "system"}}
	call := 0
	for i, r := range spec {
		id := string(rune('A'+i%26)) + strings.Repeat("x", i/26)
		switch r {
		case 'u':
			msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: "user " + id})
		case 'U':
			msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: "pasted " + id + strings.Repeat(" line of a pasted file", 500)})
		case 'a':
			msgs = append(msgs, provider.Message{Role: provider.RoleAssistant, Content: "answer " + id})
		case 'c':
			call++
			msgs = append(msgs, provider.Message{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "call" + id, Name: "read_file", Arguments: `{"path":"x"}`}}})
		case 't', 'T':
			prev := msgs[len(msgs)-1]
			n := 20
			if r == 'T' {
				n = 2000
			}
			msgs = append(msgs, provider.Message{Role: provider.RoleTool, ToolCallID: prev.ToolCalls[0].ID, Name: "read_file", Content: strings.Repeat("data ", n)})
		case 'd':
			msgs = append(msgs, provider.Message{Role: provider.RoleAssistant, Content: "digest " + id, Digest: true})
		}
	}
	return msgs
}

// shape renders messages back in the notation.
func shape(msgs []provider.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case m.Role == provider.RoleUser && len(m.Content) > 1000:
			b.WriteByte('U')
		case m.Role == provider.RoleUser:
			b.WriteByte('u')
		case m.Digest:
			b.WriteByte('d')
		case m.Role == provider.RoleAssistant && len(m.ToolCalls) > 0:
			b.WriteByte('c')
		case m.Role == provider.RoleAssistant:
			b.WriteByte('a')
		case m.Role == provider.RoleTool && len(m.Content) > 1000:
			b.WriteByte('T')
		case m.Role == provider.RoleTool:
			b.WriteByte('t')
		}
	}
	return b.String()
}

func TestPlanCompaction(t *testing.T) {
	k := Sizer(0.25)
	roomy := Budgets{Tail: 60, Pinned: 10_000, UserMax: 200}
	tests := []struct {
		name    string
		history string
		b       Budgets
		// kept, dropped and tail in the notation; "" for an error.
		kept, dropped, tail string
	}{
		// Between turns the tail is the new prompt: the digest is
		// followed by a user message.
		{"between turns", "uctcta" + "uctcta" + "u", roomy, "uu", "ctctactcta", "u"},
		// The tail's budget would start it at a tool result: it moves
		// to the call, never leaving an orphan result.
		{"no orphan tool message", "uctctct", Budgets{Tail: 85, Pinned: 10_000, UserMax: 200}, "u", "ctct", "ct"},
		// Mid-turn the tail is the latest call and its result, even
		// when it is larger than the budget.
		{"latest group kept", "uctcT", Budgets{Tail: 10, Pinned: 10_000, UserMax: 200}, "u", "ct", "cT"},
		// A tail reaching into earlier turns starts at a user message.
		{"tail starts at a turn", "uaUauau", roomy, "u", "aUa", "uau"},
		// A pasted file is folded like tool output; normal turns stay.
		{"oversized user turn", "uaUaua" + "u", Budgets{Tail: 5, Pinned: 10_000, UserMax: 200}, "uu", "aUaa", "u"},
		// Earlier digests stay verbatim in their place.
		{"digests kept", "udu" + "ctad" + "ucta" + "u", roomy, "ududu", "ctacta", "u"},
		// Over the budget for kept messages, the oldest digests fold
		// first (a digest of digests), then the oldest user turns; each
		// message here counts 5 tokens, and folding stops as soon as
		// the rest fit.
		{"digest of digests", "udud" + "ucta" + "u", Budgets{Tail: 60, Pinned: 15, UserMax: 200}, "uuu", "ddcta", "u"},
		{"oldest digest only", "udud" + "ucta" + "u", Budgets{Tail: 60, Pinned: 20, UserMax: 200}, "uudu", "dcta", "u"},
		// Every digest folds before any user turn, even one older than
		// the digests; then the oldest user turns, only as many as needed.
		{"digests before user turns", "udud" + "ucta" + "u", Budgets{Tail: 60, Pinned: 10, UserMax: 200}, "uu", "uddcta", "u"},
		{"user turns fold last", "uaua" + "ucta" + "u", Budgets{Tail: 60, Pinned: 6, UserMax: 200}, "u", "uauacta", "u"},
		{"nothing to fold", "uuu", roomy, "", "", ""},
		{"only the latest group", "uct", roomy, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPlan(testHistory(tt.history), k, tt.b)
			if tt.tail == "" {
				if !errors.Is(err, ErrNothingToCompact) {
					t.Fatalf("err = %v, plan kept %q dropped %q tail %q", err, shape(p.Kept), shape(p.Dropped), shape(p.Tail))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if shape(p.Kept) != tt.kept || shape(p.Dropped) != tt.dropped || shape(p.Tail) != tt.tail {
				t.Errorf("kept %q dropped %q tail %q; want %q %q %q", shape(p.Kept), shape(p.Dropped), shape(p.Tail), tt.kept, tt.dropped, tt.tail)
			}
			if shape(p.Fold)+shape(p.Tail) != tt.history {
				t.Errorf("fold %q + tail %q is not the history", shape(p.Fold), shape(p.Tail))
			}
			if p.Tail[0].Role == provider.RoleTool {
				t.Errorf("the tail starts with a tool message")
			}
		})
	}
}

// TestSplitPieces: pieces are runs of whole groups in order, each within
// the room; a group larger than the room alone is clipped to fit.
func TestSplitPieces(t *testing.T) {
	k := Sizer(0.25)
	msgs := testHistory("uctctaUctcTa")[1:]
	pieces := SplitPieces(msgs, k, 120, 120)
	var joined []provider.Message
	for i, p := range pieces {
		if p[0].Role == provider.RoleTool {
			t.Errorf("piece %d starts with a tool message", i)
		}
		if size := k.OfAll(p); size > 120 {
			t.Errorf("piece %d (%s) holds %d tokens, room 120", i, shape(p), size)
		}
		joined = append(joined, p...)
	}
	if len(pieces) < 3 || len(joined) != len(msgs) {
		t.Fatalf("%d pieces of %d messages, from %d", len(pieces), len(joined), len(msgs))
	}
	for i := range msgs {
		if joined[i].Role != msgs[i].Role || joined[i].ToolCallID != msgs[i].ToolCallID {
			t.Fatalf("message %d out of order", i)
		}
	}
}

func TestClipText(t *testing.T) {
	s := strings.Repeat("héllo wörld ", 1000)
	got := clipText(s, 100)
	if len(got) > 200 || !strings.Contains(got, "bytes left out") || !strings.HasPrefix(got, "héllo") {
		t.Fatalf("clipText = %q", got)
	}
	if !utf8.ValidString(got) {
		t.Fatal("clipText cut a rune")
	}
	if clipText("short", 100) != "short" {
		t.Fatal("a short text was clipped")
	}
}
