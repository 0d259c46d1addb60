package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/memory"
)

func TestTermAsker(t *testing.T) {
	var errb bytes.Buffer
	ap := &termApprover{in: strings.NewReader("2\n  in my own words \n\n9\n"), r: newRenderer(&bytes.Buffer{}, &errb, false, false, false)}
	q := tools.Question{Question: "Which database?", Options: []string{"Postgres", "SQLite"}}
	for _, want := range []string{"SQLite", "in my own words", "", "9"} {
		got, err := ap.Ask(context.Background(), q)
		if err != nil || got != want {
			t.Fatalf("answer %q, %v; want %q", got, err, want)
		}
	}
	if out := errb.String(); !strings.Contains(out, "? Which database?\n  [1] Postgres\n  [2] SQLite\n  answer with a number") {
		t.Fatalf("prompt:\n%s", out)
	}
	if _, err := ap.Ask(context.Background(), q); err == nil {
		t.Fatal("EOF taken for an answer")
	}
}

// TestMemoryCommand lists the notes of the user and of the project, as
// text and as JSON, archived ones on request.
func TestMemoryCommand(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	store := memory.New(home, work, nil)
	ctx := context.Background()
	store.Save(ctx, memory.Note{Scope: memory.User, Name: "indent", Description: "The user indents with tabs", Content: "Tabs."})
	store.Save(ctx, memory.Note{Scope: memory.Project, Name: "deploy", Description: "How to deploy", Content: "Tag a release."})
	store.Save(ctx, memory.Note{Scope: memory.Project, Name: "old", Description: "Stale", Content: "x"})
	store.Archive(ctx, memory.Project, "old")

	r := runReasonix(t, work, home, nil, "memory")
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	for _, want := range []string{"project/deploy", "How to deploy", "user/indent", "The user indents with tabs", filepath.Join(home, "memory")} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "old") {
		t.Errorf("an archived note is listed:\n%s", r.stdout)
	}

	r = runReasonix(t, work, home, nil, "memory", "--json", "--archived")
	var got memoryResult
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.exit != 0 {
		t.Fatalf("json: %v, exit %d\n%s", err, r.exit, r.stdout)
	}
	if len(got.Notes) != 3 || got.Notes[1].Name != "old" || !got.Notes[1].Archived || got.Notes[2].Content != "Tabs." {
		t.Fatalf("notes: %+v", got.Notes)
	}
	if r := runReasonix(t, work, home, nil, "memory", "list"); r.exit != exitUsage || !strings.Contains(r.stderr, "usage: reasonix memory") {
		t.Fatalf("a stray argument: exit %d\n%s", r.exit, r.stderr)
	}
}

// TestMemoryAcrossSessions is the round trip on a terminal: a session
// saves a preference with the user's approval; the next session, a new
// process, finds it in its memory index, reads it and follows it.
func TestMemoryAcrossSessions(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("util-linux script is not installed")
	}
	srv, cfg := startScripted(t, `expect user I prefer tabs
call remember {"scope": "user", "name": "indent", "description": "The user indents with tabs, never spaces", "content": "Indent with tabs, never spaces, in every language."}
---
expect tool Saved the note user/indent
text Noted: tabs from now on.
---
expect system - user/indent: The user indents with tabs, never spaces
call memory {"action": "read", "name": "indent"}
---
expect tool Indent with tabs, never spaces
call write_file {"path": "hello.py", "content": "def hello():\n\treturn 'hi'\n"}
---
text Wrote hello.py, indented with tabs as you prefer.
`)
	work, home := t.TempDir(), t.TempDir()
	out := runOnTerminal(t, work, home, "y\n", "run", "--config", cfg, "'remember: I prefer tabs'")
	for _, want := range []string{"? remember indent", "needs approval each time", "Save the note user/indent", "Indent with tabs, never spaces, in every language.", "this once?"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}

	// The next session: no terminal, so nothing could be approved; the
	// note needs none to be read.
	r := runReasonix(t, work, home, nil, "run", "--config", cfg, "--approval", "auto", "write a hello function in hello.py")
	if r.exit != 0 || srv.Remaining() != 0 {
		t.Fatalf("exit %d, %d steps left\n%s\n%s", r.exit, srv.Remaining(), r.stdout, r.stderr)
	}
	got, _ := os.ReadFile(filepath.Join(work, "hello.py"))
	if string(got) != "def hello():\n\treturn 'hi'\n" {
		t.Fatalf("hello.py: %q", got)
	}
}

// TestMemoryCommandShowsEscapes: a note a repository committed may hold
// escape sequences in its description (one that writes the terminal's
// clipboard, say); `reasonix memory` shows them, it does not send them.
func TestMemoryCommandShowsEscapes(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(work, ".reasonix", "memory", "style.md"), "---\ndescription: Style \x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07 tabs\n---\n\nTabs.\n")
	r := runReasonix(t, work, home, nil, "memory")
	if r.exit != 0 || strings.Contains(r.stdout, "\x1b") || !strings.Contains(r.stdout, `Style \u001b]52;c;`) {
		t.Fatalf("exit %d:\n%q", r.exit, r.stdout)
	}
}
