package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/provider/openai"
	"github.com/reasonix/reasonix/agent/provider/scripted"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
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

// TestCappedResultReadsBack: the model making the read_file call a capped
// result names, exactly as named, reads the lines that were left out. The
// agent is built as the commands build it, so the call passes the real
// sandbox: the same step's read of a [sandbox] forbid_read file is
// refused, the saved output is not.
func TestCappedResultReadsBack(t *testing.T) {
	t.Setenv("REASONIX_HOME", t.TempDir())
	root := t.TempDir()
	var big strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&big, "needle %03d %s\n", i, strings.Repeat("hay ", 50))
	}
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "secret", "key.txt"), []byte("sk-hidden\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, url := agenttest.Serve(t, "call grep {\"pattern\": \"needle\", \"path\": \"big.txt\"}\n---\ntext Found them.\n", scripted.Options{})
	cfg, err := config.Load(config.Options{SkipUser: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.OverlayTOML("test", fmt.Sprintf(`default_model = "scripted"
[[providers]]
name = "scripted"
base_url = %q
model = "deepseek-flash"
[sandbox]
forbid_read = ["secret"]
`, url)); err != nil {
		t.Fatal(err)
	}
	a, err := agent.Build(cfg, agent.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	var whole string
	a.Sink = func(e agent.Event) {
		if e.Kind == agent.EventToolResult && e.Tool.Name == "grep" {
			whole = e.Tool.Result
		}
	}
	s, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := a.Run(context.Background(), s, "find the needles"); err != nil {
		t.Fatal(err)
	}
	capped := lastToolResults(s)[0].Content
	m := regexp.MustCompile(`\(lines (\d+)-(\d+)\); the whole output is saved: read_file (\{.*\}) shows them`).FindStringSubmatch(capped)
	if m == nil {
		t.Fatalf("no read_file call in the capped result:\n%s", capped)
	}
	first, _ := strconv.Atoi(m[1])
	last, _ := strconv.Atoi(m[2])

	// The model makes that call, word for word, beside a forbidden read.
	srv2, url2 := agenttest.Serve(t, "call read_file "+m[3]+"\ncall read_file {\"path\": \"secret/key.txt\"}\n---\ntext Read the rest.\n", scripted.Options{})
	if a.Provider, err = openai.New(provider.Config{Name: "scripted", BaseURL: url2, Model: "deepseek-flash"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), s, "read the lines that were left out"); err != nil {
		t.Fatal(err)
	}
	if n := srv2.Remaining(); n != 0 {
		t.Fatalf("%d scripted steps were never asked for", n)
	}
	results := lastToolResults(s)
	if len(results) != 2 {
		t.Fatalf("%d tool results in the last step", len(results))
	}
	// The numbered lines, up to the note on where the file goes on.
	var read []string
	numbered, _, _ := strings.Cut(results[0].Content, "\n\n")
	for _, l := range strings.Split(strings.TrimSuffix(numbered, "\n"), "\n") {
		num, text, ok := strings.Cut(strings.TrimLeft(l, " "), "\t")
		if n, err := strconv.Atoi(num); !ok || err != nil || n != first+len(read) {
			t.Fatalf("read_file answered a line that is not line %d of the output: %.120q", first+len(read), l)
		}
		read = append(read, text)
	}
	if want := strings.Split(whole, "\n")[first-1 : last]; !slices.Equal(read, want) {
		t.Fatalf("read_file showed %d lines (%d-%d); the capped result left out lines %d-%d", len(read), first, first+len(read)-1, first, last)
	}
	if !strings.Contains(results[1].Content, sandbox.ErrForbidden.Error()) || strings.Contains(results[1].Content, "sk-hidden") {
		t.Fatalf("the forbidden read answered: %s", results[1].Content)
	}
}

// lastToolResults returns the tool results of the session's last step
// that called tools.
func lastToolResults(s *agent.Session) []provider.Message {
	msgs := s.Messages()
	end := len(msgs)
	for end > 0 && msgs[end-1].Role != provider.RoleTool {
		end--
	}
	start := end
	for start > 0 && msgs[start-1].Role == provider.RoleTool {
		start--
	}
	return msgs[start:end]
}
