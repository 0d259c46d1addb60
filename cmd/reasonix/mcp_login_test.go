package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// The test binary is also the browser of TestMCPLogin: started as
// $BROWSER URL, it fetches the page and follows the redirects to the
// sign-in's loopback address, as a user signing in would.
func init() {
	if os.Getenv("REASONIX_TEST_BROWSER") != "1" || len(os.Args) != 2 {
		return
	}
	if err := mcptest.FollowOpener(nil)(context.Background(), "", os.Args[1]); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// TestMCPLogin: a trusted workspace's HTTP server that wants a sign-in
// waits in mcp list, signs in with mcp login through $BROWSER, keeps its
// tokens 0600 in the Reasonix directory (not the workspace), connects in
// the next run without a page, and mcp logout forgets it. The tokens are
// never printed. An untrusted workspace's server is not signed in to.
func TestMCPLogin(t *testing.T) {
	o := mcptest.NewOAuthServer(t, "client_secret_basic")
	dir, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "reasonix.toml"), []byte("[[plugins]]\nname = \"remote\"\ntype = \"http\"\nurl = \""+o.URL()+"\"\n\n"+
		"[[plugins]]\nname = \"local\"\ncommand = \"reasonix-plugin-example\"\n"), 0o644)

	browser := []string{"BROWSER=" + os.Args[0], "REASONIX_TEST_BROWSER=1"}
	if r := runReasonix(t, dir, t.TempDir(), browser, "mcp", "login", "remote"); r.exit != exitError || !strings.Contains(r.stderr, `no MCP server named "remote"`) {
		t.Errorf("login to an untrusted workspace's server: %+v", r)
	}
	if n := o.Seen().Registrations; n != 0 {
		t.Fatalf("an untrusted workspace's server was signed in to (%d registrations)", n)
	}

	trustWorkspace(t, dir, home)
	var out []string
	r := runReasonix(t, dir, home, nil, "mcp", "list")
	out = append(out, r.stdout, r.stderr)
	if r.exit != exitOK || row(r.stdout, "remote") != "remote http sign-in 0 0 0" || !strings.Contains(r.stdout, "reasonix mcp login remote") {
		t.Errorf("mcp list before signing in: %+v", r)
	}

	if r := runReasonix(t, dir, home, browser, "mcp", "login", "local"); r.exit != exitError || !strings.Contains(r.stderr, "only those sign in") {
		t.Errorf("login to a stdio server: %+v", r)
	}
	r = runReasonix(t, dir, home, browser, "mcp", "login", "remote")
	out = append(out, r.stdout, r.stderr)
	noTrace(t, r)
	if r.exit != exitOK || !strings.Contains(r.stdout, `Signed in to MCP server "remote"`) || !strings.Contains(r.stderr, "/tenant/authorize?") {
		t.Fatalf("mcp login: %+v", r)
	}
	files, _ := os.ReadDir(filepath.Join(home, "mcp-auth"))
	if len(files) != 1 {
		t.Fatalf("mcp-auth holds %v, want one sign-in", files)
	}
	if fi, err := files[0].Info(); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("sign-in file mode %v (%v), want 0600", fi.Mode(), err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the workspace holds %v, want its reasonix.toml alone", left)
	}

	r = runReasonix(t, dir, home, nil, "mcp", "list")
	out = append(out, r.stdout, r.stderr)
	if r.exit != exitOK || row(r.stdout, "remote") != "remote http connected 2 0 0" {
		t.Errorf("mcp list after signing in: %+v", r)
	}

	r = runReasonix(t, dir, home, nil, "mcp", "logout", "remote")
	if r.exit != exitOK || !strings.Contains(r.stdout, `Signed out of MCP server "remote"`) {
		t.Errorf("mcp logout: %+v", r)
	}
	if files, _ := os.ReadDir(filepath.Join(home, "mcp-auth")); len(files) != 0 {
		t.Errorf("mcp-auth holds %v after logout", files)
	}
	if r := runReasonix(t, dir, home, nil, "mcp", "logout", "remote"); r.exit != exitOK || !strings.Contains(r.stdout, "was not signed in") {
		t.Errorf("a second mcp logout: %+v", r)
	}

	all := strings.Join(out, "\n")
	for _, secret := range o.Seen().Issued {
		if strings.Contains(all, secret) {
			t.Errorf("a token or client secret was printed:\n%s", all)
		}
	}
}

// row returns the line of mcp list's table that starts with name, its
// columns single-spaced.
func row(table, name string) string {
	for line := range strings.Lines(table) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return strings.Join(f, " ")
		}
	}
	return ""
}
