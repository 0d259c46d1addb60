package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// Review by symbol. Each pending hunk belongs to the declaration that
// encloses its lines in the language server's outline of the user's text
// ("func Add"), and the project graph says who depends on that
// declaration: its call sites, or its references where the server has no
// call hierarchy for it. The proposal's diagnostic says so ("changes func
// Add — 2 callers in 2 files", the call sites as related information),
// and the hunks of one declaration — those inside it, and those elsewhere
// whose lines hold one of its call sites, as a rename's or a signature
// change's do — are accepted or rejected together by one code action.
//
// The graph is asked when proposals are published, in the background and
// within impactWait: the diagnostics go out at once, without the impact,
// and again with it once it is known. An answer holds for the texts it
// was found in; a file whose text or hunks changed is asked about again.
// The call sites of a declaration in other files are where they were when
// it was asked: a hunk there found by them may have moved since, which
// costs a missed member of a group, never a wrong edit (hunks are found
// again by their text when taken).

// impactWait bounds one question to the project graph about a file's
// changed declarations. It runs beside the turn, never in it, so it can
// afford a language server's first load of a small project.
const impactWait = 20 * time.Second

// impactState holds what the project graph said about the declarations
// the pending proposals change.
type impactState struct {
	mu sync.Mutex // guards byPath and asking
	// byPath holds, by file, the declarations its hunks fall in, as found
	// in the user's text of key.
	byPath map[string]fileImpact
	// asking holds the key of each file the graph is being asked about.
	asking map[string]string
}

// A fileImpact is the graph's answer about one file's hunks.
type fileImpact struct {
	key     string // the user's text and the hunks' lines it was found for
	impacts []tools.SymbolImpact
}

// proposedHunk reports whether h takes part in a review by symbol: a
// proposed change of an existing file's lines, not stale. Changes a shell
// command made and whole-file changes are reviewed one by one.
func proposedHunk(f review.File, h *review.Hunk) bool {
	return f.Kind == review.Edit && !h.Applied && !h.Stale && !h.Delete
}

// hunkSpan is the lines of cur (1-based) a hunk replaces, or the line an
// insertion goes before.
func hunkSpan(cur string, h *review.Hunk) tools.LineSpan {
	start := review.Line(cur, h.Start) + 1
	end := start
	if h.End > h.Start {
		end = review.Line(cur, h.End-1) + 1
	}
	return tools.LineSpan{Start: start, End: end}
}

func within(sp, outer tools.LineSpan) bool {
	return outer.Start <= sp.Start && sp.End <= outer.End
}

// impactKey identifies what an answer about f is valid for.
func impactKey(cur string, f review.File) (string, []tools.LineSpan) {
	var spans []tools.LineSpan
	var b strings.Builder
	for _, h := range f.Hunks {
		if proposedHunk(f, h) {
			sp := hunkSpan(cur, h)
			spans = append(spans, sp)
			fmt.Fprintf(&b, "%d-%d,", sp.Start, sp.End)
		}
	}
	b.WriteString("\n")
	b.WriteString(cur)
	return b.String(), spans
}

// impactsOf returns what the graph said about the declarations f's hunks
// fall in, for the user's text cur; when it has not answered for that
// text, it asks in the background (unless ask is false) and returns nil:
// the answer publishes path's proposals again.
func (s *Server) impactsOf(path, cur string, f review.File, ask bool) []tools.SymbolImpact {
	key, spans := impactKey(cur, f)
	st := &s.review.impact
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(spans) == 0 {
		delete(st.byPath, path) // nothing of it left to group
		return nil
	}
	if fi, ok := st.byPath[path]; ok && fi.key == key {
		return fi.impacts
	}
	if !ask || st.asking[path] == key {
		return nil
	}
	g := s.impactFinder(path)
	if g == nil {
		return nil
	}
	if st.asking == nil {
		st.asking, st.byPath = map[string]string{}, map[string]fileImpact{}
	}
	st.asking[path] = key
	go s.askImpact(g, path, key, spans)
	return nil
}

// impactFinder returns the project graph of the workspace already built
// for path, if it has one.
func (s *Server) impactFinder(path string) tools.ImpactFinder {
	s.mu.Lock()
	w := s.spaces[s.rootFor(path)]
	s.mu.Unlock()
	if w == nil || w.agent == nil || w.agent.Env == nil {
		return nil
	}
	g, _ := w.agent.Env.Graph.(tools.ImpactFinder)
	return g
}

