package main

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "run", 3},
		{"run", "run", 0},
		{"sesions", "sessions", 1}, // a letter missing
		{"sessionss", "sessions", 1},
		{"stast", "stats", 1}, // two letters swapped count once
		{"aproval", "approval", 1},
		{"trcae", "trace", 1},
		{"memroy", "memory", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // restricted: no edit of a swapped pair
		{"verison", "version", 1},
		{"ünïcode", "unicode", 2},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestNearest(t *testing.T) {
	cmds := []string{"lsp", "acp", "run", "sessions", "trace", "stats", "memory", "mcp", "setup", "trust", "version", "help"}
	tests := []struct {
		word, want string
	}{
		{"sesions", "sessions"},
		{"SESSIONS", "sessions"}, // case aside
		{"stast", "stats"},
		{"trsut", "trust"},
		{"verion", "version"},
		{"lps", "lsp"},
		{"rnu", "run"},
		{"setpu", "setup"},
		{"ls", ""}, // two letters: too short to guess
		{"frobnicate", ""},
		{"session", "sessions"},
		{"mpc", "mcp"}, // one swap; acp is two edits away
		{"xyz", ""},
		{"run", ""}, // the word itself is not a suggestion
	}
	for _, tt := range tests {
		got, ok := nearest(tt.word, cmds)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("nearest(%q) = %q, %v; want %q", tt.word, got, ok, tt.want)
		}
	}
	if got := didYouMean("aproval", []string{"model", "approval", "plan"}, "--%s"); got != " — did you mean --approval?" {
		t.Errorf("didYouMean = %q", got)
	}
	if got := didYouMean("zzz", []string{"model"}, "--%s"); got != "" {
		t.Errorf("didYouMean with nothing near = %q", got)
	}
}
