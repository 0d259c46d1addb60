package lsp

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The custom protocol is written down four times: the server's tables
// (customMethods, commands), docs/PROTOCOL.md, and the tables of the two
// bundled clients, editors/vscode/src/protocol.ts and
// editors/nvim/lua/reasonix/protocol.lua. TestProtocolTables holds them to
// one another. The clients' tables are read with regular expressions on
// their literal blocks, which is why those files ask to keep one entry a
// line.

// wireName is one method or command as one of the four tells it.
type wireName struct {
	name string
	dir  direction
	// kind is "request", "notification" or "command".
	kind string
}

func (w wireName) String() string {
	dir := map[direction]string{clientToServer: "client → server", serverToClient: "server → client"}[w.dir]
	return fmt.Sprintf("%s (%s %s)", w.name, dir, w.kind)
}

// sentBy is the direction of a method the server sends, or the client.
func sentBy(server bool) direction {
	if server {
		return serverToClient
	}
	return clientToServer
}

// serverNames is what the Go tables say.
func serverNames(t *testing.T) []wireName {
	t.Helper()
	var out []wireName
	seen := map[string]bool{}
	for _, tbl := range []struct {
		table  []endpoint
		prefix string
	}{{customMethods, "reasonix/"}, {commands, "reasonix."}} {
		for _, e := range tbl.table {
			w := wireName{e.name, e.dir, "request"}
			switch {
			case tbl.prefix == "reasonix.":
				w.kind = "command"
			case e.notification:
				w.kind = "notification"
			}
			out = append(out, w)
			if (e.serve != nil) != (e.dir == clientToServer) {
				t.Errorf("%s: an entry has a handler exactly when the client sends it", e.name)
			}
			if w.kind == "command" && (e.dir != clientToServer || e.notification) {
				t.Errorf("%s: a command is a request the client sends", e.name)
			}
			if !strings.HasPrefix(e.name, tbl.prefix) {
				t.Errorf("%s is not named %s...", e.name, tbl.prefix)
			}
			if seen[e.name] {
				t.Errorf("%s is in the tables twice", e.name)
			}
			seen[e.name] = true
		}
	}
	return out
}

var (
	docSection   = regexp.MustCompile("(?m)^### `(reasonix[/.][A-Za-z.]+)`\n+(.*)")
	docDirection = regexp.MustCompile(`^(Client|Server) → (client|server) (request|notification)\b`)
)

// docNames reads docs/PROTOCOL.md: a section per command under
// "## Commands", and per method, whose first sentence says which way it
// goes ("Server → client notification, ...").
func docNames(t *testing.T) []wireName {
	t.Helper()
	doc := readFile(t, "../docs/PROTOCOL.md")
	var out []wireName
	for _, m := range docSection.FindAllStringSubmatch(doc, -1) {
		name, first := m[1], m[2]
		if strings.HasPrefix(name, "reasonix.") {
			out = append(out, wireName{name, clientToServer, "command"})
			continue
		}
		d := docDirection.FindStringSubmatch(first)
		if d == nil {
			t.Errorf("docs/PROTOCOL.md: the section of %s does not start with its direction (\"Client → server request.\"): %q", name, first)
			continue
		}
		out = append(out, wireName{name, sentBy(d[1] == "Server"), d[3]})
	}
	return out
}

var (
	tsMethod  = regexp.MustCompile(`^\s*\w+: \{ method: '([^']+)', direction: '(clientToServer|serverToClient)', required: (?:true|false) \} as (Request|Notification)Method<.*>,$`)
	tsCommand = regexp.MustCompile(`^\s*\w+: \{ command: '([^']+)' \} as Command<.*>,$`)
)

// vscodeNames reads the Methods and Commands tables of the extension.
func vscodeNames(t *testing.T) []wireName {
	t.Helper()
	const file = "../editors/vscode/src/protocol.ts"
	src := readFile(t, file)
	var out []wireName
	for _, line := range block(t, file, src, "export const Methods = {", "} as const;") {
		m := tsMethod.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: an entry of Methods the test cannot read: %q", file, line)
			continue
		}
		out = append(out, wireName{m[1], sentBy(m[2] == "serverToClient"), strings.ToLower(m[3])})
	}
	for _, line := range block(t, file, src, "export const Commands = {", "} as const;") {
		m := tsCommand.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: an entry of Commands the test cannot read: %q", file, line)
			continue
		}
		out = append(out, wireName{m[1], clientToServer, "command"})
	}
	return out
}

