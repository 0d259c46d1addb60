package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// testEnv returns an Env rooted in a fresh directory holding files
// (relative path → content).
func testEnv(t *testing.T, files map[string]string) *tools.Env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &tools.Env{Root: root, FS: tools.DiskFS{}, Guard: sandbox.New([]string{root}, nil)}
}

// call runs the named built-in with args (a Go value marshalled to JSON,
// or a string taken as raw JSON) and fails the test on a system error.
func call(t *testing.T, env *tools.Env, name string, args any) tools.Result {
	t.Helper()
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	tool := lookup(t, name)
	res, err := tool.Execute(context.Background(), env, raw)
	if err != nil {
		t.Fatalf("%s: system error: %v", name, err)
	}
	return res
}

func lookup(t *testing.T, name string) tools.Tool {
	t.Helper()
	for _, tool := range tools.Builtins() {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no built-in tool %q", name)
	return nil
}

// fileContent returns the content of a file under env's root.
func fileContent(t *testing.T, env *tools.Env, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
