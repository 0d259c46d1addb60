package agent

import "github.com/reasonix/reasonix/agent/store"

// The session store is package store; the agent's callers know its
// types by these names.
type (
	Store        = store.Store
	Meta         = store.Meta
	Loaded       = store.Loaded
	Summary      = store.Summary
	ArchiveBlock = store.ArchiveBlock
	StepRecord   = store.StepRecord
)

// The kinds of a StepRecord.
const (
	StepRequest = store.StepRequest
	StepTool    = store.StepTool
)
