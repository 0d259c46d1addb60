package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/lsp/review"
	"github.com/reasonix/reasonix/tools"
)

// In propose mode (review = "propose") the agent's changes do not reach
// the buffers: they wait in the server's review.Store, one proposal a
// file, and every editor shows them with plain LSP. Each hunk is a
// diagnostic (source "reasonix") whose code actions accept or reject it;
// accepting sends a versioned workspace edit of that hunk alone. The
// agent meanwhile reads its own proposed text, so a multi-step turn stays
// coherent, and the next turn of the session is told what the user
// rejected.
//
// Files a shell command changed are on disk already; they join the review
// as applied hunks (recordShellChange): accepting one keeps it, rejecting
// one puts back the text it replaced. A file a command created or deleted
// is one applied hunk: rejecting it removes the file, or creates it again.
// The agent reads them from the disk like any file.

// Review modes, the values of the review setting.
const (
	reviewApply   = "apply"
	reviewPropose = "propose"
)

// reviewModeFor resolves the review setting for this client: what the
// configuration says, else apply for a client with a review panel of its
// own and propose for the others.
func (s *Server) reviewModeFor(configured string) string {
	if configured != "" {
		return configured
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.caps.reviewPanel {
		return reviewApply
	}
	return reviewPropose
}

// reviewState is the review mode of one connection: the review setting of
// each workspace, the proposals pending (the embedded review.Store, which
// locks itself), and what the server keeps about them between a turn, a
// shell command and the user's answers. The Server owns one; everything
// about proposals goes through it, not through Server.mu.
type reviewState struct {
	*review.Store

	// publishMu serialises publishProposals: each reads the proposals and
	// sends them under it, so what the editor gets last is the latest
	// state, not whichever of two racing sends came second (an edit that
	// settles a proposal, and the editor's report of that edit).
	publishMu sync.Mutex

	// mu guards modes, declinedGen, shellBases, newErrors and tests. It is a
	// leaf: nothing is called while it is held, so it may be taken under
	// Server.mu.
	mu sync.Mutex
	// modes holds the review setting of each workspace root as its latest
	// build resolved it: sessions keep the agent they started with, but a
	// changed setting applies to their next edit.
	modes map[string]string
	// declinedGen is the generation of the proposals the user chose to
	// run a command without (0: none).
	declinedGen int
	// shellBases is the disk text of the files with proposed changes just
	// before the last shell command (noteShellBases).
	shellBases map[string]string
	// newErrors holds, by file, the errors the last turn's check left in
	// the proposed text of files with pending proposals: they are shown
	// with the proposals (publishProposals).
	newErrors map[string][]tools.Diagnostic
	// tests holds, by file, what the last turn's run of the tests that
	// reach its changes said of accepting them ("TestAdd passes if
	// accepted"), for the files with pending proposals.
	tests map[string]string

	// impact is what the project graph said about the declarations the
	// proposals change (review_symbols.go).
	impact impactState
}

func newReviewState() *reviewState {
	return &reviewState{Store: review.NewStore(), modes: map[string]string{}}
}

// setMode records the review setting a build of the workspace at root
// resolved.
func (r *reviewState) setMode(root, mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.modes[root] = mode
}

// proposing reports whether the agents of the workspace at root propose
// their changes.
func (r *reviewState) proposing(root string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.modes[root] == reviewPropose
}

// declined reports whether the user chose to run a command without the
// proposals of generation gen.
func (r *reviewState) declined(gen int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.declinedGen == gen
}

// decline records that the user chose to run a command without the
// proposals of generation gen: they are not asked again about those.
func (r *reviewState) decline(gen int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.declinedGen = gen
}

// proposedUnder lists the files under root with proposed changes (not
// only changes made already).
func (r *reviewState) proposedUnder(root string) []string {
	var out []string
	for _, p := range r.Paths() {
		if under(p, root) && r.Proposes(p) {
			out = append(out, p)
		}
	}
	return out
}

// under reports whether path is root or inside it.
func under(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}

// noteShellBases records, just before a shell command, the disk text of
// the files that had proposed changes (accepted now, or not): the text the
// command's changes to them are made against. The turn's own record of
// such a file's text before is what the agent saw, with the proposals in
// it.
func (r *reviewState) noteShellBases(paths []string) {
	bases := map[string]string{}
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			bases[p] = string(data)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shellBases = bases
}

// shellBase returns the disk text path had before the last shell command,
// if it had proposed changes then.
func (r *reviewState) shellBase(path string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	base, ok := r.shellBases[path]
	return base, ok
}

// revertible reports whether rejecting hunk id of path's proposal (0:
// all) undoes a change made already: the hunk is applied and not stale,
// or, for all, one of them is.
func (r *reviewState) revertible(path, cur string, id int) bool {
	f, ok := r.Pending(path, cur)
	if !ok {
		return false
	}
	for _, h := range f.Hunks {
		if h.Applied && !h.Stale && (id == 0 || h.ID == id) {
			return true
		}
	}
	return false
}

// newErrorsOf returns the errors the last check left in path's proposed
// text.
func (r *reviewState) newErrorsOf(path string) []tools.Diagnostic {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.newErrors[path]
}

// testsOf returns what the last run of tests said of accepting path's
// proposals.
func (r *reviewState) testsOf(path string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tests[path]
}

// forgetNewErrors drops path's errors and test outcome: they were found
// in text with what the user rejected now, and no longer hold.
func (r *reviewState) forgetNewErrors(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.newErrors, path)
	delete(r.tests, path)
}

// replaceNewErrors makes byPath the errors of the files under root, the
// other workspaces keeping theirs, and returns the files whose diagnostics
// to publish again: those that had errors and have none now, and those
// with errors.
func (r *reviewState) replaceNewErrors(root string, byPath map[string][]tools.Diagnostic) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var publish []string
	r.newErrors, publish = replaceUnder(r.newErrors, root, byPath)
	return publish
}

// replaceTests makes byPath the test outcomes of the files under root, as
// replaceNewErrors does for errors.
func (r *reviewState) replaceTests(root string, byPath map[string]string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var publish []string
	r.tests, publish = replaceUnder(r.tests, root, byPath)
	return publish
}

// replaceUnder returns next with old's entries of files outside root
// added, and the files whose entry went or is in next.
func replaceUnder[V any](old map[string]V, root string, next map[string]V) (map[string]V, []string) {
	for p, v := range old {
		if !under(p, root) {
			next[p] = v
		}
	}
	var publish []string
	for p := range old {
		if _, ok := next[p]; !ok {
			publish = append(publish, p)
		}
	}
	for p := range next {
		publish = append(publish, p)
	}
	return next, publish
}
