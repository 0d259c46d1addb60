package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// A Cache is a directory that tools share across every project of the
// user and later run code from, unconfined: the Go module cache holds the
// sources `go run` compiles, the Go build cache the outputs it links
// without recompiling, npm's cache the packages it installs, the user's
// cache directory much else (pip's wheels, pre-commit's hooks, gopls's
// indexes). A command that could write one could plant code that the
// user's other projects run. So the jail never lets a command change a
// cache: where the system allows it, the command writes to a private
// layer over it, which the session keeps and removes when it ends (see
// overlayCaches and layerStore); elsewhere it finds the cache read-only
// and works with a private one named by Var.
type Cache struct {
	// Path is the directory, absolute and symbolic-link free.
	Path string `json:"path"`
	// Var is the environment variable that points programs at another
	// directory instead.
	Var string `json:"var"`
}

// SharedCaches returns the caches a confined command may write through a
// private layer: the user's cache directory, the Go build and module
// caches and npm's. A cache that does not exist yet is listed too: a
// command that needs it gets a private one.
func SharedCaches() []Cache {
	var out []Cache
	add := func(path, v string) {
		if !filepath.IsAbs(path) {
			return
		}
		c := Cache{Path: resolve(path), Var: v}
		if !slices.ContainsFunc(out, func(o Cache) bool { return o.Path == c.Path }) {
			out = append(out, c)
		}
	}
	home, _ := os.UserHomeDir()
	cache, err := os.UserCacheDir()
	if err == nil {
		add(cache, "XDG_CACHE_HOME")
	}
	// `go env` would be exact but costs a process; the variables and
	// defaults cover every setup but `go env -w GOCACHE=…`.
	if v := os.Getenv("GOCACHE"); v != "" && v != "off" {
		add(v, "GOCACHE")
	} else if err == nil {
		add(filepath.Join(cache, "go-build"), "GOCACHE")
	}
	if v := os.Getenv("GOMODCACHE"); v != "" {
		add(v, "GOMODCACHE")
	} else if gp := filepath.SplitList(os.Getenv("GOPATH")); len(gp) > 0 && gp[0] != "" {
		add(filepath.Join(gp[0], "pkg", "mod"), "GOMODCACHE")
	} else if home != "" {
		add(filepath.Join(home, "go", "pkg", "mod"), "GOMODCACHE")
	}
	if v := os.Getenv("npm_config_cache"); v != "" {
		add(v, "npm_config_cache")
	} else if home != "" {
		add(filepath.Join(home, ".npm"), "npm_config_cache")
	}
	return out
}

// caches returns the caches the jail keeps from change, parents first: all
// but those that hold a directory the command may write anyway (a
// workspace opened inside the module cache is the user's to change) or lie
// in a forbidden path.
func (j *Jail) caches(write, forbid []string) []Cache {
	var out []Cache
	for _, c := range j.Caches {
		if slices.ContainsFunc(write, func(w string) bool { return within(w, c.Path) }) ||
			slices.ContainsFunc(forbid, func(f string) bool { return within(c.Path, f) }) {
			continue
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Cache) int { return len(a.Path) - len(b.Path) })
	return out
}
