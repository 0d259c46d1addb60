package lsp

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The custom protocol is written down four times: the server's tables
// (customMethods and commands for what the client sends, toClient for
// what the server sends), docs/PROTOCOL.md, and the tables of the two
// bundled clients, editors/vscode/src/protocol.ts and
// editors/nvim/lua/reasonix/protocol.lua. TestProtocolTables holds them to
// one another. The clients' tables are read with regular expressions on
// their literal blocks, which is why those files ask to keep one entry a
// line.

// direction says which side sends a method.
type direction int

const (
	clientToServer direction = iota + 1
	serverToClient
)

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
	add := func(w wireName, prefix string) {
		out = append(out, w)
		if !strings.HasPrefix(w.name, prefix) {
			t.Errorf("%s is not named %s...", w.name, prefix)
		}
		if seen[w.name] {
			t.Errorf("%s is in the tables twice", w.name)
		}
		seen[w.name] = true
	}
	for _, tbl := range []struct {
		table  []endpoint
		prefix string
	}{{customMethods, "reasonix/"}, {commands, "reasonix."}} {
		for _, e := range tbl.table {
			if e.serve == nil {
				t.Errorf("%s: an entry of customMethods or commands has no handler", e.name)
			}
			kind := "request"
			if tbl.prefix == "reasonix." {
				kind = "command"
			}
			add(wireName{e.name, clientToServer, kind}, tbl.prefix)
		}
	}
	for _, m := range toClient {
		if !strings.HasPrefix(m.name(), "reasonix/") {
			continue // a standard method (TestToClientTypes)
		}
		kind := "request"
		if m.isNotification() {
			kind = "notification"
		}
		add(wireName{m.name(), serverToClient, kind}, "reasonix/")
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
// saveDocuments and sends no custom method (only the commands
// reasonix.fix and reasonix.trust, and those code actions carry), so it
// has no table: each name is written once, as the specializer of its
// handler.
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

// The "LSP methods → file" table of docs/ARCHITECTURE.md tells a reader
// which file handles or sends each method. TestProtocolFilesInArchitecture
// holds its rows for the language server to the code: it finds in the
// package's syntax every handler of the tables and of the standard
// protocol, and every send of an entry of toClient, and wants a
// row of that direction naming the method and the file. The standard
// methods' names are learnt from go.lsp.dev/protocol's own dispatchers,
// so the test holds no list of them.

// archRow is one row of the table.
type archRow struct {
	dir string
	// methods are the backquoted names of the method column; files the
	// .go files of the file column.
	methods, files []string
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// archRows reads the table in the section "## LSP methods → file".
func archRows(t *testing.T) []archRow {
	t.Helper()
	doc := readFile(t, "../docs/ARCHITECTURE.md")
	const head = "\n## LSP methods → file\n"
	i := strings.Index(doc, head)
	if i < 0 {
		t.Fatalf("docs/ARCHITECTURE.md: no section %q", strings.TrimSpace(head))
	}
	sec := doc[i+len(head):]
	if j := strings.Index(sec, "\n## "); j >= 0 {
		sec = sec[:j]
	}
	var rows []archRow
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| ---") || strings.HasPrefix(line, "| direction ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 {
			t.Errorf("docs/ARCHITECTURE.md: a row of the methods table without three cells: %q", line)
			continue
		}
		r := archRow{dir: cells[0]}
		for _, m := range backquoted.FindAllStringSubmatch(cells[1], -1) {
			r.methods = append(r.methods, m[1])
		}
		for _, m := range backquoted.FindAllStringSubmatch(cells[2], -1) {
			if strings.HasSuffix(m[1], ".go") {
				r.files = append(r.files, m[1])
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("docs/ARCHITECTURE.md: the methods table has no rows")
	}
	return rows
}

// methodUse is a method handled (dir "editor → server") or sent
// ("server → editor") in a file of the package.
type methodUse struct {
	dir, method, file string
}

// packageSyntax is what methodUses needs of the package's non-test files.
type packageSyntax struct {
	files map[string]*ast.File // by path from the repository root
	// consts are the string constants, by name.
	consts map[string]string
}

func parsePackage(t *testing.T) packageSyntax {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	ps := packageSyntax{files: map[string]*ast.File{}, consts: map[string]string{}}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ps.files["lsp/"+p] = f
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if s, ok := stringValue(vs.Values[i], nil); ok {
								ps.consts[name.Name] = s
							}
						}
					}
				}
			}
		}
	}
	return ps
}

