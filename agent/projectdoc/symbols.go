package projectdoc

import (
	"context"
	"fmt"
	"go/token"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reasonix/reasonix/tools"
)

// The declarations the draft names come from a language server's outline
// of a few files that matter: the Go packages the draft lists, and the
// main modules of the other languages a server knows. A server may be
// cold (a first start loads the whole workspace), so the asking is
// bounded twice: by the files asked about and by one wait for the whole
// draft. What has not answered when the wait ends is left out, and for Go
// the types go/parser found stay; with the same answers the draft is the
// same.

// DefaultSymbolWait bounds the time a draft waits for a language server:
// long enough for a warm server to answer every file, short enough that
// /init on a project whose server is still loading does not keep the user
// waiting.
const DefaultSymbolWait = 10 * time.Second

// Bounds on the files asked about.
const (
	maxPackageFiles = 6  // of one Go package
	maxSymbolFiles  = 48 // of all Go packages
	maxModules      = 12 // main modules of other languages
	symbolWorkers   = 4  // questions in flight at once
)

// typeKinds are the kinds of symbol a Go server reports for a type
// declaration (gopls calls a type neither struct nor interface a class).
var typeKinds = []string{"struct", "interface", "class", "enum", "type parameter"}

// moduleExts are the extensions of the modules whose declarations the
// draft names.
var moduleExts = []string{".py", ".ts", ".tsx", ".mts", ".js", ".mjs"}

// isMainModule reports whether a file is a candidate main module: at most
// two directories deep, a package's __init__.py, a main or index file, or
// a file named as its directory ("calc/calc.py"); not in tests, testdata
// or node_modules, and not a TypeScript declaration file.
func isMainModule(rel string) bool {
	dir, name := path.Split(rel)
	ext := path.Ext(name)
	if !slices.Contains(moduleExts, ext) || strings.HasSuffix(name, ".d.ts") || strings.Count(rel, "/") > 2 {
		return false
	}
	parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	for _, d := range parts {
		if d == "node_modules" || d == "testdata" || d == "tests" || d == "test" || d == "__tests__" {
			return false
		}
	}
	stem := strings.TrimSuffix(name, ext)
	switch {
	case name == "__init__.py", stem == "main", stem == "index":
		return true
	}
	return dir != "" && stem == parts[len(parts)-1]
}

// symbolFiles are the files to ask the server about, in the order they
// are asked: the listed Go packages' files, then the main modules, the
// shallowest first.
func (p *project) symbolFiles() []string {
	var out []string
	dirs := p.packageDirs()
	for _, d := range dirs[:min(len(dirs), maxPackages)] {
		for _, f := range goFilesToAsk(d, p.pkgs[d]) {
			if len(out) == maxSymbolFiles {
				break
			}
			out = append(out, path.Join(d, f))
		}
	}
	mods := slices.SortedFunc(slices.Values(p.modules), shallowFirst)
	return append(out, mods[:min(len(mods), maxModules)]...)
}

// goFilesToAsk are the files of a Go package to ask about, at most
// maxPackageFiles: the one named as the package or its directory and
// doc.go first, where its main declarations usually are, then by name.
func goFilesToAsk(dir string, pkg *goPackage) []string {
	first := []string{pkg.name + ".go", path.Base(dir) + ".go", "doc.go"}
	rank := func(f string) int {
		if i := slices.Index(first, f); i >= 0 {
			return i
		}
		return len(first)
	}
	files := slices.SortedFunc(maps.Keys(pkg.files), func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return files[:min(len(files), maxPackageFiles)]
}

// ask asks lister about files (slash-separated, under root), a few at a
// time, all within wait. A file whose answer is an error, or that has not
// answered when the wait ends, is absent from the result.
func ask(ctx context.Context, lister tools.DeclarationLister, root string, files []string, wait time.Duration) map[string][]tools.Declaration {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var mu sync.Mutex // guards out
	out := map[string][]tools.Declaration{}
	next := make(chan string)
	var wg sync.WaitGroup
	for range min(symbolWorkers, len(files)) {
		wg.Go(func() {
			for f := range next {
				decls, err := lister.Declarations(ctx, filepath.Join(root, filepath.FromSlash(f)))
				if err != nil {
					continue
				}
				mu.Lock()
				out[f] = decls
				mu.Unlock()
			}
		})
	}
feed:
	for _, f := range files {
		select {
		case next <- f:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return out
}

// goDeclarations are a Go package's exported types and functions: for each
// file the server answered for, the types and functions it reported; for
// the others, the types go/parser found. complete says whether the server
// answered for every file, so that the functions are all of them.
func (p *project) goDeclarations(dir string, pkg *goPackage) (types, funcs []string, complete bool) {
	complete = true
	for name, parsed := range pkg.files {
		decls, ok := p.decls[path.Join(dir, name)]
		if !ok {
			types = append(types, parsed...)
			complete = false
			continue
		}
		for _, d := range decls {
			switch {
			case !token.IsExported(d.Name):
			case slices.Contains(typeKinds, d.Kind):
				types = append(types, d.Name)
			case d.Kind == "function":
				funcs = append(funcs, d.Name)
			}
		}
	}
	return types, funcs, complete
}

// moduleLines lists the main modules the server answered for, the
// shallowest first, with their top-level classes and functions; names
// Python keeps private (a leading underscore) are left out, and so are
// modules that declare nothing else.
func (p *project) moduleLines() []string {
	var out []string
	for _, f := range slices.SortedFunc(maps.Keys(p.decls), shallowFirst) {
		if strings.HasSuffix(f, ".go") {
			continue
		}
		var classes, funcs []string
		for _, d := range p.decls[f] {
			if strings.HasSuffix(f, ".py") && strings.HasPrefix(d.Name, "_") {
				continue
			}
			switch d.Kind {
			case "class":
				classes = append(classes, d.Name)
			case "function":
				funcs = append(funcs, d.Name)
			}
		}
		if line := names(" Classes", classes, true) + names(" Functions", funcs, true); line != "" {
			out = append(out, fmt.Sprintf("`%s`%s", f, line))
		}
	}
	return out // at most maxModules: no other files are asked about
}
