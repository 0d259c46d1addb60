package lsp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonix/reasonix/lsp/lsptest"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// TestMCPSignInOpensInTheBrowser: a workspace's HTTP MCP server wants a
// sign-in; its authorization page goes to the editor as
// window/showDocument with external: true, the browser (here one that
// signs in without a user) comes back to Reasonix, and the server
// connects. The sign-in is kept in the Reasonix directory.
func TestMCPSignInOpensInTheBrowser(t *testing.T) {
	o := mcptest.NewOAuthServer(t, "none")
	root, _ := workspace(t, "text unused\n", fmt.Sprintf("[[plugins]]\nname = \"remote\"\ntype = \"http\"\nurl = %q\n", o.URL()))
	browser := mcptest.FollowOpener(nil)
	ed := lsptest.New(t, lsptest.Options{Root: root, OpenExternal: func(u string) {
		if err := browser(context.Background(), "remote", u); err != nil {
			t.Errorf("browser: %v", err)
		}
	}})

	var got struct {
		Servers []struct {
			Name  string `json:"name"`
			State string `json:"state"`
			Tools int    `json:"tools"`
		} `json:"servers"`
	}
	if _, err := ed.Conn().Call(ctx(t), "reasonix/mcpServers", map[string]any{"folder": string(ed.URI(""))}, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Servers) != 1 || got.Servers[0].State != "connected" || got.Servers[0].Tools != 2 {
		t.Fatalf("servers %+v, want remote connected after its sign-in", got.Servers)
	}
	rec := ed.Snapshot()
	if len(rec.External) != 1 || !strings.HasPrefix(rec.External[0], strings.TrimSuffix(o.URL(), "/mcp")+"/tenant/authorize?") || len(rec.Shown) != 0 {
		t.Errorf("shown outside the editor %q, inside %q; want the authorization page outside", rec.External, rec.Shown)
	}
	ed.Await("the sign-in message", time.Minute, func(r *lsptest.Recorded) bool {
		for _, m := range r.Messages {
			if strings.Contains(m.Message, `MCP server "remote" wants you to sign in`) {
				return true
			}
		}
		return false
	})
	files, _ := os.ReadDir(filepath.Join(os.Getenv("REASONIX_HOME"), "mcp-auth"))
	if len(files) != 1 {
		t.Errorf("the Reasonix directory's mcp-auth holds %v, want the sign-in", files)
	}
}
