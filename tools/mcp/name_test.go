package mcp

import (
	"regexp"
	"strings"
	"testing"
)

func TestToolName(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"everything", "echo", "mcp__everything__echo"},
		{"everything", "get-sum", "mcp__everything__get-sum"},
		{"my server", "read file", "mcp__my_server__read_file"},
		{"git.hub", "list/repos", "mcp__git_hub__list_repos"},
		{"café", "naïve tool", "mcp__caf___na_ve_tool"},
		{"", "", "mcp____"},
	} {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}

	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	long := strings.Repeat("x", 80)
	a, b := ToolName("server", long+"a"), ToolName("server", long+"b")
	for _, n := range []string{a, b} {
		if !valid.MatchString(n) {
			t.Errorf("ToolName gave %q (%d bytes), not a valid function name", n, len(n))
		}
		if !strings.HasPrefix(n, "mcp__server__xxx") {
			t.Errorf("ToolName gave %q, want the readable prefix kept", n)
		}
	}
	if a == b {
		t.Errorf("two long names that differ only at the end both became %q", a)
	}
	if again := ToolName("server", long+"a"); again != a {
		t.Errorf("ToolName is not stable: %q then %q", a, again)
	}
}

func TestUniqueNames(t *testing.T) {
	type item struct{ key, name string }
	items := []item{
		{"b\x00read file", ToolName("b", "read file")},
		{"b\x00read_file", ToolName("b", "read_file")},
		{"a b\x00x", ToolName("a b", "x")},
		{"a_b\x00x", ToolName("a_b", "x")},
		{"c\x00y", ToolName("c", "y")},
	}
	uniqueNames(items, func(i item) string { return i.key }, func(i item) string { return i.name },
		func(i item, n string) item { i.name = n; return i })
	seen := map[string]bool{}
	for _, i := range items {
		if seen[i.name] {
			t.Errorf("name %q given twice: %+v", i.name, items)
		}
		seen[i.name] = true
	}
	// The first by raw name keeps the plain name.
	if items[0].name != "mcp__b__read_file" || items[2].name != "mcp__a_b__x" || items[4].name != "mcp__c__y" {
		t.Errorf("renamed the wrong ones: %+v", items)
	}
}
