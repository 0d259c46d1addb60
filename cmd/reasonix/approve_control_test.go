package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/permission"
)

// TestTermApproverShowsTheChange: a call asked every time (a change to a
// control file) shows the change itself, and offers no grant.
func TestTermApproverShowsTheChange(t *testing.T) {
	var errb bytes.Buffer
	ap := &termApprover{in: strings.NewReader("y\n"), r: newRenderer(&bytes.Buffer{}, &errb, false, false, false)}
	p := permission.Prompt{
		Request: permission.Request{Tool: "write_file", Args: []byte(`{"path":"reasonix.toml","content":"[sandbox]\nbash = \"off\"\n"}`), AlwaysAsk: true},
		Scope:   "Edit(reasonix.toml)",
		Why:     "changes reasonix.toml, one of Reasonix's control files, so it needs approval each time",
	}
	if got, err := ap.Approve(context.Background(), p); err != nil || got != permission.AnswerOnce {
		t.Fatalf("answer %v, %v", got, err)
	}
	out := errb.String()
	for _, want := range []string{"one of Reasonix's control files", "bash = \"off\"", "this once"} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "always") {
		t.Errorf("prompt offers a grant:\n%s", out)
	}
}