// stringValue is e's value when it is a string literal or one of consts.
func stringValue(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	}
	return "", false
}

// recordConn is a connection that records the method of the one call
// made on it and fails it.
type recordConn struct {
	jsonrpc2.Conn
	method string
}

var errRecorded = errors.New("recorded")

func (c *recordConn) Call(_ context.Context, method string, _, _ any) (jsonrpc2.ID, error) {
	c.method = method
	return jsonrpc2.ID{}, errRecorded
}

func (c *recordConn) Notify(_ context.Context, method string, _ any) error {
	c.method = method
	return errRecorded
}

// wireMethod is the method go.lsp.dev/protocol sends for the Go method
// name of its Server or Client, or "" when it has none of that name (or
// sends whatever it is given, as Request does).
func wireMethod(dispatch func(jsonrpc2.Conn) any, name string) (method string) {
	c := &recordConn{}
	m := reflect.ValueOf(dispatch(c)).MethodByName(name)
	if !m.IsValid() {
		return ""
	}
	args := make([]reflect.Value, m.Type().NumIn())
	ctxType := reflect.TypeFor[context.Context]()
	for i := range args {
		if m.Type().In(i) == ctxType {
			args[i] = reflect.ValueOf(context.Background())
		} else {
			args[i] = reflect.Zero(m.Type().In(i))
		}
	}
	defer func() {
		if recover() != nil {
			method = ""
		}
	}()
	m.Call(args)
	return c.method
}

func serverDispatcher(c jsonrpc2.Conn) any { return protocol.ServerDispatcher(c) }

const (
	toServer = "editor → server"
	toEditor = "server → editor"
)

// methodUses finds in the package's syntax every method it handles or
// sends, and reports the endpoints of the tables it cannot place.
func methodUses(t *testing.T) []methodUse {
	t.Helper()
	ps := parsePackage(t)
	sent := map[string]string{} // an entry of toClient's variable → its method
	for v, e := range toClientVars(t, ps) {
		sent[v] = e.method
	}
	var uses []methodUse
	methodFile := map[string]string{} // Server's methods, by name
	handlers := map[string]string{}   // endpoint name → handler's name
	for file, f := range ps.files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Server" {
					methodFile[fd.Name.Name] = file
					if m := wireMethod(serverDispatcher, fd.Name.Name); m != "" {
						uses = append(uses, methodUse{toServer, m, file})
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				// {name: ..., serve: handler((*Server).method)}
				var name, handler string
				for _, el := range n.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch key, _ := kv.Key.(*ast.Ident); {
					case key == nil:
					case key.Name == "name":
						name, _ = stringValue(kv.Value, ps.consts)
					case key.Name == "serve":
						handler = handlerName(kv.Value)
					}
				}
				if name != "" && handler != "" {
					handlers[name] = handler
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				switch recv := selectorName(sel.X); {
				case sel.Sel.Name == "call" || sel.Sel.Name == "notify":
					if m, ok := sent[recv]; ok {
						uses = append(uses, methodUse{toEditor, m, file})
					}
				case recv == "conn" && (sel.Sel.Name == "Call" || sel.Sel.Name == "Notify") && file != "lsp/client.go":
					t.Errorf("%s: %s.%s sends to the editor past toClient", file, recv, sel.Sel.Name)
				}
			}
			return true
		})
	}
	for _, e := range append(slices.Clone(customMethods), commands...) {
		h, ok := handlers[e.name]
		if !ok || methodFile[h] == "" {
			t.Errorf("%s: no handler found (the test reads entries written {name: ..., serve: handler((*Server).method)})", e.name)
			continue
		}
		uses = append(uses, methodUse{toServer, e.name, methodFile[h]})
	}
	for _, m := range toClient {
		if !slices.ContainsFunc(uses, func(u methodUse) bool { return u.dir == toEditor && u.method == m.name() }) {
			t.Errorf("%s: nothing sends it (the test reads v.call(ctx, s, params) and v.notify(ctx, s, params) for a variable v of toClient)", m.name())
		}
	}
	return uses
}

