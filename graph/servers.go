package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ServerSpec is a language server the graph may run: a [[graph.servers]]
// entry, or a built-in one.
type ServerSpec struct {
	Name string
	// Command is the program and its arguments; the server speaks LSP on
	// its stdin and stdout.
	Command []string
	// Extensions are the file extensions it serves (".go").
	Extensions []string
	// RootMarkers are the files that mark a project of the server's kind
	// (go.mod), and so the root it runs in.
	RootMarkers []string
	// InitializationOptions are sent to the server as they are.
	InitializationOptions map[string]any
}

// DefaultServers returns the built-in language servers: gopls for Go,
// pyright for Python and typescript-language-server for TypeScript and
// JavaScript. Configured servers are merged over them by name.
func DefaultServers() []ServerSpec {
	return []ServerSpec{
		{
			Name:        "gopls",
			Command:     []string{"gopls", "serve"},
			Extensions:  []string{".go"},
			RootMarkers: []string{"go.work", "go.mod"},
			InitializationOptions: map[string]any{
				// Qualified names ("calc.Calc.Add") let find_symbol tell
				// packages and receivers apart without a second query.
				"symbolStyle": "package",
				// The project graph is about the project, not its
				// dependencies: they would crowd its symbols out of
				// gopls's 100 results.
				"symbolScope": "workspace",
				// textDocument/diagnostic answers exactly when a file's
				// diagnostics are ready, which is what Verify waits for.
				"pullDiagnostics": true,
			},
		},
		{
			Name:        "pyright",
			Command:     []string{"pyright-langserver", "--stdio"},
			Extensions:  []string{".py", ".pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"},
		},
		{
			Name:        "typescript-language-server",
			Command:     []string{"typescript-language-server", "--stdio"},
			Extensions:  []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
			InitializationOptions: map[string]any{
				// The syntax server answers while the project loads, with
				// answers that stop at import statements; the graph would
				// rather wait for the real ones.
				"tsserver": map[string]any{"useSyntaxServer": "never"},
				// Renaming an imported name renames its declaration and
				// every use, not just the import ("add as sum").
				"preferences": map[string]any{"providePrefixAndSuffixTextForRename": false},
			},
		},
	}
}

// installHints say how to install the built-in servers, keyed by the
// command's base name.
var installHints = map[string]string{
	"gopls":                      "go install golang.org/x/tools/gopls@v0.23.0",
	"pyright-langserver":         "npm install -g pyright",
	"typescript-language-server": "npm install -g typescript-language-server typescript",
}

// mergeServers lays configured servers over the defaults: an entry with a
// known name replaces the fields it sets, an unknown name is added.
func mergeServers(defaults, configured []ServerSpec) []ServerSpec {
	out := slices.Clone(defaults)
	for _, c := range configured {
		i := slices.IndexFunc(out, func(s ServerSpec) bool { return s.Name == c.Name })
		if i < 0 {
			out = append(out, c)
			continue
		}
		s := &out[i]
		if len(c.Command) > 0 {
			s.Command = c.Command
		}
		if len(c.Extensions) > 0 {
			s.Extensions = c.Extensions
		}
		if len(c.RootMarkers) > 0 {
			s.RootMarkers = c.RootMarkers
		}
		if c.InitializationOptions != nil {
			opts := map[string]any{}
			for k, v := range s.InitializationOptions {
				opts[k] = v
			}
			for k, v := range c.InitializationOptions {
				opts[k] = v
			}
			s.InitializationOptions = opts
		}
	}
	// An entry without a command cannot run; one without extensions would
	// never be chosen.
	return slices.DeleteFunc(out, func(s ServerSpec) bool {
		return len(s.Command) == 0 || len(s.Extensions) == 0
	})
}

// handles reports whether s serves the file at path.
func handles(s ServerSpec, path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext != "" && slices.ContainsFunc(s.Extensions, func(e string) bool {
		return strings.EqualFold(e, ext) || strings.EqualFold("."+e, ext)
	})
}

// MissingServerError says that a language server is not installed, and
// how to install it.
type MissingServerError struct {
	Server  string // the configured name
	Command string // the program that was looked for
	Hint    string // an install command, when known
}

func (e *MissingServerError) Error() string {
	msg := fmt.Sprintf("language server %s is not installed (%q not found on PATH)", e.Server, e.Command)
	if e.Hint != "" {
		msg += "; install it with: " + e.Hint
	}
	return msg + "; until then use grep and read_file"
}

// lookCommand finds the program a server runs. gopls is also looked for
// where `go install` puts it, since that directory is often not on PATH.
func lookCommand(s ServerSpec) (string, error) {
	name := s.Command[0]
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if filepath.Base(name) == "gopls" && !strings.ContainsRune(name, filepath.Separator) {
		if dir := goBin(); dir != "" {
			p := filepath.Join(dir, "gopls")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
		}
	}
	return "", &MissingServerError{Server: s.Name, Command: name, Hint: installHints[filepath.Base(name)]}
}

// LookPath finds a language server's program as the graph would: on PATH,
// and for gopls also where `go install` puts it.
func LookPath(program string) (string, error) {
	return lookCommand(ServerSpec{Name: program, Command: []string{program}})
}

// goBin is where `go install` puts programs: $GOBIN, or $(go env GOPATH)/bin.
func goBin() string {
	if dir := os.Getenv("GOBIN"); dir != "" {
		return dir
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		gopath = goEnvGOPATH()
	}
	if gopath == "" {
		return ""
	}
	return filepath.Join(filepath.SplitList(gopath)[0], "bin")
}

// goEnvGOPATH asks the go command, once, which also knows the default
// and the go.env settings.
var goEnvGOPATH = sync.OnceValue(func() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "env", "GOPATH").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, "go")
	}
	return ""
})

// isMissing reports whether err says a server is not installed.
func isMissing(err error) bool {
	var m *MissingServerError
	return errors.As(err, &m)
}
