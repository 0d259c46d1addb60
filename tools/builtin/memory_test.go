package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRememberReadForget(t *testing.T) {
	env := testEnv(t, nil)
	env.Home = t.TempDir()

	if res := call(t, env, "memory", map[string]any{"action": "list"}); res.IsError || !strings.Contains(res.Content, "No notes") {
		t.Fatalf("empty list: %+v", res)
	}
	note := map[string]any{"scope": "user", "name": "Go Style", "description": "How the user likes Go", "content": "Tabs. Table tests."}
	raw, _ := json.Marshal(note)
	preview, err := rememberTool{}.Preview(env, raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Save the note user/go-style", filepath.Join(env.Home, "memory", "go-style.md"), "in your memory, for every project", "description: How the user likes Go", "Tabs. Table tests."} {
		if !strings.Contains(preview, want) {
			t.Errorf("preview lacks %q:\n%s", want, preview)
		}
	}
	res := call(t, env, "remember", note)
	if res.IsError || !strings.Contains(res.Content, "Saved the note user/go-style") {
		t.Fatalf("remember: %+v", res)
	}

	// Saving again under the name replaces the note; the preview shows both.
	note["content"] = "Tabs. Table tests. No globals."
	raw, _ = json.Marshal(note)
	preview, _ = rememberTool{}.Preview(env, raw)
	if !strings.Contains(preview, "Replace the note user/go-style") || !strings.Contains(preview, "which reads:\n----------\ndescription: How the user likes Go\n\nTabs. Table tests.\n----------\nwith:\n----------\ndescription: How the user likes Go\n\nTabs. Table tests. No globals.\n----------") {
		t.Fatalf("replacing preview:\n%s", preview)
	}
	if res := call(t, env, "remember", note); !strings.Contains(res.Content, "Replaced the note") {
		t.Fatalf("replace: %+v", res)
	}

	call(t, env, "remember", map[string]any{"scope": "project", "name": "build", "description": "Building this project", "content": "Run make check; the tests need Docker."})
	if _, err := os.Stat(filepath.Join(env.Root, ".reasonix", "memory", "build.md")); err != nil {
		t.Fatal(err)
	}
	list := call(t, env, "memory", map[string]any{"action": "list"})
	if list.Content != "project/build: Building this project\nuser/go-style: How the user likes Go\n" {
		t.Fatalf("list:\n%s", list.Content)
	}
	found := call(t, env, "memory", map[string]any{"action": "search", "query": "docker"})
	if !strings.Contains(found.Content, "project/build: Building this project\n    Run make check; the tests need Docker.") || strings.Contains(found.Content, "go-style") {
		t.Fatalf("search:\n%s", found.Content)
	}
	read := call(t, env, "memory", map[string]any{"action": "read", "name": "go-style"})
	if !strings.Contains(read.Content, "# user/go-style: How the user likes Go") || !strings.Contains(read.Content, "No globals.") {
		t.Fatalf("read:\n%s", read.Content)
	}

	raw, _ = json.Marshal(map[string]any{"name": "build"})
	preview, err = forgetTool{}.Preview(env, raw)
	if err != nil || !strings.Contains(preview, "Forget the note project/build (.reasonix/memory/build.md): it moves to .reasonix/memory/archive/") || !strings.Contains(preview, "the tests need Docker") {
		t.Fatalf("forget preview: %v\n%s", err, preview)
	}
	if res := call(t, env, "forget", map[string]any{"name": "build"}); res.IsError || !strings.Contains(res.Content, "archived as .reasonix/memory/archive/build.") {
		t.Fatalf("forget: %+v", res)
	}
	if list := call(t, env, "memory", map[string]any{"action": "list"}); strings.Contains(list.Content, "build") {
		t.Fatalf("a forgotten note is listed:\n%s", list.Content)
	}
	archived, _ := filepath.Glob(filepath.Join(env.Root, ".reasonix", "memory", "archive", "build.*.md"))
	if len(archived) != 1 {
		t.Fatalf("archive holds %v", archived)
	}
}

// A call that cannot run is not put to the user: its preview fails, with
// what to fix.
func TestMemoryPreviewRefusesBadCalls(t *testing.T) {
	env := testEnv(t, nil)
	env.Home = t.TempDir()
	for _, tc := range []struct{ tool, args, want string }{
		{"remember", `{"scope":"team","name":"x","description":"d","content":"c"}`, `scope must be "project" or "user"`},
		{"remember", `{"scope":"user","name":"../../etc/passwd","description":"d","content":"c"}`, "may hold only letters"},
		{"remember", `{"scope":"user","name":"x","description":"","content":"c"}`, "description is required"},
		{"forget", `{"name":"nothing"}`, `there is no note "nothing"`},
	} {
		var err error
		switch tc.tool {
		case "remember":
			_, err = rememberTool{}.Preview(env, json.RawMessage(tc.args))
		case "forget":
			_, err = forgetTool{}.Preview(env, json.RawMessage(tc.args))
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want %q", tc.tool, tc.args, err, tc.want)
		}
	}
}