// askImpact asks the graph about path's changed declarations in the
// user's texts of every file with proposals, keeps the answer, and
// publishes path's proposals with it. An error or a timeout leaves the
// impact unknown: the diagnostics stay without it.
func (s *Server) askImpact(g tools.ImpactFinder, path, key string, spans []tools.LineSpan) {
	ctx, cancel := context.WithTimeout(s.ctx, impactWait)
	defer cancel()
	texts := map[string]string{}
	for _, p := range s.review.Paths() {
		if t, err := s.userText(p); err == nil {
			texts[p] = t
		}
	}
	impacts, err := g.Impacts(ctx, texts, path, spans)
	st := &s.review.impact
	st.mu.Lock()
	if st.asking[path] == key {
		delete(st.asking, path)
	}
	if err == nil {
		st.byPath[path] = fileImpact{key: key, impacts: impacts}
	}
	st.mu.Unlock()
	if err != nil {
		s.log.Debug("finding what a proposal changes", "path", path, "err", err)
		return
	}
	s.publishProposals(s.ctx, path)
}

// impactOfHunk returns the innermost declaration of impacts holding h.
func impactOfHunk(impacts []tools.SymbolImpact, sp tools.LineSpan) (tools.SymbolImpact, bool) {
	var best tools.SymbolImpact
	found := false
	for _, imp := range impacts {
		if within(sp, imp.Lines) && (!found || within(imp.Lines, best.Lines)) {
			best, found = imp, true
		}
	}
	return best, found
}

// impactSummary says what a change to a declaration reaches: "changes
// func Add — 2 callers in 2 files".
func impactSummary(imp tools.SymbolImpact) string {
	noun := "caller"
	if imp.References {
		noun = "reference"
	}
	n := len(imp.Callers)
	if n == 0 {
		return fmt.Sprintf("changes %s — no %ss", imp.Symbol, noun)
	}
	var files []string
	for _, c := range imp.Callers {
		if !slices.Contains(files, c.Path) {
			files = append(files, c.Path)
		}
	}
	return fmt.Sprintf("changes %s — %s in %s", imp.Symbol, plural(n, noun), plural(len(files), "file"))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// maxRelated bounds the call sites a proposal's diagnostic points to; the
// summary counts them all.
const maxRelated = 20

// addImpact adds to the diagnostics of f's hunks (diags[i] is hunk i's)
// what the declaration each changes reaches, where the graph has said.
func (s *Server) addImpact(path, cur string, f review.File, diags []protocol.Diagnostic, enc wire.Encoding) {
	impacts := s.impactsOf(path, cur, f, true)
	if len(impacts) == 0 {
		return
	}
	texts := map[string]string{path: cur}
	for i, h := range f.Hunks {
		if !proposedHunk(f, h) {
			continue
		}
		imp, ok := impactOfHunk(impacts, hunkSpan(cur, h))
		if !ok {
			continue
		}
		verb := "calls "
		if imp.References {
			verb = "refers to "
		}
		d := &diags[i]
		d.Message = protocol.String(messageText(d.Message) + "\n" + impactSummary(imp))
		for _, c := range imp.Callers[:min(len(imp.Callers), maxRelated)] {
			r, ok := s.placeRange(texts, c, enc)
			if !ok {
				continue
			}
			d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: protocol.Location{URI: uri.File(c.Path), Range: r},
				Message:  verb + imp.Symbol,
			})
		}
	}
}

// messageText returns a diagnostic message as text.
func messageText(m any) string {
	switch m := m.(type) {
	case protocol.String:
		return string(m)
	case string:
		return m
	}
	return fmt.Sprint(m)
}

// placeRange is the empty range at p in the user's text of its file
// (texts caches the texts read).
func (s *Server) placeRange(texts map[string]string, p tools.Place, enc wire.Encoding) (protocol.Range, bool) {
	t, ok := texts[p.Path]
	if !ok {
		var err error
		if t, err = s.userText(p.Path); err != nil {
			return protocol.Range{}, false
		}
		texts[p.Path] = t
	}
	off := lineStart(t, p.Line-1)
	for col := 1; col < p.Column && off < len(t) && t[off] != '\n'; col++ {
		_, size := utf8.DecodeRuneInString(t[off:])
		off += size
	}
	pos := wire.Position(t, off, enc)
	return protocol.Range{Start: pos, End: pos}, true
}

// A symbolGroup is the pending hunks that change one declaration.
type symbolGroup struct {
	symbol string
	hunks  []hunkData
}

func (g symbolGroup) has(u string, id int) bool {
	return slices.ContainsFunc(g.hunks, func(h hunkData) bool { return h.URI == u && h.Hunk == id })
}

// pendingHunks is one file's proposal, its hunks found in the user's text.
type pendingHunks struct {
	path, uri, cur string
	file           review.File
}

// symbolGroups groups the pending hunks by the declaration they change,
// from what the graph has said about the files' texts now: a group holds
// the hunks inside the declaration and those whose lines hold one of its
// call sites. Only groups of more than one hunk are returned.
func (s *Server) symbolGroups() []symbolGroup {
	var files []pendingHunks
	for _, p := range s.review.Paths() {
		cur, err := s.userText(p)
		if err != nil {
			continue
		}
		if f, ok := s.review.Pending(p, cur); ok {
			files = append(files, pendingHunks{path: p, uri: string(uri.File(p)), cur: cur, file: f})
		}
	}
	var impacts []tools.SymbolImpact
	for _, pf := range files {
		impacts = append(impacts, s.impactsOf(pf.path, pf.cur, pf.file, false)...)
	}
	return groupHunks(files, impacts)
}

