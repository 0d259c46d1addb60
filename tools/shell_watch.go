package tools

import "context"

// A ShellWatcher learns which files a shell command changes. The bash
// tool calls Before once what the editor held is on disk and just before
// the command starts, and After once it has ended; the agent compares the
// workspace between the two and reports the files the command created,
// changed or deleted as changes of the turn. Either call may be slow on
// a large tree, so both are bounded by the watcher itself.
type ShellWatcher interface {
	BeforeShell(ctx context.Context)
	AfterShell(ctx context.Context)
}

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
