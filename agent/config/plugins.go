package config

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ExpandedPlugins returns the plugins with ${VAR} and ${VAR:-default}
// expanded in command, args, env, url, headers, client_id and
// client_secret, ready to start.
// Variables come from the environment, then from the project's .env file
// in root (so a token can live beside the project without being
// exported). A provider's API key variable is never expanded into a
// plugin's settings: a project's .mcp.json could otherwise send the key
// to any server. A plugin of the workspace's own files takes from the
// environment only the variables the user named in [trust] env. Each
// refusal is a warning.
func (c *Config) ExpandedPlugins(root string) ([]PluginConfig, []string) {
	dotenv, err := readDotEnv(filepath.Join(root, ".env"))
	var warnings []string
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("%s: %v (not used for plugin settings)", filepath.Join(root, ".env"), err))
	}
	keys := map[string]bool{}
	for _, p := range c.Providers {
		if p.APIKeyEnv != "" {
			keys[p.APIKeyEnv] = true
		}
	}
	out := make([]PluginConfig, 0, len(c.Plugins))
	for _, p := range c.Plugins {
		refused, unnamed := map[string]bool{}, map[string]bool{}
		env := c.lookupFor(p.At, unnamed)
		lookup := func(name string) (string, bool) {
			if keys[name] {
				refused[name] = true
				return "", false
			}
			if v, ok := env(name); ok {
				return v, true
			}
			v, ok := dotenv[name]
			if ok {
				delete(unnamed, name)
			}
			return v, ok
		}
		x := func(s string) string { return ExpandWith(s, lookup) }
		q := p
		q.Command = x(p.Command)
		q.URL = x(p.URL)
		q.Args = make([]string, len(p.Args))
		for i, a := range p.Args {
			q.Args[i] = x(a)
		}
		q.Env = expandMap(p.Env, x)
		q.Headers = expandMap(p.Headers, x)
		q.ClientID, q.ClientSecret = x(p.ClientID), x(p.ClientSecret)
		for _, name := range slices.Sorted(maps.Keys(refused)) {
			warnings = append(warnings, fmt.Sprintf("%s: plugin %q: ${%s} is a model provider's API key and is not passed to plugins", p.At, p.Name, name))
		}
		for _, name := range slices.Sorted(maps.Keys(unnamed)) {
			if _, set := os.LookupEnv(name); set {
				warnings = append(warnings, fmt.Sprintf("%s: plugin %q: ${%s} is not expanded in the workspace's configuration; to pass it, name it in [trust] env of your own config", p.At, p.Name, name))
			}
		}
		out = append(out, q)
	}
	return out, warnings
}

func expandMap(m map[string]string, x func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x(v)
	}
	return out
}

// readDotEnv reads a .env file: KEY=VALUE lines, optionally prefixed by
// "export", values optionally in single or double quotes (double quotes
// take Go-style escapes), # comments. A missing file is empty.
func readDotEnv(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, val, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return nil, fmt.Errorf("line %d is not KEY=VALUE", n)
		}
		val = strings.TrimSpace(val)
		switch {
		case len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"':
			u, err := strconv.Unquote(val)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			val = u
		case len(val) >= 2 && val[0] == '\'' && val[len(val)-1] == '\'':
			val = val[1 : len(val)-1]
		default:
			if i := strings.Index(val, " #"); i >= 0 {
				val = strings.TrimSpace(val[:i])
			}
		}
		out[key] = val
	}
	return out, sc.Err()
}
