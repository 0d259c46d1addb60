package tools

import "context"

// A ShellWatcher learns which files a shell command changes. The bash
// tool calls BeforeShell once what the editor held is on disk and just
// before the command starts, and the After it returns once the command
// has ended; the agent compares the workspace between the two and
// reports the files the command created, changed or deleted as changes
// of the turn. Commands may run at once (parallel tasks): each gets its
// own After. Either call may be slow on a large tree, so both are
// bounded by the watcher itself.
//
// The same listing serves the control watch (ControlWatch), which must
// not walk the workspace itself: BeforeShell returns the control paths
// by their names that exist below the root (permission.ControlRoot: a
// `pkg/reasonix.toml`, a nested repository's .git), and After hands
// every change it found to settle, which undoes those among control
// paths, before it records the rest. When the workspace cannot be
// listed, BeforeShell returns no control paths and settle gets nil.
type ShellWatcher interface {
	BeforeShell(ctx context.Context) (control []string, after After)
}

// An After ends the watch of one command. It returns what the user and
// the model must be told about the tracking itself: that the changes
// were found the slow way, or not at all. The bash tool puts it in the
// result's Notice and content.
type After func(ctx context.Context, settle func(changed []PathChange)) (notice string)

// A PathChange is a file a call created, changed or deleted.
type PathChange struct {
	Path string
	// Created: the file (or, for a repository's .git, the directory)
	// was not there before the call.
	Created bool
}

type shellWatcherKey struct{}

// WithShellWatcher records on ctx the watcher of the turn a call runs in.
func WithShellWatcher(ctx context.Context, w ShellWatcher) context.Context {
	return context.WithValue(ctx, shellWatcherKey{}, w)
}

// ShellWatcherOf returns the watcher WithShellWatcher recorded, or nil.
func ShellWatcherOf(ctx context.Context) ShellWatcher {
	w, _ := ctx.Value(shellWatcherKey{}).(ShellWatcher)
	return w
}
