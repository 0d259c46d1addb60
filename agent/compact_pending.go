package agent

// TEMPORARY: a stand-in for compaction, which is being built separately
// (agent/compact.go). /compact calls Compact; this file is deleted when
// that work lands.

import (
	"context"
	"errors"
)

// CompactResult is what a compaction did.
type CompactResult struct{}

// Compact folds the session's older work into a summary.
func (a *Agent) Compact(ctx context.Context, s *Session) (CompactResult, error) {
	return CompactResult{}, errors.New("compaction is not available yet")
}