var luaEntry = regexp.MustCompile(`^\s*\w+ = '([^']+)',$`)

// nvimNames reads the plugin's tables. The plugin handles the server's
// requests and notifications alike, so its table does not say which a
// method is; the kind is taken from the server's table.
func nvimNames(t *testing.T, server []wireName) []wireName {
	t.Helper()
	const file = "../editors/nvim/lua/reasonix/protocol.lua"
	src := readFile(t, file)
	var out []wireName
	for _, tbl := range []struct {
		name string
		dir  direction
	}{{"M.to_server", clientToServer}, {"M.to_client", serverToClient}, {"M.commands", clientToServer}} {
		for _, line := range block(t, file, src, tbl.name+" = {", "}") {
			m := luaEntry.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s: an entry of %s the test cannot read: %q", file, tbl.name, line)
				continue
			}
			kind := "request"
			switch {
			case tbl.name == "M.commands":
				kind = "command"
			case tbl.dir == serverToClient:
				if i := slices.IndexFunc(server, func(w wireName) bool { return w.name == m[1] }); i >= 0 {
					kind = server[i].kind
				}
			}
			out = append(out, wireName{m[1], tbl.dir, kind})
		}
	}
	return out
}

var eglotHandler = regexp.MustCompile(`eglot-handle-(request|notification)\s*\(\S+\s+\(\S+\s+\(eql\s+'?(reasonix/[A-Za-z]+)\)\)`)

// eglotNames are the methods the eglot snippet handles. It declares only
// saveDocuments and sends nothing itself (its fix runs the command the
// code action carries), so it has no table: each name is written once,
// as the specializer of its handler.
func eglotNames(t *testing.T) []wireName {
	t.Helper()
	var out []wireName
	for _, m := range eglotHandler.FindAllStringSubmatch(readFile(t, "../editors/emacs/reasonix-eglot.el"), -1) {
		out = append(out, wireName{m[2], serverToClient, m[1]})
	}
	if len(out) == 0 {
		t.Error("editors/emacs/reasonix-eglot.el: no reasonix/... handler found")
	}
	return out
}

func TestProtocolTables(t *testing.T) {
	server := serverNames(t)
	same(t, "docs/PROTOCOL.md", docNames(t), server)
	// Both bundled clients implement the whole protocol (PROTOCOL.md: they
	// use nothing else), so their tables name every method and command.
	same(t, "editors/vscode/src/protocol.ts", vscodeNames(t), server)
	same(t, "editors/nvim/lua/reasonix/protocol.lua", nvimNames(t, server), server)
	for _, w := range eglotNames(t) {
		if !slices.Contains(server, w) {
			t.Errorf("editors/emacs/reasonix-eglot.el handles %s, which is not in the server's tables", w)
		}
	}
}

// TestClientsSpellNoMethodNames: outside their protocol tables, the
// clients' sources refer to methods and commands through the tables,
// never by a literal name.
func TestClientsSpellNoMethodNames(t *testing.T) {
	var quoted []string
	for _, w := range serverNames(t) {
		for _, q := range []string{`'`, `"`, "`"} {
			quoted = append(quoted, q+w.name+q)
		}
	}
	for _, dir := range []string{"../editors/vscode/src", "../editors/nvim/lua", "../editors/nvim/plugin"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch filepath.Base(path) {
			case "protocol.ts", "protocol.lua":
				return nil
			}
			if ext := filepath.Ext(path); ext != ".ts" && ext != ".lua" && ext != ".mjs" {
				return nil
			}
			src := readFile(t, path)
			for _, q := range quoted {
				if strings.Contains(src, q) {
					t.Errorf("%s spells %s; use the protocol table", path, q)
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
}

// same reports what want has that got lacks, and the other way round.
func same(t *testing.T, where string, got, want []wireName) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s lacks %s", where, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%s has %s, which the server's tables do not", where, g)
		}
	}
}

// block returns the lines between the line that is open and the next
// line that is close (both trimmed), without blank and comment lines.
func block(t *testing.T, file, src, open, close string) []string {
	t.Helper()
	lines := strings.Split(src, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == open })
	if start < 0 {
		t.Errorf("%s: no line %q", file, open)
		return nil
	}
	var out []string
	for _, l := range lines[start+1:] {
		switch s := strings.TrimSpace(l); {
		case s == close:
			return out
		case s == "", strings.HasPrefix(s, "//"), strings.HasPrefix(s, "--"):
		default:
			out = append(out, l)
		}
	}
	t.Errorf("%s: %q is not closed by %q", file, open, close)
	return nil
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
