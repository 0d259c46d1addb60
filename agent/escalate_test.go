package agent

import (
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/provider"
)

func TestNeedsPro(t *testing.T) {
	tests := []struct {
		in, reason, rest string
		ok               bool
	}{
		{"<<<NEEDS_PRO>>>", "", "", true},
		{"\n <<<NEEDS_PRO: hard proof >>>\nmy try", "hard proof", "my try", true},
		{"<<<NEEDS_PROX>>> a", "", "<<<NEEDS_PROX>>> a", false},
		{"<<<NEEDS_PRO no end", "", "<<<NEEDS_PRO no end", false},
		{"answer <<<NEEDS_PRO>>>", "", "answer <<<NEEDS_PRO>>>", false},
	}
	for _, tc := range tests {
		reason, rest, ok := needsPro(tc.in)
		if reason != tc.reason || rest != tc.rest || ok != tc.ok {
			t.Errorf("needsPro(%q) = %q, %q, %v", tc.in, reason, rest, ok)
		}
	}
}

// TestMarkerFilter: the marker is held back however the stream splits
// it; other text is shown unchanged.
func TestMarkerFilter(t *testing.T) {
	tests := []struct {
		chunks []string
		drop   bool
		want   string
	}{
		{[]string{"<<", "<NEEDS", "_PRO: why>", ">> rest", " more"}, false, "rest more"},
		{[]string{"<<", "<NEEDS", "_PRO: why>", ">> rest", " more"}, true, ""},
		{[]string{"<<", "< not it", " at all"}, true, "<<< not it at all"},
		{[]string{"Hello", " world"}, true, "Hello world"},
		{[]string{"<<<"}, true, "<<<"},
		{[]string{"<<<NEEDS_PRO and then", " no end >>> x"}, true, "<<<NEEDS_PRO and then no end >>> x"},
	}
	for _, tc := range tests {
		var got strings.Builder
		a := &Agent{Sink: func(e Event) {
			if e.Kind == EventText {
				got.WriteString(e.Text)
			}
		}}
		f := &markerFilter{t: &turn{a: a, s: &Session{}}, drop: tc.drop}
		for _, c := range tc.chunks {
			f.forward(provider.Chunk{Kind: provider.ChunkText, Text: c})
		}
		f.flush()
		if got.String() != tc.want {
			t.Errorf("%q (drop %v): shown %q, want %q", tc.chunks, tc.drop, got.String(), tc.want)
		}
	}
}

// TestMarkerFilterRetry: a retry voids what was streamed, so whether the
// answer opens with the marker is decided again.
func TestMarkerFilterRetry(t *testing.T) {
	retry := provider.Chunk{Kind: provider.ChunkRetry, Retry: &provider.RetryInfo{Attempt: 1, Reason: "dropped"}}
	text := func(s string) provider.Chunk { return provider.Chunk{Kind: provider.ChunkText, Text: s} }
	tests := []struct {
		chunks []provider.Chunk
		want   string
	}{
		{[]provider.Chunk{text("<<<NEEDS_PRO>>> x"), retry, text("plain")}, "plain"},
		{[]provider.Chunk{text("<<<NEE"), retry, text("plain")}, "plain"},
		{[]provider.Chunk{text("plain"), retry, text("<<<NEEDS_PRO>>> x")}, ""},
	}
	for i, tc := range tests {
		var got strings.Builder
		a := &Agent{Sink: func(e Event) {
			switch e.Kind {
			case EventText:
				got.WriteString(e.Text)
			case EventRetry:
				got.Reset() // what a renderer does: the answer starts over
			}
		}}
		f := &markerFilter{t: &turn{a: a, s: &Session{}}, drop: true}
		for _, c := range tc.chunks {
			f.forward(c)
		}
		f.flush()
		if got.String() != tc.want {
			t.Errorf("case %d: shown %q, want %q", i, got.String(), tc.want)
		}
	}
}
