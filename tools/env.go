package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Env is what a tool call runs against: the workspace, the file seam, and
// the limits the user configured. One Env serves a whole session and is
// safe for concurrent use by parallel read-only calls.
type Env struct {
	// Root is the absolute, clean workspace root. Relative paths in tool
	// arguments resolve against it, and shell commands run in it.
	Root string
	// Home is Reasonix's own directory (~/.reasonix), where the user's
	// memory lives (tools/memory); empty when there is none.
	Home string
	FS   FS
	// Guard confines reads and writes; nil allows everything.
	Guard Guard
	// ReadRules are the permission rules about reading paths, for the
	// reads and walks that no call names (see readrules.go); nil when
	// there are none.
	ReadRules ReadRules
	// BashTimeout is the default and maximum timeout of a shell command;
	// zero means no tool-local cap.
	BashTimeout time.Duration
	// Shell is the interpreter for bash commands; empty means bash, or sh
	// where bash is missing.
	Shell string
	// BeforeShell, when set, runs before every shell command so edits held
	// only in editor buffers reach the disk first. The note it returns is
	// shown to the model with the command's output.
	BeforeShell func(ctx context.Context) (note string, err error)
	// HideEnv names environment variables shell commands must not
	// inherit, such as the model's API key.
	HideEnv []string
	// Graph is the project graph: it answers questions about code from
	// language servers; nil when [graph] is turned off.
	Graph ProjectGraph
	// Jail, when set, confines shell commands with the OS sandbox
	// ([sandbox] bash = "enforce"); nil runs them unconfined.
	Jail ShellJail
	// Control keeps Reasonix's control files unchanged around calls
	// that change files without going through FS; nil watches nothing.
	Control *ControlWatch
	// Procs starts shell commands as units that die with the session; it
	// confines them with Jail. Nil starts each command on its own, and
	// what it leaves running is nobody's to stop.
	Procs ProcessHost
	// Jobs are the commands the bash tool runs in the background, as
	// units of Procs; nil when background jobs are not offered.
	Jobs *Jobs
	// EscalateUnconfined, when set, asks the user whether a command that
	// failed inside Jail, apparently blocked by it, may run again outside
	// it; reason says what looks blocked. Nil never re-runs a command.
	EscalateUnconfined func(ctx context.Context, command, reason string) bool
	// Terminal, when set, runs shell commands in the editor's terminal
	// instead of a pipe of Reasonix's own, with the same confinement;
	// nil runs them under Procs.
	Terminal Terminal
	// History searches the sessions saved before; nil when there is no
	// session store.
	History SessionHistory
	// Skills says where the skill tool and the agent find skills.
	Skills SkillConfig
	// Asker puts the ask tool's questions to the user; nil when no one
	// can be asked (an unattended run).
	Asker Asker
}

// ShellJail is the OS sandbox that confines shell commands ([sandbox] bash
// = "enforce"). Procs does the confining; the bash tool asks the jail to
// explain a confined command's failure. tools/sandbox provides it.
type ShellJail interface {
	// Explain looks at the output of a confined command that failed.
	// When it shows a refusal the jail may have caused, note tells the
	// model what the jail allows and how the user can widen it, and
	// reason is a one-line account for the user. Otherwise both are
	// empty.
	Explain(output string) (note, reason string)
}

// Guard decides which paths tools may touch. Paths given to it are
// absolute; CheckWrite returns the path to write to, with symbolic links
// resolved, so the check and the write agree on the target.
type Guard interface {
	CheckRead(path string) error
	CheckWrite(path string) (string, error)
}

// Abs resolves a tool argument path against the workspace root.
func (e *Env) Abs(p string) string {
	if p == "" {
		return e.Root
	}
	if strings.HasPrefix(p, "~/") {
		// Models sometimes write home-relative paths; treat them as the
		// shell would rather than as a directory named "~".
		if home, err := userHome(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Root, p)
	}
	return filepath.Clean(p)
}

// Rel renders an absolute path for display and for the model: relative to
// the root when inside it, absolute otherwise.
func (e *Env) Rel(abs string) string {
	rel, err := filepath.Rel(e.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}

// ReadPath resolves p and checks that it may be read. The check resolves
// links in p as they are now, which gives the model a clear refusal
// early; a link can still be swapped in before the file is opened, so
// readers of the disk judge what they opened again, by its real path
// (walk.Open with CheckRead as its check).
func (e *Env) ReadPath(p string) (string, error) {
	abs := e.Abs(p)
	if err := e.CheckRead(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// CheckRead checks that path may be read: the guard allows it, and no
// permission rule denies reading it. Without either, anything may be.
func (e *Env) CheckRead(path string) error {
	if e.Guard != nil {
		if err := e.Guard.CheckRead(path); err != nil {
			return err
		}
	}
	return e.checkReadRule(path, false)
}

// SkipForbidden returns the skip function (walk.Options.Skip) that keeps
// a walk out of what the guard forbids reading, or nil when nothing is.
// A walk gives it real paths, free of symbolic links, so a guard that can
// compare paths as they are (sandbox.Policy's Forbidden) is asked that
// way, which keeps a walk of a large tree fast.
func (e *Env) SkipForbidden() func(path string, isDir bool) bool {
	switch g := e.Guard.(type) {
	case nil:
		return nil
	case interface{ Forbidden(path string) bool }:
		return func(p string, _ bool) bool { return g.Forbidden(p) }
	default:
		return func(p string, _ bool) bool { return g.CheckRead(p) != nil }
	}
}

// WritePath resolves p and checks that it may be written, returning the
// real target.
func (e *Env) WritePath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("path is required")
	}
	abs := e.Abs(p)
	if e.Guard != nil {
		return e.Guard.CheckWrite(abs)
	}
	return abs, nil
}
