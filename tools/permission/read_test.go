package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestReadRulesMatchAsTheGate: the compiled rules that walks consult
// match exactly what the gate's deny reading matches for a read tool's
// path argument, so a file grep leaves out is one read_file is refused.
func TestReadRulesMatchAsTheGate(t *testing.T) {
	const root = "/work/proj"
	specs := []string{
		"private/**", "private/*", "private", "**/*.pem", "*.pem", ".env", "**/secret/**",
		"a/**/b/*.txt", "PRIVATE/**", "/work/proj/private/**", "/etc/**", "**", "p?iv*/x",
		"docs/[a-c]*.md",
	}
	paths := []string{
		".", "private", "private/a.txt", "private/deep/b.txt", "Private/A.txt", "privateer/x",
		"x/private/a", "k.pem", "x/y/k.PEM", ".env", "sub/.env", "a/b/c.txt", "a/x/y/b/c.txt",
		"a/b/c/d.txt", "x/secret/y", "secret", "../private/a.txt", "/etc/passwd", "/work/other/x",
		"docs/b.md", "docs/d.md", "priv/x", "..",
	}
	for _, spec := range specs {
		r, err := ParseRule("Read(" + spec + ")")
		if err != nil {
			t.Fatal(err)
		}
		p := Policy{Root: root, Deny: []Rule{r}}
		rr := p.ReadRules()
		for _, path := range paths {
			gate, _ := p.Decide("read_file", true, args("path", path))
			abs := path
			if !filepath.IsAbs(path) {
				abs = filepath.Join(root, path)
			}
			if d, _ := rr.Judge(abs); d != gate {
				t.Errorf("Read(%s) on %s: walks say %v, the gate says %v", spec, path, d, gate)
			}
		}
	}
}

// TestReadRulesJudge: which rules count as rules about reading, deny
// before ask, and paths spelt from the root or its real path.
func TestReadRulesJudge(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	p, err := NewPolicy("ask",
		[]string{"Read(public/**)"},
		[]string{"Read(drafts/**)", "read_file(*.key)", "Read"},
		[]string{"Read(private/**)", "Grep(logs/**)", "Read(*)", "Bash(cat:*)", "Edit(src/**)", "read_file(" + root + "/abs/**)"})
	if err != nil {
		t.Fatal(err)
	}
	p.Root = link // the root as written; its real path is root
	rs := p.ReadRules()
	tests := []struct {
		path string
		want Decision
		rule string
	}{
		{filepath.Join(link, "private/a"), Deny, "Read(private/**)"},
		{filepath.Join(root, "private/a"), Deny, "Read(private/**)"},
		{filepath.Join(root, "private"), Deny, "Read(private/**)"},
		{filepath.Join(root, "drafts/x.key"), Ask, "Read(drafts/**)"},
		{filepath.Join(root, "private/x.key"), Deny, "Read(private/**)"},
		{filepath.Join(root, "a/b.KEY"), Ask, "read_file(*.key)"},
		{"/elsewhere/c.key", Ask, "read_file(*.key)"},
		{filepath.Join(root, "abs/x"), Deny, "read_file(" + root + "/abs/**)"},
		// Rules for one other read tool, for other tools, or without a
		// path are not rules about reading paths.
		{filepath.Join(root, "logs/x"), Allow, ""},
		{filepath.Join(root, "src/x"), Allow, ""},
		{filepath.Join(root, "public/x"), Allow, ""},
		{filepath.Join(root, "main.go"), Allow, ""},
		{root, Allow, ""},
	}
	for _, tt := range tests {
		d, r := rs.Judge(tt.path)
		got := ""
		if r != nil {
			got = r.Raw
		}
		if d != tt.want || got != tt.rule {
			t.Errorf("Judge(%s) = %v %q, want %v %q", tt.path, d, got, tt.want, tt.rule)
		}
		if rule, deny := rs.ReadRule(tt.path); rule != tt.rule || deny != (tt.want == Deny) {
			t.Errorf("ReadRule(%s) = %q %v", tt.path, rule, deny)
		}
	}

	none, _ := NewPolicy("ask", nil, []string{"Read"}, []string{"Grep(x/**)"})
	if none.ReadRules() != nil {
		t.Error("rules without a path made rules about reading")
	}
	var nilRules *ReadRules
	if d, _ := nilRules.Judge("/x"); d != Allow {
		t.Errorf("nil rules: %v", d)
	}
}

// TestCheckerReadRules: yolo answers every question, so the ask rules
// about reading hold nothing back there; deny rules always do.
func TestCheckerReadRules(t *testing.T) {
	p, _ := NewPolicy("ask", nil, []string{"Read(drafts/**)"}, nil)
	p.Root = "/w"
	for _, tt := range []struct {
		posture Posture
		want    bool
	}{{PostureAsk, true}, {PostureAuto, true}, {PostureYolo, false}} {
		c := &Checker{Policy: p, Posture: tt.posture}
		if got := c.ReadRules() != nil; got != tt.want {
			t.Errorf("posture %v: rules %v, want %v", tt.posture, got, tt.want)
		}
	}
	p.Deny = []Rule{{Raw: "Read(private/**)", Tool: "Read", Spec: "private/**", HasSpec: true}}
	rs := (&Checker{Policy: p, Posture: PostureYolo}).ReadRules()
	if d, _ := rs.Judge("/w/private/x"); d != Deny {
		t.Errorf("yolo: private/x = %v, want deny", d)
	}
	if d, _ := rs.Judge("/w/drafts/x"); d != Allow {
		t.Errorf("yolo: drafts/x = %v, want allow", d)
	}
}

