package config

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// MCPFileName is the project file, in Claude Code's shape, that declares
// MCP servers besides [[plugins]].
const MCPFileName = ".mcp.json"

// mcpFile is the shape of .mcp.json.
type mcpFile struct {
	MCPServers map[string]mcpServer `json:"mcpServers"`
}

// mcpServer is one entry of .mcp.json. Fields other tools add (a timeout,
// a description) are ignored.
type mcpServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// loadMCPJSON merges the project's .mcp.json into the plugins: entries
// whose name [[plugins]] already uses are left out, since the TOML is the
// more explicit, Reasonix-specific source. The file belongs to other tools
// as well, so its problems are warnings rather than errors.
func (c *Config) loadMCPJSON(dir string) {
	path := filepath.Join(dir, MCPFileName)
	data, ok := c.readJSON(path, "its MCP servers are not used")
	if !ok {
		return
	}
	var f mcpFile
	if !c.parseJSON(path, data, &f, "its MCP servers are not used") {
		return
	}
	c.addMCPServers(f.MCPServers, path, func(name string) int { return lineOf(data, name, true) }, true)
}

// ClaudeStateFile is Claude Code's own state file in the home directory,
// where `claude mcp add` keeps the MCP servers of its user scope (its
// "mcpServers") and of its local scope (each project's, under
// "projects", by the project's directory).
const ClaudeStateFile = ".claude.json"

// claudeState is what Reasonix reads of ClaudeStateFile: where it was
// read, its servers, and the line of each server's name.
type claudeState struct {
	path       string
	lines      map[string]int
	MCPServers map[string]mcpServer `json:"mcpServers"`
	Projects   map[string]struct {
		MCPServers map[string]mcpServer `json:"mcpServers"`
	} `json:"projects"`
}

// line is the line of the server name in the file.
func (st *claudeState) line(name string) int { return st.lines[name] }

// claudeStateCache keeps the last ClaudeStateFile read, by its size and
// time: Claude Code keeps much in it (each project's history), it can
// run to tens of megabytes, and an editor loads the configuration at
// every build of a workspace.
var claudeStateCache struct {
	mu   sync.Mutex // guards the fields below
	path string
	size int64
	mod  time.Time
	st   *claudeState
	warn string
}

// readClaudeState reads the user's ClaudeStateFile; nil when there is
// none, or, with a warning, when it cannot be read. Only its MCP servers
// are kept.
func (c *Config) readClaudeState() *claudeState {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	path := filepath.Join(home, ClaudeStateFile)
	fi, err := os.Stat(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %v (its MCP servers are not used)", path, err))
		}
		return nil
	}
	cache := &claudeStateCache
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if cache.path == path && cache.size == fi.Size() && cache.mod.Equal(fi.ModTime()) {
		if cache.warn != "" {
			c.Warnings = append(c.Warnings, cache.warn)
		}
		return cache.st
	}
	var read Config // collects the warnings of this read, for the cache
	st := &claudeState{path: path, lines: map[string]int{}}
	data, ok := read.readJSON(path, "its MCP servers are not used")
	if ok && read.parseJSON(path, data, st, "its MCP servers are not used") {
		add := func(servers map[string]mcpServer) {
			for name := range servers {
				if _, seen := st.lines[name]; !seen {
					st.lines[name] = lineOf(data, name, true)
				}
			}
		}
		add(st.MCPServers)
		for _, p := range st.Projects {
			add(p.MCPServers)
		}
	} else {
		st = nil
	}
	cache.path, cache.size, cache.mod, cache.st = path, fi.Size(), fi.ModTime(), st
	cache.warn = strings.Join(read.Warnings, "\n")
	c.Warnings = append(c.Warnings, read.Warnings...)
	return st
}

