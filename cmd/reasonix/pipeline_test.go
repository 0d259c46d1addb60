package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/lsp/lsptest"
)

// writeTree writes files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunBuiltins: in `reasonix run` the built-ins that answer print and
// exit 0, those that mean nothing in a one-prompt run are usage errors,
// and a command that does not exist is an error; none reaches the model.
func TestRunBuiltins(t *testing.T) {
	srv, cfg := startScripted(t, "text never asked\n")
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, work, map[string]string{".reasonix/commands/review.md": "---\ndescription: Review a file\n---\nReview $1"})
	cases := []struct {
		prompt string
		exit   int
		stdout string
		stderr string
	}{
		{"/help", 0, "/review", ""},
		{"/cost", 0, "A new run has made no requests yet: reasonix run --resume ID /cost shows a saved session's", ""},
		{"/compact", exitUsage, "", "/compact compacts a saved session, and a new run has none: reasonix run --resume ID /compact"},
		{"/model", 0, "Model: scripted/deepseek-flash", ""},
		{"/mcp", 0, "No MCP servers are configured", ""},
		{"/new", exitUsage, "", "/new has no meaning in reasonix run"},
		{"/clear", exitUsage, "", "/clear has no meaning in reasonix run"},
		{"/model scripted", exitUsage, "", "/model scripted/deepseek-flash alone has no effect in reasonix run"},
		{"/reveiw calc.go", exitError, "", "/reveiw: no such command; /help lists them"},
	}
	for _, c := range cases {
		r := runReasonix(t, work, home, nil, "run", "--config", cfg, c.prompt)
		if r.exit != c.exit || !strings.Contains(r.stdout, c.stdout) || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", c.prompt, r.exit, r.stdout, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestSameInputFromRunAndEditor: one prompt — a project command, @
// references to a file, a directory, a binary file, a forbidden file and
// a link to the user's AWS credentials — sent by `reasonix run` and by an
// editor's reasonix.ask reaches the model as the same user message: both
// front ends go through the agent's prompt pipeline. `reasonix run` notes
// on stderr the references the model does not get.
func TestSameInputFromRunAndEditor(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "")
	srv, url := startServer(t, "expect user <file path=\"calc.go\">\ntext first\n---\nexpect user <file path=\"calc.go\">\ntext second\n")
	base := t.TempDir()
	home, work, userHome := filepath.Join(base, "rxhome"), filepath.Join(base, "work"), filepath.Join(base, "home")
	writeTree(t, base, map[string]string{
		"work/calc.go":                      "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
		"work/notes/todo.md":                "- make Add add\n",
		"work/secrets/token.txt":            "sk-project-secret\n",
		"work/bin.dat":                      "\x00\x01binary",
		"work/.reasonix/commands/review.md": "---\ndescription: Review files\n---\nReview $ARGUMENTS for bugs.",
		"work/reasonix.toml":                scriptedConfig(url) + "\n[sandbox]\nforbid_read = [\"secrets\"]\n",
		"home/.aws/credentials":             "aws_secret_access_key = sk-aws-secret\n",
	})
	if err := os.Symlink(filepath.Join(userHome, ".aws", "credentials"), filepath.Join(work, "creds")); err != nil {
		t.Fatal(err)
	}
	const prompt = "/review @calc.go @notes/ @bin.dat @secrets/token.txt @creds"
	env := []string{"HOME=" + userHome}
	trustWorkspace(t, work, home)

	r := runReasonix(t, work, home, env, "run", prompt)
	if r.exit != 0 || !strings.Contains(r.stdout, "first") {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	// The user is told what the model does not get.
	for _, note := range []string{
		"note: @bin.dat not attached: it is a binary file (8 bytes)\n",
		"note: @secrets/token.txt not attached: reading it is forbidden by [sandbox] forbid_read\n",
		"note: @creds not attached: reading it is forbidden by [sandbox] forbid_read\n",
	} {
		if !strings.Contains(r.stderr, note) {
			t.Errorf("stderr lacks %q:\n%s", note, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "@calc.go") || strings.Contains(r.stderr, "@notes/") {
		t.Errorf("stderr notes what was attached:\n%s", r.stderr)
	}

	t.Setenv("REASONIX_HOME", home)
	t.Setenv("HOME", userHome)
	ed := lsptest.New(t, lsptest.Options{Root: work})
	b, _ := json.Marshal(map[string]any{"prompt": prompt})
	res, err := ed.Server().ExecuteCommand(t.Context(), &protocol.ExecuteCommandParams{Command: "reasonix.ask", Arguments: []protocol.LSPAny{b}})
	if err != nil || !strings.Contains(string(res), `"text":"second"`) {
		t.Fatalf("reasonix.ask: %s, %v", res, err)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	user := func(i int) string {
		msgs := reqs[i].Messages
		last := msgs[len(msgs)-1]
		if last.Role != "user" {
			t.Fatalf("request %d ends with a %s message", i, last.Role)
		}
		return last.Content
	}
	fromRun, fromEditor := user(0), user(1)
	if fromRun != fromEditor {
		t.Errorf("the model got from run:\n%s\nand from the editor:\n%s", fromRun, fromEditor)
	}
	want := "Review @calc.go @notes/ @bin.dat @secrets/token.txt @creds for bugs.\n\n" +
		"<file path=\"calc.go\">\npackage calc\n\nfunc Add(a, b int) int { return a - b }\n</file>\n" +
		"<directory path=\"notes\">\ntodo.md\n</directory>\n" +
		"<file path=\"bin.dat\">(binary, 8 bytes, not shown)</file>\n" +
		"<file path=\"secrets/token.txt\">(not attached: reading it is forbidden by [sandbox] forbid_read)</file>\n" +
		"<file path=\"creds\">(not attached: reading it is forbidden by [sandbox] forbid_read)</file>"
	if fromRun != want {
		t.Errorf("the user message is\n%q\nwant\n%q", fromRun, want)
	}
}

// TestCommandFileShell: Claude Code's !`command` in a command file runs
// before the prompt is sent, through the bash permission rules: allowed,
// its output takes its place; refused (no one to ask), the refusal does,
// and it does not run. The command file's allowed-tools grants nothing.
func TestCommandFileShell(t *testing.T) {
	srv, cfg := startScripted(t, `match Status:
expect user Status: branch-x
expect user Marker: Permission denied
text Summarized.
`)
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, work, map[string]string{
		".reasonix/commands/status.md": "---\nallowed-tools: Bash(touch:*)\n---\nStatus: !`echo branch-$1`\nMarker: !`touch made`\nSummarize.",
		"reasonix.toml":                "[permissions]\nallow = [\"Bash(echo:*)\"]\n",
	})
	trustWorkspace(t, work, home)
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "/status x")
	if r.exit != 0 || !strings.Contains(r.stdout, "Summarized.") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "made")); err == nil {
		t.Error("the refused command ran")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests reached the model, want 1", n)
	}
}
