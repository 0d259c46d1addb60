package tools

import "context"

// SessionHistory searches the sessions saved before (the history tool).
// tools/history provides it over the session store; its answers are text
// worded for the model.
type SessionHistory interface {
	// Search ranks saved messages against q.Query.
	Search(ctx context.Context, q HistoryQuery) (string, error)
	// Around returns the messages of a saved session around one of them.
	Around(ctx context.Context, session string, index, radius int) (string, error)
}

// HistoryQuery is one history search.
type HistoryQuery struct {
	Query string
	// Global searches the sessions of every workspace; otherwise only
	// those that ran in Root.
	Global bool
	Root   string
	// Current is the id of the session asking: its last turn is already
	// in the model's context and is never a hit.
	Current string
	Limit   int
}
