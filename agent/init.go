package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/reasonix/reasonix/agent/projectdoc"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
)

// /init writes the project's AGENTS.md: a draft made locally from the
// project's files and its language servers' outlines of the files that
// matter (package projectdoc) — no model, so it works without an API key
// and the same tree (and the same answers) gives the same text. A server
// that is missing or late only leaves its names out. An AGENTS.md that
// exists is never replaced: the draft's sections it lacks are proposed
// after what it holds. The file is written by a write_file call the agent
// makes itself, so it meets everything a model's call would: plan mode,
// the permission rules and the question (with the change shown), the
// sandbox, and in an editor the WorkspaceEdit or the proposal of review.
// It runs no turn: the conversation does not see it, and /rewind does not
// undo it.

// agentsFile is the memory file /init writes.
const agentsFile = "AGENTS.md"

// initCallID is the id of /init's write_file call in its events.
const initCallID = "init_write"

// runInit is /init's answer. A write that did not happen (refused,
// declined, failed) is an error, with the draft as the answer, so that
// the user still has it.
func (a *Agent) runInit(ctx context.Context, s *Session) (string, error) {
	if a.Env == nil {
		return "", errors.New("/init: no workspace")
	}
	opts := projectdoc.Options{Withhold: func(p string) bool { return a.Env.CheckReadUnasked(p) != nil }}
	if l, ok := a.Env.Graph.(tools.DeclarationLister); ok {
		// The language servers name the main declarations; the draft
		// waits for them a bounded time and does without what is late.
		opts.Symbols = l
	}
	draft, err := projectdoc.Draft(ctx, a.Env.Root, opts)
	if err != nil {
		return "", fmt.Errorf("/init: %w", err)
	}
	existing, exists, err := a.readAgentsFile()
	if err != nil {
		return "", fmt.Errorf("/init: %w", err)
	}
	content, summary := draft, fmt.Sprintf("Wrote %s: %s. Add what a draft cannot know: conventions, pitfalls, what to leave alone.", agentsFile, sectionsOf(draft))
	if exists {
		var added []string
		content, added = projectdoc.Merge(existing, draft)
		if len(added) == 0 {
			return fmt.Sprintf("%s exists and already has every section /init drafts (%s); nothing to change.", agentsFile, sectionsOf(draft)), nil
		}
		summary = fmt.Sprintf("%s exists: added the sections it lacked (%s) after what it holds, which is kept as it was.", agentsFile, strings.Join(added, ", "))
	}
	proposes := a.Env.Proposes()
	res, err := a.initWrite(ctx, s, content)
	if err != nil {
		return "", fmt.Errorf("/init: %w", err)
	}
	if res.IsError {
		return "The draft:\n\n" + content, fmt.Errorf("/init: %s was not written: %s", agentsFile, forUser(res.Content))
	}
	if proposes {
		// The editor reviews the change: nothing is written until it is
		// accepted.
		summary = fmt.Sprintf("Proposed %s for your review (%s): accept it to write it.", agentsFile, sectionsOf(content))
	}
	return summary, nil
}

// readAgentsFile reads the workspace's AGENTS.md as the agent's reads
// see it (an editor's unsaved buffer included), judged by the read rules.
func (a *Agent) readAgentsFile() (text string, exists bool, err error) {
	path := filepath.Join(a.Env.Root, agentsFile)
	if ov, ok := a.Env.FS.(tools.Overlay); ok {
		if data, held, err := ov.Overlaid(path); held {
			if errors.Is(err, fs.ErrNotExist) {
				return "", false, nil
			}
			return string(data), err == nil, err
		}
	}
	data, _, err := readMemory(path, a.Env.CheckReadUnasked)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("%s cannot be read: %w", agentsFile, err)
	case len(data) > maxMemoryBytes:
		// Merging a file read in part would drop the rest.
		return "", false, fmt.Errorf("%s is longer than 64 KiB; /init leaves it as it is", agentsFile)
	}
	return string(data), true, nil
}

// initWrite writes content to AGENTS.md through a write_file call of the
// agent's own, outside any turn of the conversation.
func (a *Agent) initWrite(ctx context.Context, s *Session, content string) (tools.Result, error) {
	args, err := json.Marshal(map[string]string{"path": agentsFile, "content": content})
	if err != nil {
		return tools.Result{}, err
	}
	t, end, err := a.begin(s, false)
	if err != nil {
		return tools.Result{}, err
	}
	defer end()
	defer t.release()
	_, res := t.callResult(ctx, provider.ToolCall{ID: initCallID, Name: "write_file", Arguments: string(args)})
	return res, nil
}

// forUser is a tool result's first sentence, what the user needs of it:
// the rest advises the model.
func forUser(result string) string {
	s := strings.TrimPrefix(firstLineOf(result), "Error: ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// sectionsOf names a draft's sections: "Build and test, Layout".
func sectionsOf(doc string) string {
	var names []string
	for _, l := range strings.Split(doc, "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			names = append(names, h)
		}
	}
	if len(names) == 0 {
		return "an introduction only: no build file or source was found"
	}
	return strings.Join(names, ", ")
}
