package graph

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// A symbol is a declaration a server's workspace/symbol returned, with
// what ranking needs.
type symbol struct {
	srv       *server
	name      string // as the server gave it ("calc.Calc.Add" from gopls)
	short     string // the last segment ("Add")
	qualifier string // the segments before it ("calc.Calc")
	container string
	kind      protocol.SymbolKind
	path      string
	rng       protocol.Range

	rank rank
}

// A rank orders symbols for a query: lower is better, field by field.
type rank struct {
	foreign bool // the query names a qualifier this symbol does not have
	name    int  // 0 exact, 1 exact but for case, 2 prefix, 3 prefix but for case, 4 contains, 5 fuzzy
	qual    int  // 0 the qualifier is the symbol's parent, 1 so but for case, 2 further up, 3 none asked
	depth   int  // how deeply nested: a function before a method or field of the same name
	outside bool // outside the workspace root
}

func (a rank) less(b rank) bool {
	if a.foreign != b.foreign {
		return !a.foreign
	}
	if a.name != b.name {
		return a.name < b.name
	}
	if a.qual != b.qual {
		return a.qual < b.qual
	}
	if a.depth != b.depth {
		return a.depth < b.depth
	}
	return !a.outside && b.outside
}

// findSymbols asks the servers for declarations matching query ("Name",
// "pkg.Name", "Type.Method") and returns them best first. Servers that
// are not installed are skipped, and named in missing; when every server
// failed, the first failure is returned.
func (m *Manager) findSymbols(ctx context.Context, src *source, sups []*supervisor, query string) (syms []*symbol, missing []string, err error) {
	qual, name := splitQuery(query)
	var mu sync.Mutex // guards syms, missing and errs
	var errs []error
	var wg sync.WaitGroup
	for _, sv := range sups {
		wg.Go(func() {
			var found []*symbol
			err := m.withServer(ctx, sv, func(s *server) error {
				if err := s.sync(ctx, src, s.anchor()); err != nil {
					return err
				}
				// Servers differ in what a qualified query matches; the
				// bare name finds the candidates, ranking judges them.
				queries := []string{query}
				if qual != "" {
					queries = append(queries, name)
				}
				found = nil
				for _, q := range queries {
					res, err := s.symbols(ctx, q)
					if err != nil {
						return err
					}
					found = append(found, res...)
				}
				if qual != "" {
					return s.fillContainers(ctx, src, found)
				}
				return nil
			})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case isMissing(err):
				missing = append(missing, err.Error())
			case err != nil:
				errs = append(errs, err)
			default:
				syms = append(syms, found...)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if len(syms) == 0 && len(errs) > 0 {
		return nil, missing, errs[0]
	}
	if len(syms) == 0 && len(missing) > 0 && len(missing) == len(sups) {
		return nil, missing, fmt.Errorf("%s", strings.Join(missing, "; "))
	}
	for _, sym := range syms {
		sym.path = m.local(sym.path)
		sym.rank = rankSymbol(sym, qual, name)
		sym.rank.outside = !within(m.root, sym.path) && !within(m.realRoot, sym.path)
	}
	syms = dedupe(syms)
	slices.SortStableFunc(syms, func(a, b *symbol) int {
		switch {
		case a.rank.less(b.rank):
			return -1
		case b.rank.less(a.rank):
			return 1
		}
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return int(a.rng.Start.Line) - int(b.rng.Start.Line)
	})
	// Fuzzy matches are noise when anything better exists.
	if len(syms) > 0 && syms[0].rank.name < 5 {
		syms = slices.DeleteFunc(syms, func(s *symbol) bool { return s.rank.name == 5 })
	}
	return syms, missing, nil
}

// youth is how long after its start a server that has not found any
// symbol yet may still be indexing: pyright answers workspace/symbol
// before it has read the workspace.
const youth = 30 * time.Second

// symbols runs workspace/symbol. An empty answer from a young server that
// has found nothing yet is checked against a name declared in a file it
// does not have open (open files are indexed first); while that is not
// found either, the server is still indexing, and the question is asked
// again, for a few seconds at most.
func (s *server) symbols(ctx context.Context, query string) ([]*symbol, error) {
	for delay := 50 * time.Millisecond; ; delay *= 2 {
		out, err := s.symbolsOnce(ctx, query)
		if err != nil || len(out) > 0 || s.symbolsSeen.Load() || time.Since(s.started) > youth || delay > 2*time.Second {
			return out, err
		}
		probe, ok := s.knownName(ctx)
		if !ok {
			return out, nil // nothing to check against
		}
		if probe != "" {
			if found, err := s.symbolsOnce(ctx, probe); err != nil || len(found) > 0 {
				// Indexed, at the latest by reading the file for the probe:
				// this answer is the real one.
				return s.symbolsOnce(ctx, query)
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

var identRE = regexp.MustCompile(`^[\pL_$][\pL\pN_$]*$`)

// knownName returns the name of a declaration in a file the server does
// not have open: "" while the server has read none of them, and ok false
// when there is no such file to ask about.
func (s *server) knownName(ctx context.Context) (name string, ok bool) {
	s.syncMu.Lock()
	var closed []string
	for _, p := range findFiles(s.root, s.cfg, 8) {
		if _, open := s.docs[p]; !open {
			closed = append(closed, p)
		}
	}
	s.syncMu.Unlock()
	if len(closed) == 0 {
		return "", false
	}
	for _, p := range closed[:min(len(closed), 3)] {
		res, err := s.documentSymbols(ctx, p)
		if err != nil {
			continue
		}
		for _, d := range topLevel(res) {
			if identRE.MatchString(d.Name) {
				return d.Name, true
			}
		}
	}
	return "", true
}

func (s *server) symbolsOnce(ctx context.Context, query string) ([]*symbol, error) {
	var res protocol.WorkspaceSymbolResult
	if err := s.call(ctx, "workspace/symbol", &protocol.WorkspaceSymbolParams{Query: query}, &res); err != nil {
		return nil, fmt.Errorf("%s: workspace/symbol: %w", s.name, err)
	}
	s.warm.Store(true)
	var out []*symbol
	add := func(b protocol.BaseSymbolInformation, loc protocol.Location) {
		sym := &symbol{srv: s, name: b.Name, kind: b.Kind, path: filepath.Clean(loc.URI.FsPath()), rng: loc.Range}
		if b.ContainerName != nil {
			sym.container = *b.ContainerName
		}
		sym.qualifier, sym.short = splitQuery(b.Name)
		out = append(out, sym)
	}
	switch r := res.(type) {
	case protocol.SymbolInformationSlice:
		for _, si := range r {
			add(si.BaseSymbolInformation, si.Location)
		}
	case protocol.WorkspaceSymbolSlice:
		for _, ws := range r {
			switch l := ws.Location.(type) {
			case *protocol.Location:
				add(ws.BaseSymbolInformation, *l)
			case *protocol.LocationUriOnly:
				add(ws.BaseSymbolInformation, protocol.Location{URI: l.URI})
			}
		}
	}
	if len(out) > 0 {
		s.symbolsSeen.Store(true)
	}
	return out, nil
}

// splitQuery splits "pkg.Type.Name" into "pkg.Type" and "Name". A name
// ending in "()" (a model writing a call) loses the parentheses.
func splitQuery(q string) (qual, name string) {
	q = strings.TrimSuffix(strings.TrimSpace(q), "()")
	if i := strings.LastIndexByte(q, '.'); i > 0 && i < len(q)-1 {
		return q[:i], q[i+1:]
	}
	return "", q
}

// rankSymbol ranks a symbol for a query split by splitQuery.
func rankSymbol(s *symbol, qual, name string) rank {
	var r rank
	short := s.short
	switch {
	case short == name:
		r.name = 0
	case strings.EqualFold(short, name):
		r.name = 1
	case strings.HasPrefix(short, name):
		r.name = 2
	case strings.HasPrefix(strings.ToLower(short), strings.ToLower(name)):
		r.name = 3
	case strings.Contains(strings.ToLower(short), strings.ToLower(name)):
		r.name = 4
	default:
		r.name = 5
	}
	// The symbol's parents: what the server put before its name (gopls:
	// "calc.Calc"), else the container (a class, a package path).
	chain := s.qualifier
	if chain == "" {
		chain = s.container
	} else if s.container != "" && !strings.HasSuffix(s.container, chain) {
		chain = s.container + "." + chain
	}
	r.depth = strings.Count(s.qualifier, ".")
	if s.qualifier != "" {
		r.depth++
	} else if s.container != "" || member(s.kind) {
		r.depth = 1
	}
	r.qual = 3
	if qual == "" {
		return r
	}
	// In Python and TypeScript a module's declarations are qualified by
	// the file, which the server may leave out.
	chains := []string{chain}
	if file := strings.TrimSuffix(filepath.Base(s.path), filepath.Ext(s.path)); chain == "" {
		chains = append(chains, file)
	} else {
		chains = append(chains, file+"."+chain)
	}
	r.foreign = true
	for _, c := range chains {
		lc, lq := strings.ToLower(c), strings.ToLower(qual)
		q := 3
		switch {
		case endsWith(c, qual):
			q = 0
		case endsWith(lc, lq):
			q = 1
		case matchesChain(lc, lq):
			q = 2
		default:
			continue
		}
		r.foreign = false
		r.qual = min(r.qual, q)
	}
	return r
}

// endsWith reports whether qual names the end of chain by whole elements:
// "calc" ends "example.com/calc" and "calc.Calc" ends "calc.Calc", but
// "alc" ends neither.
func endsWith(chain, qual string) bool {
	return chain == qual || strings.HasSuffix(chain, "."+qual) || strings.HasSuffix(chain, "/"+qual)
}

// matchesChain is endsWith allowing the chain's last elements to be
// skipped: "calc" for a method of calc.Calc, as in the query "calc.Add".
func matchesChain(chain, qual string) bool {
	for {
		if endsWith(chain, qual) {
			return true
		}
		i := strings.LastIndexByte(chain, '.')
		if i <= 0 {
			return false
		}
		chain = chain[:i]
	}
}

// dedupe drops repeated symbols (the same declaration found by two
// queries).
func dedupe(syms []*symbol) []*symbol {
	type key struct {
		path      string
		line, col uint32
		name      string
	}
	seen := map[key]bool{}
	return slices.DeleteFunc(syms, func(s *symbol) bool {
		k := key{s.path, s.rng.Start.Line, s.rng.Start.Character, s.short}
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

// namePosition returns where the symbol's name is: servers give either
// the name's range or the whole declaration's, and requests about the
// symbol must point at the name.
func (sym *symbol) namePosition(src *source) protocol.Position {
	t := src.text(sym.path)
	if t == nil {
		return sym.rng.Start
	}
	start, err := t.Offset(sym.rng.Start, sym.srv.enc)
	if err != nil {
		return sym.rng.Start
	}
	end, err := t.Offset(sym.rng.End, sym.srv.enc)
	if err != nil || end <= start {
		end = min(start+4096, len(t.String()))
	}
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(sym.short) + `\b`)
	if loc := re.FindStringIndex(t.String()[start:end]); loc != nil {
		return t.Position(start+loc[0], sym.srv.enc)
	}
	return sym.rng.Start
}

// member reports whether a kind of symbol is always declared inside
// another (a class or type).
func member(k protocol.SymbolKind) bool {
	switch k {
	case protocol.SymbolKindMethod, protocol.SymbolKindProperty, protocol.SymbolKindField,
		protocol.SymbolKindConstructor, protocol.SymbolKindEnumMember:
		return true
	}
	return false
}

// maxOutlines bounds the files fillContainers asks about.
const maxOutlines = 10

// fillContainers finds the container of members a server reported without
// one (typescript-language-server never says), from the outline of their
// files, so that "Calc.add" can be told from a function add.
func (s *server) fillContainers(ctx context.Context, src *source, syms []*symbol) error {
	var files []string
	for _, sym := range syms {
		if sym.container == "" && sym.qualifier == "" && member(sym.kind) && !slices.Contains(files, sym.path) && len(files) < maxOutlines {
			files = append(files, sym.path)
		}
	}
	if len(files) == 0 {
		return nil
	}
	if err := s.sync(ctx, src, files); err != nil {
		return err
	}
	for _, f := range files {
		outline, err := s.outline(ctx, f)
		if err != nil {
			return err
		}
		for _, sym := range syms {
			if sym.path == f && sym.container == "" && member(sym.kind) {
				sym.container = parentOf(outline, sym.rng.Start, "")
			}
		}
	}
	return nil
}

// outline returns a file's symbols as a tree: nil when the server
// refuses, or gives a flat list, which has no parents to tell.
func (s *server) outline(ctx context.Context, path string) ([]protocol.DocumentSymbol, error) {
	res, err := s.documentSymbols(ctx, path)
	tree, _ := res.(protocol.DocumentSymbolSlice)
	return tree, err
}

// documentSymbols runs textDocument/documentSymbol: a tree or a flat
// list, nil when the server refuses.
func (s *server) documentSymbols(ctx context.Context, path string) (protocol.DocumentSymbolResult, error) {
	var res protocol.DocumentSymbolResult
	err := s.call(ctx, "textDocument/documentSymbol", &protocol.DocumentSymbolParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
	}, &res)
	if err != nil {
		if refusal(err) {
			return nil, nil
		}
		return nil, err
	}
	return res, nil
}

// parentOf returns the name of the symbol enclosing the declaration whose
// name or range starts at pos.
func parentOf(outline []protocol.DocumentSymbol, pos protocol.Position, parent string) string {
	for _, d := range outline {
		if d.SelectionRange.Start == pos || d.Range.Start == pos {
			return parent
		}
		if inRange(d.Range, pos) {
			if p := parentOf(d.Children, pos, d.Name); p != "" {
				return p
			}
		}
	}
	return ""
}

func inRange(r protocol.Range, p protocol.Position) bool {
	after := p.Line > r.Start.Line || (p.Line == r.Start.Line && p.Character >= r.Start.Character)
	before := p.Line < r.End.Line || (p.Line == r.End.Line && p.Character <= r.End.Character)
	return after && before
}