// TestJudgeReads: the paths a call declares it reads are judged by the
// deny and ask rules about reading, whatever the tool; a Read allow rule
// lets nothing else run, and what a call only writes is not a read.
func TestJudgeReads(t *testing.T) {
	p, err := NewPolicy("ask", []string{"Read(private/**)", "move_file", "bash"}, []string{"Read(drafts/**)"}, []string{"Read(private/**)"})
	if err != nil {
		t.Fatal(err)
	}
	p.Root = "/w"
	tests := []struct {
		name  string
		r     Request
		want  Decision
		deny  string
		reads []string
	}{
		{name: "move a private file", r: Request{Tool: "move_file", Args: args("source", "private/a", "destination", "a"), Paths: []string{"/w/private/a", "/w/a"}, Reads: []string{"/w/private/a"}}, want: Deny},
		{name: "move through a link", r: Request{Tool: "move_file", Args: args("source", "l/a", "destination", "a"), Paths: []string{"/w/l/a", "/w/a"}, Reads: []string{"/w/l/a", "/w/private/a"}}, want: Deny},
		{name: "move into the private directory", r: Request{Tool: "move_file", Args: args("source", "a", "destination", "private/a"), Paths: []string{"/w/a", "/w/private/a"}, Reads: []string{"/w/a"}}, want: Allow},
		{name: "move a draft", r: Request{Tool: "move_file", Args: args("source", "drafts/a", "destination", "a"), Paths: []string{"/w/drafts/a", "/w/a"}, Reads: []string{"/w/drafts/a"}}, want: Ask},
		{name: "cat a private file", r: Request{Tool: "bash", Args: args("command", "cat private/a"), Reads: []string{"/w/cat", "/w/private/a"}}, want: Deny},
		{name: "cat a public file", r: Request{Tool: "bash", Args: args("command", "cat a"), Reads: []string{"/w/a"}}, want: Allow},
		{name: "edit a private file", r: Request{Tool: "edit_file", Args: args("path", "private/a"), Paths: []string{"/w/private/a"}, Reads: []string{"/w/private/a"}}, want: Deny},
		{name: "write a private file", r: Request{Tool: "write_file", Args: args("path", "private/a"), Paths: []string{"/w/private/a"}}, want: Ask},
		{name: "read through a link", r: Request{Tool: "read_file", ReadOnly: true, Args: args("path", "l"), Reads: []string{"/w/l", "/w/private/a"}}, want: Deny},
		{name: "relative reads", r: Request{Tool: "read_file", ReadOnly: true, Args: args("path", "x"), Reads: []string{"private/./a"}}, want: Deny},
	}
	for _, tt := range tests {
		d, rule := p.Judge(tt.r)
		if d != tt.want {
			t.Errorf("%s: %v (%v), want %v", tt.name, d, rule, tt.want)
		}
		if d == Deny && rule.Raw != "Read(private/**)" {
			t.Errorf("%s: denied by %q", tt.name, rule.Raw)
		}
	}
}

// TestReadAskedThroughTheGate: an ask rule about reading a path a call
// reads asks the person, and refuses with no one to ask, in auto too.
func TestReadAskedThroughTheGate(t *testing.T) {
	p, _ := NewPolicy("ask", nil, []string{"Read(drafts/**)"}, nil)
	p.Root = "/w"
	r := Request{Tool: "bash", Args: json.RawMessage(`{"command":"cat drafts/a"}`), Reads: []string{"/w/drafts/a"}}
	c := &Checker{Policy: p, Posture: PostureAuto}
	if v := c.Check(t.Context(), r); v.Allowed {
		t.Errorf("auto with no one to ask allowed %v", v)
	}
	ap := &countingApprover{answer: AnswerOnce}
	c = &Checker{Policy: p, Posture: PostureAuto, Approver: ap}
	if v := c.Check(t.Context(), r); !v.Allowed || !v.Asked {
		t.Errorf("with a person: %+v", v)
	}
	if ap.n != 1 {
		t.Errorf("asked %d times", ap.n)
	}
}

// BenchmarkReadRulesJudge is the cost a walk pays per entry for two rules
// about reading: one with a ** in the middle, one anchored.
//
//	go test ./tools/permission -run '^$' -bench ReadRulesJudge
func BenchmarkReadRulesJudge(b *testing.B) {
	p, _ := NewPolicy("ask", nil, nil, []string{"Read(pkg*/**/secret.key)", "Read(private/**)"})
	p.Root = "/work/proj"
	rs := p.ReadRules()
	paths := []string{"/work/proj/pkg01/sub02/file03.go", "/work/proj/pkg01/sub02/secret.key", "/work/proj/cmd/main.go", "/work/proj/private/a"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		rs.Judge(paths[i%len(paths)])
		i++
	}
}
