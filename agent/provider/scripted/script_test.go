package scripted

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseDirectives(t *testing.T) {
	sc, err := Parse([]byte(`# a comment
match fix the bug
expect user fix
expect system You are
expect tool ok
expect tools read_file
expect request "stream":true
reasoning Let me look.
reasoning Then answer.
text Hello,
text
text   indented
call read_file {"path": "a.go"}
call list
call-raw edit {not json
delay 5ms
finish length
---

---
fault 429 retry-after=7
---
fault 400 context too long
---
fault drop
text partial
`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Len() != 4 {
		t.Fatalf("Len = %d, want 4 (empty steps are skipped)", sc.Len())
	}
	st := sc.steps[0]
	if st.num != 1 || st.line != 2 {
		t.Errorf("num, line = %d, %d; want 1, 2", st.num, st.line)
	}
	if got := st.reasoningText(); got != "Let me look.\nThen answer." {
		t.Errorf("reasoning = %q", got)
	}
	if got := st.contentText(); got != "Hello,\n\n  indented" {
		t.Errorf("text = %q", got)
	}
	wantCalls := []call{{"read_file", `{"path": "a.go"}`}, {"list", "{}"}, {"edit", "{not json"}}
	if len(st.calls) != len(wantCalls) {
		t.Fatalf("calls = %v", st.calls)
	}
	for i, c := range wantCalls {
		if st.calls[i] != c {
			t.Errorf("call %d = %+v, want %+v", i, st.calls[i], c)
		}
	}
	if st.delay != 5*time.Millisecond || st.finishReason() != "length" {
		t.Errorf("delay, finish = %v, %q", st.delay, st.finishReason())
	}
	if len(st.matches) != 1 || st.matches[0] != "fix the bug" {
		t.Errorf("matches = %q", st.matches)
	}
	wantExpects := []expectation{
		{"user", "fix", 3}, {"system", "You are", 4}, {"tool", "ok", 5},
		{"tools", "read_file", 6}, {"request", `"stream":true`, 7},
	}
	for i, e := range wantExpects {
		if i >= len(st.expects) || st.expects[i] != e {
			t.Errorf("expect %d = %+v, want %+v", i, st.expects, e)
		}
	}
	if f := sc.steps[1].fault; f.kind != faultStatus || f.status != 429 || f.retryAfter != 7 || sc.steps[1].num != 2 {
		t.Errorf("step 2 fault = %+v", f)
	}
	if f := sc.steps[2].fault; f.status != 400 || f.message != "context too long" {
		t.Errorf("step 3 fault = %+v", f)
	}
	if f := sc.steps[3].fault; f.kind != faultDrop || sc.steps[3].contentText() != "partial" {
		t.Errorf("step 4 = %+v", sc.steps[3])
	}
}

func TestFinishReasonDefault(t *testing.T) {
	sc, err := Parse([]byte("text hi\n---\ncall f {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.steps[0].finishReason(); got != "stop" {
		t.Errorf("text step finish = %q", got)
	}
	if got := sc.steps[1].finishReason(); got != "tool_calls" {
		t.Errorf("call step finish = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"unknown directive", "text a\n\nsay hi\n", "line 3: unknown directive \"say\""},
		{"bad call json", "---\ncall f {\"a\":\n", "line 2: call f: arguments are not valid JSON"},
		{"call without name", "call\n", "line 1: call needs a tool name"},
		{"bad fault", "fault 200\n", "line 1: fault needs an HTTP status 400-599"},
		{"bad fault word", "fault slow\n", "line 1: fault needs"},
		{"fault args", "fault drop now\n", "line 1: fault drop takes no arguments"},
		{"bad retry-after", "fault 429 retry-after=soon\n", "line 1: retry-after needs whole seconds"},
		{"second fault", "fault 500\nfault 503\n", "line 2: second fault in one step (first on line 1)"},
		{"status fault with text", "text a\nfault 500\n", "line 2: fault 500 answers with an HTTP error"},
		{"bad delay", "delay soon\n", "line 1: delay needs a non-negative Go duration"},
		{"negative delay", "delay -1s\n", "line 1: delay needs"},
		{"second finish", "finish stop\nfinish length\n", "line 2: second finish"},
		{"finish two words", "finish a b\n", "line 1: finish needs one word"},
		{"bad expect kind", "expect assistant x\n", "line 1: expect needs user, system, tool, tools or request"},
		{"empty expect", "expect user\n", "line 1: expect user needs an argument"},
		{"empty match", "match\n", "line 1: match needs a substring"},
		{"no steps", "# only a comment\n---\n", "script has no steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.script))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseArchive(t *testing.T) {
	archive := `A scenario.
-- prompt --
fix it
-- model --
text one
---
bogus line
-- files/a.go --
package a
`
	_, err := ParseArchive([]byte(archive))
	// "bogus line" is line 7 of the archive.
	if err == nil || !strings.Contains(err.Error(), "line 7: unknown directive") {
		t.Fatalf("error = %v, want it at line 7", err)
	}

	sc, err := ParseArchive([]byte(strings.Replace(archive, "bogus line", "text two", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Len() != 2 || sc.steps[1].contentText() != "two" || sc.steps[1].line != 7 {
		t.Errorf("steps = %+v", sc.steps)
	}

	if _, err := ParseArchive([]byte("-- prompt --\nhi\n")); err == nil || !strings.Contains(err.Error(), "no model section") {
		t.Errorf("missing model section: error = %v", err)
	}
	if _, err := ParseArchive([]byte("-- model --\ntext a\n-- model --\ntext b\n")); err == nil || !strings.Contains(err.Error(), "line 3: second model section") {
		t.Errorf("duplicate model section: error = %v", err)
	}
}

func TestPieces(t *testing.T) {
	inputs := []string{
		"",
		"a",
		"ab",
		"{}",
		"é",
		"éa",
		`{"path":"main.go","content":"package main\n\nfunc main() {}\n"}`,
		strings.Repeat("日本語のテキスト🙂", 20),
	}
	for _, s := range inputs {
		for stepNum := 1; stepNum <= 3; stepNum++ {
			ps := pieces(s, stepNum, 0)
			if strings.Join(ps, "") != s {
				t.Fatalf("pieces(%q) = %q do not rejoin", s, ps)
			}
			if utf8.RuneCountInString(s) >= 2 && len(ps) < 2 {
				t.Errorf("pieces(%q) = %q, want at least 2", s, ps)
			}
			for _, p := range ps {
				if p == "" || !utf8.ValidString(p) {
					t.Errorf("pieces(%q): bad piece %q", s, p)
				}
				if len(p) > 12 && utf8.RuneCountInString(p) > 1 {
					t.Errorf("pieces(%q): piece %q longer than 12 bytes", s, p)
				}
			}
			again := pieces(s, stepNum, 0)
			if strings.Join(again, "|") != strings.Join(ps, "|") {
				t.Errorf("pieces(%q) not deterministic", s)
			}
		}
	}
}

// Parse must reject bad scripts with an error, never a panic.
func FuzzParse(f *testing.F) {
	f.Add("text a\n---\ncall f {\"x\":1}\n")
	f.Add("fault 429 retry-after=2\n---\nfault\n---\nexpect\nmatch\ndelay\nfinish\n")
	f.Add("-- model --\ncall-raw\n\r\n---\r\n# c\n")
	f.Fuzz(func(t *testing.T, s string) {
		Parse([]byte(s))
		ParseArchive([]byte(s))
	})
}