// groupHunks groups the proposed hunks of files by the declarations of
// impacts (see symbolGroups).
func groupHunks(files []pendingHunks, impacts []tools.SymbolImpact) []symbolGroup {
	var out []symbolGroup
	for _, imp := range impacts {
		g := symbolGroup{symbol: imp.Symbol}
		for _, pf := range files {
			for _, h := range pf.file.Hunks {
				if !proposedHunk(pf.file, h) {
					continue
				}
				sp := hunkSpan(pf.cur, h)
				in := pf.path == imp.Path && within(sp, imp.Lines)
				for _, c := range imp.Callers {
					in = in || c.Path == pf.path && sp.Start <= c.Line && c.Line <= sp.End
				}
				if in {
					g.hunks = append(g.hunks, hunkData{URI: pf.uri, Hunk: h.ID})
				}
			}
		}
		if len(g.hunks) > 1 {
			out = append(out, g)
		}
	}
	return out
}

// symbolActions returns the code actions accepting and rejecting, in one
// go, the hunks of each group holding hunk id of the document u, skipping
// the symbols offered already.
func symbolActions(groups []symbolGroup, u string, id int, offered map[string]bool, action func(title, command string, args hunkData)) {
	for _, g := range groups {
		if offered[g.symbol] || !g.has(u, id) {
			continue
		}
		offered[g.symbol] = true
		action("Accept all changes to "+g.symbol, cmdReviewAccept, hunkData{URI: u, Hunks: g.hunks})
		action("Reject all changes to "+g.symbol, cmdReviewReject, hunkData{URI: u, Hunks: g.hunks})
	}
}

// acceptHunks applies hunks of several files as one workspace edit: all
// of them, or, when one is stale or the editor refuses the edit, none.
func (s *Server) acceptHunks(ctx context.Context, hunks []hunkData) (reviewResult, error) {
	paths, ids, err := s.byFile(hunks)
	if err != nil {
		return reviewResult{}, err
	}
	var taken []*review.Taken
	restore := func() {
		for _, t := range taken {
			t.Restore()
		}
		for _, p := range paths {
			s.publishProposals(ctx, p)
		}
	}
	var changes []tools.Change
	for _, p := range paths {
		cur, err := s.userText(p)
		if err == nil {
			err = s.checkReviewWrite(p)
		}
		var t *review.Taken
		if err == nil {
			t, err = s.review.TakeHunks(p, cur, ids[p])
		}
		if err != nil {
			restore()
			return reviewResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "cannot accept: "+err.Error())
		}
		taken = append(taken, t)
		changes = append(changes, tools.Change{Kind: tools.Write, Path: p, Content: []byte(t.Text)})
	}
	if err := (&editorFS{s: s}).apply(ctx, changes); err != nil {
		restore()
		return reviewResult{}, jsonrpc2.NewError(jsonrpc2.InternalError, "the changes were not applied, and are still proposed: "+err.Error())
	}
	res := reviewResult{Hunks: len(hunks)}
	for _, p := range paths {
		// The user's own change, as accepting one hunk is.
		if ws, err := s.workspaceFor(p); err == nil && ws.agent.Env != nil {
			ws.agent.Env.Control.Accept(p)
		}
		s.publishProposals(ctx, p)
		res.Pending += s.pendingCount(p)
	}
	return res, nil
}

// rejectHunks drops hunks of several files; the sessions that proposed
// them are told at their next turn.
func (s *Server) rejectHunks(ctx context.Context, hunks []hunkData) (reviewResult, error) {
	paths, ids, err := s.byFile(hunks)
	if err != nil {
		return reviewResult{}, err
	}
	res := reviewResult{}
	for _, p := range paths {
		cur, err := s.userText(p)
		for _, id := range ids[p] {
			if err != nil {
				break
			}
			var n int
			n, err = s.review.Reject(p, cur, id)
			res.Hunks += n
		}
		s.review.forgetNewErrors(p)
		s.publishProposals(ctx, p)
		if err != nil {
			return res, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "cannot reject: "+err.Error())
		}
		res.Pending += s.pendingCount(p)
	}
	return res, nil
}

// byFile sorts hunks by file, in their order.
func (s *Server) byFile(hunks []hunkData) ([]string, map[string][]int, error) {
	var paths []string
	ids := map[string][]int{}
	for _, h := range hunks {
		p := pathOf(uri.URI(h.URI))
		if p == "" || h.Hunk == 0 {
			return nil, nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "each of hunks needs the uri of a file and a hunk")
		}
		if _, ok := ids[p]; !ok {
			paths = append(paths, p)
		}
		if !slices.Contains(ids[p], h.Hunk) {
			ids[p] = append(ids[p], h.Hunk)
		}
	}
	return paths, ids, nil
}