// handlerName is method of handler((*Server).method), else "".
func handlerName(e ast.Expr) string {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return ""
	}
	if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "handler" {
		return ""
	}
	if sel, ok := call.Args[0].(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	return ""
}

// selectorName is the last name of x.y.z, or of an identifier.
func selectorName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func TestProtocolFilesInArchitecture(t *testing.T) {
	rows := archRows(t)
	for _, r := range rows {
		for _, f := range r.files {
			if _, err := os.Stat(filepath.Join("..", f)); err != nil {
				t.Errorf("docs/ARCHITECTURE.md names %s, which does not exist", f)
			}
		}
		if r.dir != toServer && r.dir != toEditor {
			continue
		}
		for _, m := range r.methods {
			if strings.HasPrefix(m, "reasonix/") || strings.HasPrefix(m, "reasonix.") {
				if !slices.ContainsFunc(append(slices.Clone(customMethods), commands...), func(e endpoint) bool { return e.name == m }) &&
					!slices.ContainsFunc(toClient, func(c clientMethod) bool { return c.name() == m }) {
					t.Errorf("docs/ARCHITECTURE.md names %s, which is in none of customMethods, commands and toClient", m)
				}
			}
		}
	}
	uses := methodUses(t)
	if len(uses) == 0 {
		t.Fatal("no method found in the package")
	}
	slices.SortFunc(uses, func(a, b methodUse) int {
		return strings.Compare(a.dir+a.method+a.file, b.dir+b.method+b.file)
	})
	for _, u := range slices.Compact(uses) {
		found := slices.ContainsFunc(rows, func(r archRow) bool {
			return r.dir == u.dir && slices.Contains(r.methods, u.method) && slices.Contains(r.files, u.file)
		})
		if !found {
			t.Errorf("docs/ARCHITECTURE.md: no row \"| %s | `%s` | `%s` |\" in the methods table", u.dir, u.method, u.file)
		}
	}
}

// A clientVar is an entry of toClient as the package's syntax declares
// it: a variable of type request[P, R] or notification[P].
type clientVar struct {
	method string
	// kind is "request" or "notification"; params and result the
	// source of P and R ("" for a notification).
	kind, params, result string
}

