package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func args(kv ...string) json.RawMessage {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

func TestDecide(t *testing.T) {
	p, err := NewPolicy("ask",
		[]string{"Bash(go test:*)", "Edit(docs/**)", "read_file", "grep=TODO", "mcp__fs"},
		[]string{"Bash(git push:*)", "Read(secrets/*)"},
		[]string{"Bash(rm -rf*)", "move_file"})
	if err != nil {
		t.Fatal(err)
	}
	p.Root = "/work/proj"
	tests := []struct {
		tool     string
		readOnly bool
		args     json.RawMessage
		want     Decision
	}{
		{"bash", false, args("command", "go test ./..."), Allow},
		{"bash", false, args("command", "go   test"), Allow},
		{"bash", false, args("command", "go testify"), Ask},
		{"bash", false, args("command", "go test ./... && rm -rf /tmp/x"), Deny},
		{"bash", false, args("command", "true; rm -rf x"), Deny},
		{"bash", false, args("command", "go test ./... | tee out"), Ask},
		{"bash", false, args("command", "go test $(curl evil)"), Ask},
		{"bash", false, args("command", "git push origin main"), Ask},
		{"bash", false, args("command", "ls"), Ask},
		{"edit_file", false, args("path", "docs/a/b.md"), Allow},
		{"write_file", false, args("path", "/work/proj/docs/x.md"), Allow},
		{"write_file", false, args("path", "src/x.go"), Ask},
		{"move_file", false, args("source", "docs/a", "destination", "docs/b"), Deny},
		{"read_file", true, args("path", "secrets/key"), Ask},
		{"read_file", true, args("path", "main.go"), Allow},
		{"ls", true, args("path", "."), Allow},
		{"grep", true, args("pattern", "TODO"), Allow},
		{"mcp__fs__write", false, args(), Allow},
		{"mcp__fsx__write", false, args(), Ask},
	}
	for _, tt := range tests {
		got, _ := p.Decide(tt.tool, tt.readOnly, tt.args)
		if got != tt.want {
			t.Errorf("Decide(%s %s) = %v, want %v", tt.tool, tt.args, got, tt.want)
		}
	}
	p.Mode = Allow
	if d, _ := p.Decide("write_file", false, args("path", "src/x.go")); d != Allow {
		t.Errorf("mode allow: %v", d)
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, bad := range []string{"", "Bash(x", "(x)", "a b"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted", bad)
		}
	}
	if _, err := NewPolicy("sometimes", nil, nil, nil); err == nil {
		t.Error("bad mode accepted")
	}
}

func TestScope(t *testing.T) {
	tests := []struct {
		tool string
		args json.RawMessage
		want string
	}{
		{"bash", args("command", "go test ./..."), "Bash(go test:*)"},
		{"bash", args("command", "ls -la"), "Bash(ls:*)"},
		{"bash", args("command", "npm run build"), "Bash(npm run:*)"},
		{"bash", args("command", "make && rm x"), "Bash(make && rm x)"},
		{"edit_file", args("path", "a/b.go"), "Edit(a/b.go)"},
		{"ls", args(), "ls"},
	}
	for _, tt := range tests {
		if got := Scope(tt.tool, tt.args); got != tt.want {
			t.Errorf("Scope(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

type fakeApprover struct {
	answers []Answer
	prompts []Prompt
}

func (f *fakeApprover) Approve(ctx context.Context, p Prompt) (Answer, error) {
	f.prompts = append(f.prompts, p)
	if len(f.answers) == 0 {
		return AnswerDeny, errors.New("no answer")
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a, nil
}

func TestCheckerGrants(t *testing.T) {
	policy, _ := NewPolicy("ask", nil, nil, []string{"Bash(rm -rf*)"})
	ap := &fakeApprover{answers: []Answer{AnswerSession, AnswerAlways, AnswerDeny}}
	var saved []string
	c := &Checker{Policy: policy, Approver: ap, Persist: func(rule string) error { saved = append(saved, rule); return nil }}
	ctx := context.Background()
	goTest := Request{SessionID: "s1", Tool: "bash", Args: args("command", "go test ./...")}

	if v := c.Check(ctx, goTest); !v.Allowed || !v.Asked {
		t.Fatalf("first go test: %+v", v)
	}
	// The session grant covers the same prefix without asking again...
	if v := c.Check(ctx, Request{SessionID: "s1", Tool: "bash", Args: args("command", "go test -run X")}); !v.Allowed || v.Asked {
		t.Fatalf("granted prefix asked again: %+v", v)
	}
	// ...but not another session.
	if v := c.Check(ctx, Request{SessionID: "s2", Tool: "bash", Args: args("command", "go test")}); !v.Allowed || !v.Asked {
		t.Fatalf("other session: %+v", v)
	}
	if len(saved) != 1 || saved[0] != "Bash(go test:*)" {
		t.Fatalf("saved = %v", saved)
	}
	// A deny rule wins over any grant.
	if v := c.Check(ctx, Request{SessionID: "s1", Tool: "bash", Args: args("command", "rm -rf /")}); v.Allowed || v.Asked {
		t.Fatalf("deny: %+v", v)
	}
	if v := c.Check(ctx, Request{SessionID: "s3", Tool: "write_file", Args: args("path", "a")}); v.Allowed || v.Reason != "the user denied this call" {
		t.Fatalf("user deny: %+v", v)
	}
	// An approver failure denies.
	if v := c.Check(ctx, Request{SessionID: "s3", Tool: "write_file", Args: args("path", "b")}); v.Allowed {
		t.Fatalf("approver error allowed: %+v", v)
	}
}

// TestCheckerMatrix: every posture against every source of a decision,
// with someone to ask and with no one. With no one, what would have been
// asked is refused and reported, never allowed.
func TestCheckerMatrix(t *testing.T) {
	policy, _ := NewPolicy("ask",
		[]string{"Bash(go test:*)"},
		[]string{"Bash(git push:*)"},
		[]string{"Bash(rm -rf*)"})
	type outcome int
	const (
		run    outcome = iota // allowed without asking
		ask                   // asked (the approver allows), or refused and reported unattended
		denied                // refused without asking, and not reported
	)
	sources := []struct {
		name string
		r    Request
		// by posture: ask, auto, yolo
		want [3]outcome
		// what an unattended refusal reports
		refusal Refusal
	}{
		{"allow rule", Request{Tool: "bash", Args: args("command", "go test ./...")}, [3]outcome{run, run, run}, Refusal{}},
		{"read-only", Request{Tool: "read_file", ReadOnly: true, Args: args("path", "a.go")}, [3]outcome{run, run, run}, Refusal{}},
		{"mode fallback", Request{Tool: "write_file", Args: args("path", "a.go")}, [3]outcome{ask, run, run},
			Refusal{Why: "it needs approval", Posture: PostureAuto, Allow: "Edit(a.go)"}},
		{"ask rule", Request{Tool: "bash", Args: args("command", "git push origin main")}, [3]outcome{ask, ask, run},
			Refusal{Why: `the ask rule "Bash(git push:*)" requires approval`, Posture: PostureYolo}},
		{"deny rule", Request{Tool: "bash", Args: args("command", "rm -rf x")}, [3]outcome{denied, denied, denied}, Refusal{}},
		{"always ask", Request{Tool: "remember", Args: args("path", "fact"), AlwaysAsk: true}, [3]outcome{ask, ask, ask},
			Refusal{Why: "it needs a person's approval every time", Posture: PostureAsk}},
		{"unparseable", Request{Tool: "bash", Args: args("command", "go test )")}, [3]outcome{ask, ask, ask},
			Refusal{Why: "the command could not be parsed, so only a person may allow it", Posture: PostureAsk}},
	}
	ctx := context.Background()
	for _, src := range sources {
		for i, posture := range []Posture{PostureAsk, PostureAuto, PostureYolo} {
			want := src.want[i]
			t.Run(fmt.Sprintf("%s/%d/attended", src.name, posture), func(t *testing.T) {
				ap := &fakeApprover{answers: []Answer{AnswerOnce}}
				c := &Checker{Policy: policy, Approver: ap, Posture: posture}
				v := c.Check(ctx, src.r)
				var got outcome
				switch {
				case v.Allowed && !v.Asked:
					got = run
				case v.Allowed && v.Asked:
					got = ask
				case !v.Asked:
					got = denied
				default:
					t.Fatalf("asked and refused: %+v", v)
				}
				if got != want {
					t.Errorf("%+v, want outcome %d", v, want)
				}
			})
			t.Run(fmt.Sprintf("%s/%d/unattended", src.name, posture), func(t *testing.T) {
				var refused []Refusal
				c := &Checker{Policy: policy, Posture: posture, Refused: func(r Refusal) { refused = append(refused, r) }}
				v := c.Check(ctx, src.r)
				if v.Asked {
					t.Fatalf("asked with no approver: %+v", v)
				}
				switch want {
				case run:
					if !v.Allowed || len(refused) != 0 {
						t.Errorf("%+v, refused %v; want allowed", v, refused)
					}
				case denied:
					if v.Allowed || len(refused) != 0 || strings.Contains(v.Reason, "no one") {
						t.Errorf("%+v, refused %v; want denied by a rule", v, refused)
					}
				case ask:
					if v.Allowed {
						t.Fatalf("allowed with no one to ask: %+v", v)
					}
					if !strings.Contains(v.Reason, "no one is available to approve") {
						t.Errorf("reason %q does not say no one can approve", v.Reason)
					}
					wantRefusal := src.refusal
					wantRefusal.Request = src.r
					if len(refused) != 1 || !reflect.DeepEqual(refused[0], wantRefusal) {
						t.Errorf("refused %+v, want %+v", refused, wantRefusal)
					}
				}
			})
		}
	}
}

// TestRefusalRuleCovers: the allow rule a refusal suggests would let the
// call run, with paths inside the workspace made relative.
func TestRefusalRuleCovers(t *testing.T) {
	policy, _ := NewPolicy("ask", nil, nil, nil)
	policy.Root = "/work/proj"
	tests := []struct {
		r    Request
		want string
	}{
		{Request{Tool: "bash", Args: args("command", "go test ./...")}, "Bash(go test:*)"},
		{Request{Tool: "write_file", Args: args("path", "/work/proj/src/a.go")}, "Edit(src/a.go)"},
		{Request{Tool: "bash", Args: args("command", "echo hi > out.txt")}, "Bash(echo hi > out.txt)"},
	}
	for _, tt := range tests {
		var got []Refusal
		c := &Checker{Policy: policy, Refused: func(r Refusal) { got = append(got, r) }}
		c.Check(context.Background(), tt.r)
		if len(got) != 1 || got[0].Allow != tt.want || got[0].Posture != PostureAuto {
			t.Errorf("%s: refused %+v, want allow rule %q", tt.r.Args, got, tt.want)
			continue
		}
		rule, _ := ParseRule(tt.want)
		covered := policy
		covered.Allow = []Rule{rule}
		if d, _ := covered.Decide(tt.r.Tool, false, tt.r.Args); d != Allow {
			t.Errorf("the suggested rule %s does not allow %s: %v", tt.want, tt.r.Args, d)
		}
	}
}

func TestParsePosture(t *testing.T) {
	for s, want := range map[string]Posture{"": PostureAsk, "ask": PostureAsk, "auto": PostureAuto, "yolo": PostureYolo} {
		if got, err := ParsePosture(s); err != nil || got != want {
			t.Errorf("ParsePosture(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParsePosture("reckless"); err == nil {
		t.Error("bad posture accepted")
	}
}

// TestProposalsAreNotAsked: a call whose changes are only proposed (the
// person reviews them before any file changes) is not asked about when
// only the mode fallback would ask, attended or not; rules, the mode's
// deny and calls that always ask still decide. Allowed for that reason
// alone, the verdict says so, so the change is never made for real.
func TestProposalsAreNotAsked(t *testing.T) {
	askMode, _ := NewPolicy("ask", []string{"Edit(ok.md)"}, []string{"Edit(secret.md)"}, []string{"Edit(vendor/**)"})
	denyMode, _ := NewPolicy("deny", nil, nil, nil)
	tests := []struct {
		name     string
		policy   Policy
		r        Request
		allowed  bool
		asked    bool
		proposal bool
	}{
		{"fallback", askMode, Request{Tool: "edit_file", Args: args("path", "a.go"), Proposes: true}, true, false, true},
		{"fallback, applied", askMode, Request{Tool: "edit_file", Args: args("path", "a.go")}, true, true, false},
		{"allow rule", askMode, Request{Tool: "edit_file", Args: args("path", "ok.md"), Proposes: true}, true, false, false},
		{"ask rule", askMode, Request{Tool: "edit_file", Args: args("path", "secret.md"), Proposes: true}, true, true, false},
		{"deny rule", askMode, Request{Tool: "edit_file", Args: args("path", "vendor/x.go"), Proposes: true}, false, false, false},
		{"control file", askMode, Request{Tool: "edit_file", Args: args("path", "reasonix.toml"), Proposes: true, AlwaysAsk: true, Control: []string{"reasonix.toml"}}, true, true, false},
		{"deny mode", denyMode, Request{Tool: "edit_file", Args: args("path", "a.go"), Proposes: true}, false, false, false},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ap := &fakeApprover{answers: []Answer{AnswerOnce}}
			c := &Checker{Policy: tt.policy, Approver: ap}
			v := c.Check(ctx, tt.r)
			if v.Allowed != tt.allowed || v.Asked != tt.asked || v.Proposal != tt.proposal {
				t.Errorf("%+v, want allowed %v, asked %v, proposal %v", v, tt.allowed, tt.asked, tt.proposal)
			}
			if tt.allowed && !tt.asked {
				// With no one to ask, the same.
				unattended := &Checker{Policy: tt.policy}
				if u := unattended.Check(ctx, tt.r); !u.Allowed || u.Proposal != tt.proposal {
					t.Errorf("unattended: %+v", u)
				}
			}
		})
	}
}

func TestAlwaysAsk(t *testing.T) {
	policy, _ := NewPolicy("allow", []string{"remember"}, nil, nil)
	ctx := context.Background()
	r := Request{SessionID: "s", Tool: "remember", Args: args("path", "fact"), AlwaysAsk: true}
	ap := &fakeApprover{answers: []Answer{AnswerSession, AnswerOnce}}
	c := &Checker{Policy: policy, Approver: ap, Posture: PostureYolo}
	for i := range 2 {
		if v := c.Check(ctx, r); !v.Allowed || !v.Asked {
			t.Fatalf("call %d: %+v, want asked and allowed", i, v)
		}
	}
	if len(ap.prompts) != 2 {
		t.Fatalf("asked %d times, want 2 (a session grant must not cover it)", len(ap.prompts))
	}
	unattended := &Checker{Policy: policy, Posture: PostureYolo}
	if v := unattended.Check(ctx, r); v.Allowed {
		t.Fatalf("allowed with no one to ask: %+v", v)
	}
}

// TestUnparseableNeedsAPerson: a command that does not parse is asked in
// every posture and refused when no one can be asked.
func TestUnparseableNeedsAPerson(t *testing.T) {
	policy, _ := NewPolicy("allow", []string{"Bash"}, nil, nil)
	ctx := context.Background()
	r := Request{SessionID: "s", Tool: "bash", Args: args("command", "go test )")}
	for _, posture := range []Posture{PostureAsk, PostureAuto, PostureYolo} {
		ap := &fakeApprover{answers: []Answer{AnswerOnce}}
		c := &Checker{Policy: policy, Approver: ap, Posture: posture}
		if v := c.Check(ctx, r); !v.Asked || !v.Allowed {
			t.Errorf("posture %d: %+v, want asked", posture, v)
		}
	}
	if v := (&Checker{Policy: policy}).Check(ctx, r); v.Allowed || !strings.Contains(v.Reason, "could not be parsed") {
		t.Errorf("unattended: %+v", v)
	}
	deny, _ := NewPolicy("deny", nil, nil, nil)
	if d, _ := deny.Decide("bash", false, r.Args); d != Deny {
		t.Errorf("mode deny: %v", d)
	}
}

func TestCommandPaths(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"cat ~/.ssh/id_rsa", []string{"/home/u/.ssh/id_rsa"}},
		{"go test ./... && cp $HOME/.aws/credentials x", []string{"./...", "/home/u/.aws/credentials", "x"}},
		{"bash -c 'head ${HOME}/.netrc'", []string{"/home/u/.netrc"}},
		{"tool --key=~/.ssh/k < ~/.gnupg/x", []string{"--key=~/.ssh/k", "/home/u/.ssh/k", "/home/u/.gnupg/x"}},
		{"echo $SECRET", nil},
	}
	for _, tt := range tests {
		got := CommandPaths(tt.cmd, "/home/u")
		for _, w := range tt.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("CommandPaths(%q) = %q, missing %q", tt.cmd, got, w)
			}
		}
	}
}

// TestAllowsUnasked: a call is allowed unasked exactly where Check would
// allow it without asking, and asking it asks no one.
func TestAllowsUnasked(t *testing.T) {
	goTest := Request{SessionID: "s1", Tool: "bash", Args: args("command", "go test -count=1 ./...")}
	for _, tc := range []struct {
		name             string
		mode             string
		allow, ask, deny []string
		posture          Posture
		grant            bool
		want             bool
	}{
		{name: "an allow rule", mode: "ask", allow: []string{"Bash(go test:*)"}, want: true},
		{name: "the mode asks", mode: "ask"},
		{name: "the mode allows", mode: "allow", want: true},
		{name: "auto allows what the mode asks", mode: "ask", posture: PostureAuto, want: true},
		{name: "auto keeps an ask rule", mode: "ask", ask: []string{"Bash(go:*)"}, posture: PostureAuto},
		{name: "yolo keeps a deny rule", mode: "allow", deny: []string{"Bash(go test:*)"}, posture: PostureYolo},
		{name: "a session grant", mode: "ask", grant: true, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy, err := NewPolicy(tc.mode, tc.allow, tc.ask, tc.deny)
			if err != nil {
				t.Fatal(err)
			}
			ap := &fakeApprover{answers: []Answer{AnswerSession}}
			c := &Checker{Policy: policy, Posture: tc.posture, Approver: ap}
			if tc.grant {
				c.Check(context.Background(), Request{SessionID: "s1", Tool: "bash", Args: args("command", "go test ./x")})
			}
			asked := len(ap.prompts)
			if got := c.AllowsUnasked(goTest); got != tc.want {
				t.Errorf("AllowsUnasked = %v, want %v", got, tc.want)
			}
			if len(ap.prompts) != asked {
				t.Error("AllowsUnasked asked the user")
			}
		})
	}
}
