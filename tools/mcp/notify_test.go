//go:build unix

package mcp

import (
	"os"
	"slices"
	"testing"
	"time"
)

// TestToolsListChanged drives growServer, which lists its tools in pages
// and adds one when asked: the new tool shows up after the server's
// notification, ToolsChanged says so until Tools is called, and
// OnToolsChanged hears of it.
func TestToolsListChanged(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := start(t, Options{Servers: []ServerConfig{
		{Name: "grow", Command: exe, Env: map[string]string{growServerEnv: "1"}},
	}})
	if w := m.Warnings(); len(w) > 0 {
		t.Fatalf("warnings %q", w)
	}
	names := func() []string {
		var out []string
		for _, tl := range m.Tools() {
			out = append(out, tl.Name())
		}
		return out
	}
	want := []string{"mcp__grow__grow", "mcp__grow__tool0", "mcp__grow__tool1", "mcp__grow__tool2", "mcp__grow__tool3"}
	if got := names(); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want all pages: %v", got, want)
	}

	changed := make(chan string, 1)
	m.OnToolsChanged(func(server string) { changed <- server })
	wantContent(t, call(t, t.Context(), m, "mcp__grow__grow", nil), "grew")
	select {
	case server := <-changed:
		if server != "grow" {
			t.Errorf("OnToolsChanged(%q), want grow", server)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no tools change reported")
	}
	if !m.ToolsChanged() {
		t.Error("ToolsChanged is false after a change")
	}
	if got := names(); !slices.Contains(got, "mcp__grow__grown") {
		t.Errorf("tools %v lack the new tool", got)
	}
	if m.ToolsChanged() {
		t.Error("ToolsChanged is still true after Tools")
	}
	wantContent(t, call(t, t.Context(), m, "mcp__grow__grown", nil), "grown")
	if st := statusOf(t, m, "grow"); st.Tools != 6 {
		t.Errorf("status %+v, want 6 tools", st)
	}
}
