package graph

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
)

// typescript-language-server runs the TypeScript it finds in the
// workspace before its own: node_modules/typescript, and the
// .yarn/sdks/typescript and .vscode/pnpify/typescript a repository can
// commit, in the root and every directory above it. Running it would run
// code the workspace chose, outside the shell's jail, as soon as the agent
// asked the project graph about a TypeScript file. So the graph names the
// TypeScript installed beside the language server (tsserver.path), as
// VS Code keeps to its own until the user picks the workspace's; a user
// who wants the workspace's sets tsserver.path in their configuration.

// pinTypeScript returns opts with tsserver.path set to the TypeScript
// that the language server at prog was installed with, unless opts name
// one already. It fails, rather than let the server fall back to the
// workspace's, when there is none to name.
func pinTypeScript(prog string, opts map[string]any) (map[string]any, error) {
	ts, _ := opts["tsserver"].(map[string]any)
	if p, _ := ts["path"].(string); p != "" {
		return opts, nil
	}
	path, err := bundledTSServer(prog)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(opts)
	if out == nil {
		out = map[string]any{}
	}
	pinned := maps.Clone(ts)
	if pinned == nil {
		pinned = map[string]any{}
	}
	pinned["path"] = path
	out["tsserver"] = pinned
	return out, nil
}

// bundledTSServer finds the tsserver.js that Node would load for the
// language server at prog: in a node_modules directory beside its
// package, or in one above it.
func bundledTSServer(prog string) (string, error) {
	real, err := filepath.EvalSymlinks(prog)
	if err != nil {
		return "", err
	}
	for dir := filepath.Dir(real); ; {
		p := filepath.Join(dir, "node_modules", "typescript", "lib", "tsserver.js")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("no TypeScript is installed beside %s, and the workspace's own is not run: "+
		"install it there (npm install -g typescript), or name one in your own config "+
		"(initialization_options.tsserver.path of [[graph.servers]] typescript-language-server)", real)
}