// toClientVars finds every variable of the package declared as a
// request[P, R]{...} or notification[P]{...} literal, and the method of
// each from toClient, whose literal names the variables in its order. A
// variable missing from toClient is an error: nothing may send past it.
func toClientVars(t *testing.T, ps packageSyntax) map[string]clientVar {
	t.Helper()
	vars := map[string]clientVar{}
	var order []string // the variables toClient lists
	for _, f := range ps.files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.CompositeLit)
					if !ok {
						continue
					}
					if name.Name == "toClient" {
						for _, el := range lit.Elts {
							order = append(order, selectorName(el))
						}
						continue
					}
					var generic ast.Expr
					var args []ast.Expr
					switch ty := lit.Type.(type) {
					case *ast.IndexExpr:
						generic, args = ty.X, []ast.Expr{ty.Index}
					case *ast.IndexListExpr:
						generic, args = ty.X, ty.Indices
					default:
						continue
					}
					switch kind := selectorName(generic); {
					case kind == "request" && len(args) == 2:
						vars[name.Name] = clientVar{kind: kind, params: types.ExprString(args[0]), result: types.ExprString(args[1])}
					case kind == "notification" && len(args) == 1:
						vars[name.Name] = clientVar{kind: kind, params: types.ExprString(args[0])}
					}
				}
			}
		}
	}
	if len(order) != len(toClient) {
		t.Fatalf("toClient lists %d variables in the syntax, %d at run time", len(order), len(toClient))
	}
	for i, v := range order {
		cv, ok := vars[v]
		if !ok {
			t.Errorf("toClient lists %s, which is not declared as a request[P, R]{...} or notification[P]{...} literal", v)
			continue
		}
		cv.method = toClient[i].name()
		vars[v] = cv
	}
	for v, cv := range vars {
		if cv.method == "" {
			t.Errorf("%s is not in toClient", v)
			delete(vars, v)
		}
	}
	return vars
}

// TestToClientTypes holds the standard methods of toClient to the LSP
// meta-model, as go.lsp.dev/protocol records it: each is one the server
// may send, a request or a notification as the model says, with the
// params type of the model and its result type (noResult for null or
// LSPAny, which the server does not read).
func TestToClientTypes(t *testing.T) {
	vars := toClientVars(t, parsePackage(t))
	if len(vars) != len(toClient) {
		t.Errorf("toClient has %d entries, the syntax %d variables", len(toClient), len(vars))
	}
	seen := map[string]bool{}
	for v, cv := range vars {
		if seen[cv.method] {
			t.Errorf("%s is in toClient twice", cv.method)
		}
		seen[cv.method] = true
		if i := slices.IndexFunc(toClient, func(m clientMethod) bool { return m.name() == cv.method }); toClient[i].isNotification() != (cv.kind == "notification") {
			t.Errorf("%s: toClient and the syntax disagree on whether it is a notification", v)
		}
		if strings.HasPrefix(cv.method, "reasonix/") {
			continue // TestProtocolTables
		}
		i := slices.IndexFunc(protocol.Methods, func(mi protocol.MethodInfo) bool { return mi.Method == cv.method })
		if i < 0 {
			t.Errorf("%s: %s is not an LSP method", v, cv.method)
			continue
		}
		mi := protocol.Methods[i]
		if mi.Direction == protocol.DirectionClientToServer {
			t.Errorf("%s: only the client sends %s", v, cv.method)
		}
		if mi.Kind != cv.kind {
			t.Errorf("%s: %s is a %s, not a %s", v, cv.method, mi.Kind, cv.kind)
		}
		if want := "*protocol." + mi.ParamsType; cv.params != want {
			t.Errorf("%s: the params of %s are %s, not %s", v, cv.method, want, cv.params)
		}
		if cv.kind != "request" {
			continue
		}
		want := "*protocol." + mi.ResultType
		if mi.ResultType == "" || mi.ResultType == "LSPAny" {
			want = "noResult"
		}
		if cv.result != want {
			t.Errorf("%s: the result of %s is %s, not %s", v, cv.method, want, cv.result)
		}
	}
}

// TestHandlersListed: every method of Server that is named as one of
// protocol.Server is in handlers, so that the protocol layer calls it. A
// method left out would be answered MethodNotFound (or ignored, for a
// notification) while the code seemed to handle it.
func TestHandlersListed(t *testing.T) {
	std := reflect.TypeFor[protocol.Server]()
	listed := reflect.TypeFor[handlers]()
	srv := reflect.TypeFor[*Server]()
	for i := range std.NumMethod() {
		name := std.Method(i).Name
		if _, ok := srv.MethodByName(name); !ok {
			continue
		}
		if _, ok := listed.MethodByName(name); !ok {
			t.Errorf("Server.%s is not in handlers, so the protocol layer never calls it", name)
		}
	}
}
