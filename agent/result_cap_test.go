package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// TestLargeResultIsCapped: a tool that does not cap its own output (grep,
// here 250 long lines) is capped as it enters the conversation: head and
// tail, and the read_file call that shows the rest, saved beside the
// session; the event still carries the whole result.
func TestLargeResultIsCapped(t *testing.T) {
	a, _ := newScriptedAgent(t, "call grep {\"pattern\": \"needle\", \"path\": \"big.txt\"}\n---\ntext done\n")
	line := "needle " + strings.Repeat("hay ", 50) + "\n"
	if err := os.WriteFile(filepath.Join(a.Env.Root, "big.txt"), []byte(strings.Repeat(line, 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	var whole string
	a.Sink = func(e agent.Event) {
		if e.Kind == agent.EventToolResult {
			whole = e.Tool.Result
		}
	}
	s, _ := a.NewSession()
	if _, err := a.Run(context.Background(), s, "find the needles"); err != nil {
		t.Fatal(err)
	}
	var result provider.Message
	for _, m := range s.Messages() {
		if m.Role == provider.RoleTool {
			result = m
		}
	}
	if len(whole) <= tools.MaxResultBytes || len(result.Content) > tools.MaxResultBytes+512 {
		t.Fatalf("the whole result is %d bytes, the message %d", len(whole), len(result.Content))
	}
	m := regexp.MustCompile(`read_file (\{.*\}) shows them`).FindStringSubmatch(result.Content)
	if m == nil {
		t.Fatalf("no read_file call in the capped result")
	}
	var args struct{ Path string }
	json.Unmarshal([]byte(m[1]), &args)
	if filepath.Dir(args.Path) != a.Store.OutputDir(s.ID) {
		t.Fatalf("saved to %s, not beside the session", args.Path)
	}
	if saved, err := os.ReadFile(args.Path); err != nil || string(saved) != whole {
		t.Fatalf("saved %d bytes (%v), the result has %d", len(saved), err, len(whole))
	}
	// The session listing does not take the directory for a session.
	if list, err := a.Store.List(); err != nil || len(list) != 1 {
		t.Fatalf("list = %+v, %v", list, err)
	}
}
