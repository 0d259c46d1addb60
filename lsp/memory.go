package lsp

import (
	"context"

	"github.com/reasonix/reasonix/tools/memory"
)

type memoryParams struct {
	// Folder picks the workspace folder (a URI); empty means the first.
	Folder string `json:"folder,omitempty"`
	// Archived also lists the notes forget archived.
	Archived bool `json:"archived,omitempty"`
}

type memoryResult struct {
	// Dirs are where each scope's notes live.
	Dirs  map[memory.Scope]string `json:"dirs"`
	Notes []memory.Entry          `json:"notes"`
}

// memory lists what the agent remembers in a workspace folder: the
// user's notes and the project's, as `reasonix memory` does.
func (s *Server) memory(_ context.Context, p memoryParams) (memoryResult, error) {
	ws, err := s.workspaceFor(s.anchor(p.Folder))
	if err != nil {
		return memoryResult{}, internalError(err)
	}
	store := memory.ForEnv(ws.agent.Env)
	notes, err := store.List(p.Archived)
	if err != nil && len(notes) == 0 {
		return memoryResult{}, internalError(err)
	}
	if notes == nil {
		notes = []memory.Entry{}
	}
	return memoryResult{Dirs: store.Dirs, Notes: notes}, nil
}
