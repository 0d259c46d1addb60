package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/lsp/lsptest"
)

// loosened is in every notice of a configuration that lets the agent do
// more than before.
const loosened = "lets the agent do more"

// askOK runs one turn that the scripted model answers with "ok".
func askOK(t *testing.T, ed *lsptest.Editor, prompt string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"prompt": prompt})
	if res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}}); res["text"] != "ok" {
		t.Fatalf("%s: %v", prompt, res)
	}
}

// appendLines appends s to the file and returns the number of its last
// line.
func appendLines(t *testing.T, file, s string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, s...)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// changeSettings sends new editor settings, which rebuilds the agents.
func changeSettings(t *testing.T, ed *lsptest.Editor, settings map[string]any) {
	t.Helper()
	b, _ := json.Marshal(settings)
	if err := ed.Server().DidChangeConfiguration(ctx(t), &protocol.DidChangeConfigurationParams{Settings: b}); err != nil {
		t.Fatal(err)
	}
}

// warnings counts the warnings shown that contain text.
func warnings(r lsptest.Recorded, text string) int {
	n := 0
	for _, m := range r.Messages {
		if m.Type == protocol.MessageTypeWarning && strings.Contains(m.Message, text) {
			n++
		}
	}
	return n
}

// projectFile is the workspace's reasonix.toml by the path the server
// uses.
func projectFile(t *testing.T, root string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(filepath.Join(root, "reasonix.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoosenedProjectFileAsksForTrust: when the project file turned the
// jail off since the workspace's agent was last built, the rebuild leaves
// it on and asks, once, whether to trust it, naming the line; a later
// change asks again, and trusting it records the trust.
func TestLoosenedProjectFileAsksForTrust(t *testing.T) {
	root, _ := workspace(t, "match one\ntext ok\n---\nmatch two\ntext ok\n---\nmatch three\ntext ok\n", "")
	project := projectFile(t, root)
	ed := lsptest.New(t, lsptest.Options{Root: root})
	trustDialogs := func(r lsptest.Recorded, text string) int {
		n := 0
		for _, d := range r.Dialogs {
			if strings.Contains(d.Message, text) && len(d.Actions) == 2 && d.Actions[0].Title == "Trust and enable" && d.Actions[1].Title == "Keep disabled" {
				n++
			}
		}
		return n
	}

	askOK(t, ed, "one")
	if n := len(ed.Snapshot().Dialogs); n != 0 {
		t.Fatalf("first build of a trusted workspace: %v", ed.Snapshot().Dialogs)
	}

	line := appendLines(t, project, "\n[sandbox]\nbash = \"off\"\n")
	changeSettings(t, ed, map[string]any{"agent": map[string]any{"max_steps": 7}})
	bashOff := `[sandbox] bash = "off": shell commands run unconfined (reasonix.toml:` + strconv.Itoa(line) + ")"
	ed.Await("a trust question about the jail", 30*time.Second, func(r *lsptest.Recorded) bool { return trustDialogs(*r, bashOff) > 0 })

	// Declined (no answer): asked once for this content.
	changeSettings(t, ed, map[string]any{"agent": map[string]any{"max_steps": 8}})
	askOK(t, ed, "two") // waits for the rebuild
	if n := trustDialogs(ed.Snapshot(), bashOff); n != 1 {
		t.Errorf("asked %d times about the same content", n)
	}
	if n := warnings(ed.Snapshot(), loosened); n != 0 {
		t.Errorf("announced as a loosening: %v", ed.Snapshot().Messages)
	}

	// A later change asks again; trusting it records it.
	ed.AnswerWith(func(d *protocol.ShowMessageRequestParams) string {
		if strings.Contains(d.Message, "takes effect only once you trust it") {
			return "Trust and enable"
		}
		return ""
	})
	line = appendLines(t, project, "network = true\n")
	changeSettings(t, ed, map[string]any{"agent": map[string]any{"max_steps": 9}})
	network := "[sandbox] network = true: shell commands may use the network (reasonix.toml:" + strconv.Itoa(line) + ")"
	ed.Await("a trust question about the network", 30*time.Second, func(r *lsptest.Recorded) bool { return trustDialogs(*r, network) > 0 })
	askOK(t, ed, "three")
	cfg, err := config.Load(config.Options{Dir: root})
	if err != nil || cfg.Workspace.Untrusted() || cfg.Sandbox.Bash != "off" || !cfg.Sandbox.Network {
		t.Fatalf("after trusting: %v, %+v", err, cfg.Workspace)
	}
}

// TestEditorSettingsAreNotReviewed: what the editor's settings loosen is
// the user's own word: neither told nor asked about.
func TestEditorSettingsAreNotReviewed(t *testing.T) {
	root, _ := workspace(t, "match one\ntext ok\n", "")
	ed := lsptest.New(t, lsptest.Options{Root: root, Settings: map[string]any{
		"sandbox":     map[string]any{"bash": "off", "network": true},
		"permissions": map[string]any{"approval": "yolo", "allow": []string{"bash"}},
	}})
	askOK(t, ed, "one")
	if rec := ed.Snapshot(); warnings(rec, loosened) != 0 || len(rec.Dialogs) != 0 {
		t.Errorf("messages: %v, dialogs: %v", rec.Messages, rec.Dialogs)
	}
}

// errorsShown counts the errors shown that contain every one of texts.
func errorsShown(r lsptest.Recorded, texts ...string) int {
	n := 0
	for _, m := range r.Messages {
		if m.Type == protocol.MessageTypeError && containsAll(m.Message, texts) {
			n++
		}
	}
	return n
}

func containsAll(s string, texts []string) bool {
	for _, t := range texts {
		if !strings.Contains(s, t) {
			return false
		}
	}
	return true
}

// TestConfigErrorCarriesItsWarnings: a provider whose only model key is
// misspelt fails with "declares no model"; the warning about the unknown
// key, which explains it, is in the error the editor shows, with its file
// and line, and in the error a turn gets.
func TestConfigErrorCarriesItsWarnings(t *testing.T) {
	root, _ := workspace(t, "match one\ntext ok\n", "")
	project := filepath.Join(root, "reasonix.toml")
	if err := os.WriteFile(project, []byte("default_model = \"x\"\n[[providers]]\nname = \"x\"\nbase_url = \"http://127.0.0.1:1\"\nmodell = \"m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agenttest.Trust(t, root)
	project = projectFile(t, root)
	unknown := project + `:5: unknown setting "providers.modell"`
	noModel := project + `:2: provider "x" declares no model`

	ed := lsptest.New(t, lsptest.Options{Root: root})
	ed.Await("the configuration error", 30*time.Second, func(r *lsptest.Recorded) bool { return errorsShown(*r, noModel) > 0 })
	if rec := ed.Snapshot(); errorsShown(rec, noModel, unknown) != 1 || warnings(rec, unknown) != 0 {
		t.Errorf("messages: %v", rec.Messages)
	}

	b, _ := json.Marshal(map[string]any{"prompt": "one"})
	_, err := ed.Server().ExecuteCommand(ctx(t), &protocol.ExecuteCommandParams{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
	if err == nil || !containsAll(err.Error(), []string{noModel, unknown}) {
		t.Errorf("ask: %v", err)
	}
}

// TestConfigWarningsShownOnce: a configuration that builds with an
// unknown setting shows it as a warning, with its file and line, once:
// rebuilding after a settings change does not repeat it, and a warning
// the next change brings is shown on its own.
func TestConfigWarningsShownOnce(t *testing.T) {
	root, _ := workspace(t, "match one\ntext ok\n---\nmatch two\ntext ok\n", "")
	project := projectFile(t, root)
	line := appendLines(t, project, "\n[agent]\nmax_stepz = 3\n")
	stepz := project + ":" + strconv.Itoa(line) + `: unknown setting "agent.max_stepz"`

	ed := lsptest.New(t, lsptest.Options{Root: root})
	askOK(t, ed, "one")
	if n := warnings(ed.Snapshot(), stepz); n != 1 {
		t.Fatalf("first build: %v", ed.Snapshot().Messages)
	}

	changeSettings(t, ed, map[string]any{"agent": map[string]any{"max_steps": 7}})
	askOK(t, ed, "two") // waits for the rebuild

	line = appendLines(t, project, "\n[sandbox]\nfrobnicate = true\n")
	changeSettings(t, ed, map[string]any{"agent": map[string]any{"max_steps": 8}})
	frob := project + ":" + strconv.Itoa(line) + `: unknown setting "sandbox.frobnicate"`
	ed.Await("a warning about the new setting", 30*time.Second, func(r *lsptest.Recorded) bool { return warnings(*r, frob) > 0 })
	if rec := ed.Snapshot(); warnings(rec, stepz) != 1 || warnings(rec, frob) != 1 {
		t.Errorf("messages: %v", rec.Messages)
	}
}

// TestTrustElsewhereReachesTheServer: trusting a workspace's
// configuration outside the editor (reasonix trust in a terminal) takes
// effect at the running server's next turn, and revoking it too.
func TestTrustElsewhereReachesTheServer(t *testing.T) {
	root, _ := workspace(t, "match one\ntext ok\n", "")
	appendLines(t, projectFile(t, root), "\n[sandbox]\nnetwork = true\n")
	ed := lsptest.New(t, lsptest.Options{Root: root})
	trustText := func() string {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"prompt": "/trust"})
		return fmt.Sprint(execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})["text"])
	}
	if text := trustText(); !strings.Contains(text, "takes effect only once you trust it") {
		t.Fatalf("before: %s", text)
	}
	cfg, err := config.Load(config.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := config.Trust(cfg.Workspace); err != nil {
		t.Fatal(err)
	}
	if text := trustText(); !strings.Contains(text, "You trust the configuration") {
		t.Fatalf("after trusting elsewhere: %s", text)
	}
	// Revoked, the workspace's own provider is off too, and the built-in
	// one has no key: /trust, which asks no model, answers all the same,
	// and a prompt fails with the key to set.
	if _, err := config.Revoke(root); err != nil {
		t.Fatal(err)
	}
	if text := trustText(); !strings.Contains(text, "takes effect only once you trust it") {
		t.Fatalf("after revoking elsewhere: %s", text)
	}
	b, _ := json.Marshal(map[string]any{"prompt": "hello"})
	res := execute(t, ed, protocol.Command{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
	if msg := fmt.Sprint(res["error"]); !strings.Contains(msg, `provider "deepseek" needs an API key`) {
		t.Fatalf("a prompt after revoking elsewhere: %v", res)
	}
}
