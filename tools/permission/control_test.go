package permission

import (
	"context"
	"strings"
	"testing"
)

// TestControlCallsNameTheFile: a call that changes a control file is asked
// in every posture, saying which file, and refused with no one to ask.
func TestControlCallsNameTheFile(t *testing.T) {
	policy, _ := NewPolicy("allow", []string{"Edit", "write_file"}, nil, nil)
	r := Request{SessionID: "s", Tool: "write_file", Args: args("path", "reasonix.toml"), Paths: []string{"reasonix.toml"},
		AlwaysAsk: true, Control: []string{"reasonix.toml"}}
	ap := &fakeApprover{answers: []Answer{AnswerAlways, AnswerSession}}
	c := &Checker{Policy: policy, Approver: ap, Posture: PostureYolo, Persist: func(string) error { t.Error("an answer was saved"); return nil }}
	for range 2 {
		if v := c.Check(context.Background(), r); !v.Allowed || !v.Asked {
			t.Fatalf("%+v", v)
		}
	}
	if len(ap.prompts) != 2 || !strings.Contains(ap.prompts[0].Why, "changes reasonix.toml, one of Reasonix's control files") {
		t.Errorf("prompts %+v", ap.prompts)
	}
	if v := (&Checker{Policy: policy, Posture: PostureYolo}).Check(context.Background(), r); v.Allowed {
		t.Errorf("allowed with no one to ask: %+v", v)
	}
}
