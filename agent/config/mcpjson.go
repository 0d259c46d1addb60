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
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %v (its MCP servers are not used)", path, err))
		return
	}
	var f mcpFile
	if err := json.Unmarshal(data, &f); err != nil {
		at := Pos{File: path}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at.Line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: invalid JSON: %v (its MCP servers are not used)", at, err))
		return
	}
	names := make([]string, 0, len(f.MCPServers))
	for name := range f.MCPServers {
		names = append(names, name)
	}
	slices.Sort(names) // a stable order: the file's order is lost to the map
	for _, name := range names {
		s := f.MCPServers[name]
		if slices.ContainsFunc(c.Plugins, func(p PluginConfig) bool { return p.Name == name }) {
			continue
		}
		p := PluginConfig{
			Name: name, Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env,
			URL: s.URL, Headers: s.Headers,
			At: Pos{File: path, Line: lineOfKey(data, name)},
		}
		if p.Type == "" && p.Command == "" && p.URL != "" {
			p.Type = "http" // Claude Code reads a bare url as a remote server
		}
		if err := p.check(); err != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: MCP server %q: %v (not used)", p.At, name, err))
			continue
		}
		if c.withhold && !c.trusted[digest(pluginContent(p)...)] {
			continue // not trusted: see WorkspaceTrust
		}
		c.Plugins = append(c.Plugins, p)
	}
}

// lineOfValue is the line of the first string value equal to v in data,
// a JSON file; 0 when there is none.
func lineOfValue(data []byte, v string) int {
	quoted, _ := json.Marshal(v)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if bytes.Contains(sc.Bytes(), quoted) {
			return n
		}
	}
	return 0
}

// lineOfKey returns the line of the first `"key":` in data, or 0.
func lineOfKey(data []byte, key string) int {
	quoted, _ := json.Marshal(key)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if i := bytes.Index(line, quoted); i >= 0 && bytes.HasPrefix(bytes.TrimSpace(line[i+len(quoted):]), []byte(":")) {
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