// addClaudeLocal adds the MCP servers of Claude Code's local scope for
// the workspace dir: the user's own, so they need no trust.
func (c *Config) addClaudeLocal(st *claudeState, dir string) {
	if st == nil || dir == "" {
		return
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	canonical := Canonical(abs)
	for project, p := range st.Projects {
		if len(p.MCPServers) > 0 && (filepath.Clean(project) == abs || Canonical(project) == canonical) {
			c.addMCPServers(p.MCPServers, st.path, st.line, false)
		}
	}
}

// addClaudeUser adds the MCP servers of Claude Code's user scope.
func (c *Config) addClaudeUser(st *claudeState) {
	if st != nil {
		c.addMCPServers(st.MCPServers, st.path, st.line, false)
	}
}

// readJSON reads a JSON file of another tool's: ok is false when it is
// missing, or, with a warning ending in what, unreadable.
func (c *Config) readJSON(path, what string) ([]byte, bool) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %v (%s)", path, err, what))
		return nil, false
	}
	return data, true
}

// parseJSON decodes data, read from path, into v; a file that is not
// valid JSON is a warning ending in what, with its line.
func (c *Config) parseJSON(path string, data []byte, v any, what string) bool {
	err := json.Unmarshal(data, v)
	if err == nil {
		return true
	}
	at := Pos{File: path}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at.Line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
	}
	c.Warnings = append(c.Warnings, fmt.Sprintf("%s: invalid JSON: %v (%s)", at, err, what))
	return false
}

// addMCPServers adds the servers of a file in Claude Code's mcpServers
// shape, read from path (line finds the line of a server's name), in a
// stable order, but those whose name a plugin has already; a workspace's
// (needsTrust) are left out until trusted.
func (c *Config) addMCPServers(servers map[string]mcpServer, path string, line func(name string) int, needsTrust bool) {
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	slices.Sort(names) // a stable order: the file's order is lost to the map
	for _, name := range names {
		s := servers[name]
		if slices.ContainsFunc(c.Plugins, func(p PluginConfig) bool { return p.Name == name }) {
			continue
		}
		p := PluginConfig{
			Name: name, Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env,
			URL: s.URL, Headers: s.Headers,
			At: Pos{File: path, Line: line(name)},
		}
		if p.Type == "" && p.Command == "" && p.URL != "" {
			p.Type = "http" // Claude Code reads a bare url as a remote server
		}
		if err := p.check(); err != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: MCP server %q: %v (not used)", p.At, name, err))
			continue
		}
		if needsTrust && c.withhold && !c.trusted[digest(pluginContent(p)...)] {
			continue // not trusted: see WorkspaceTrust
		}
		c.Plugins = append(c.Plugins, p)
	}
}

// lineOf returns the line of data, a JSON file, on which the string s
// first appears — as a key (`"s":`) when asKey is set, else anywhere —
// or 0.
func lineOf(data []byte, s string, asKey bool) int {
	quoted, _ := json.Marshal(s)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		i := bytes.Index(line, quoted)
		if i >= 0 && (!asKey || bytes.HasPrefix(bytes.TrimSpace(line[i+len(quoted):]), []byte(":"))) {
			return n
		}
	}
	return 0
}

// Transport returns the plugin's transport, normalised: "stdio", "http"
// or "sse".
func (p PluginConfig) Transport() string {
	switch strings.ToLower(p.Type) {
	case "", "stdio":
		return "stdio"
	case "http", "streamable-http", "streamablehttp":
		return "http"
	case "sse":
		return "sse"
	}
	return p.Type
}

// check reports what makes a plugin entry unusable.
func (p PluginConfig) check() error {
	switch p.Transport() {
	case "stdio":
		if p.Command == "" {
			return errors.New("a stdio server needs a command")
		}
	case "http", "sse":
		if p.URL == "" {
			return fmt.Errorf("an %s server needs a url", p.Transport())
		}
	default:
		return fmt.Errorf("unknown type %q (use stdio, http or sse)", p.Type)
	}
	for tool, n := range p.ToolTimeoutSeconds {
		if n < 0 {
			return fmt.Errorf("tool_timeout_seconds for %q is negative", tool)
		}
	}
	if p.CallTimeoutSeconds < 0 {
		return errors.New("call_timeout_seconds is negative")
	}
	if p.StartTimeoutSeconds < 0 {
		return errors.New("start_timeout_seconds is negative")
	}
	return nil
}
