package lsp

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

// proposing reports whether the agents of the workspace at root propose
// their changes.
func (s *Server) proposing(root string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reviewModes[root] == reviewPropose
}
