package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/permission"
	"github.com/reasonix/reasonix/tools/sandbox"
	"github.com/reasonix/reasonix/tools/walk"
)

// Every change a tool makes to a file goes through Env.FS.Apply. Build
// wraps that FS in a writeSeam, which judges each change just before it is
// made, with the permission rules the gate applied to the call: a tool
// that changes a file it did not declare (rename_symbol writes what a
// language server chose; a future tool may forget to declare) is still
// held to the deny and ask rules, and no change reaches one of Reasonix's
// control files unless the user approved that very call.

// A writeCall is what the seam knows of the tool call whose changes it
// sees. It travels in the call's context, so one call's approval cannot
// serve another.
type writeCall struct {
	session, tool string
	// declared holds the spellings of the paths the call declared, which
	// the gate judged before it ran.
	declared []string
	// approved holds the spellings of the control files the user approved
	// this call to change.
	approved []string
	// reads holds the spellings of the paths the call declared it reads
	// (tools.FileReader), which the gate judged before it ran.
	reads []string
	// turn keeps the text each file had before the turn changed it; nil
	// outside a turn.
	turn *turn
}

type writeCallKey struct{}

func withWriteCall(ctx context.Context, c *writeCall) context.Context {
	return context.WithValue(ctx, writeCallKey{}, c)
}

// writeCallOf returns the call ctx belongs to; a change made outside any
// tool call belongs to an anonymous one that declared and was approved
// nothing.
func writeCallOf(ctx context.Context) *writeCall {
	if c, ok := ctx.Value(writeCallKey{}).(*writeCall); ok {
		return c
	}
	return &writeCall{}
}

// CallSession returns the id of the session whose tool call ctx belongs
// to, or "" outside any tool call. The editor uses it to tell a session
// what became of the changes it proposed.
func CallSession(ctx context.Context) string {
	return writeCallOf(ctx).session
}

// writeSeam is the FS the tools see.
type writeSeam struct {
	tools.FS
	env *tools.Env
	// policy holds the configured rules. Grants added during the session
	// only extend the allow rules, which never refuse, so the deny and
	// ask rules here are the ones the gate applies.
	policy permission.Policy
	// gate asks about a path an ask rule covers that the call did not
	// declare.
	gate permission.Gate
}

// Unwrap returns the FS the seam guards, for code that looks for a
// particular FS (the local disk's faster reads).
func (s *writeSeam) Unwrap() tools.FS { return s.FS }

// Apply judges every path of every change, then hands them all on.
func (s *writeSeam) Apply(ctx context.Context, changes []tools.Change) error {
	call := writeCallOf(ctx)
	for _, c := range changes {
		for _, p := range []string{c.Path, c.NewPath} {
			if p == "" {
				continue
			}
			if err := s.judge(ctx, call, p); err != nil {
				return fmt.Errorf("%w: %s: %s", tools.ErrNotPermitted, s.env.Rel(p), err)
			}
		}
		if c.Kind == tools.Rename {
			if err := s.judgeMove(ctx, call, c.Path); err != nil {
				return fmt.Errorf("%w: %s: %s", tools.ErrNotPermitted, s.env.Rel(c.Path), err)
			}
		}
	}
	if call.turn != nil {
		// The turn keeps what a file held before its first change, for
		// review and for the check of its edits: here, for files the
		// call did not declare.
		for _, c := range changes {
			for _, p := range []string{c.Path, c.NewPath} {
				if p != "" {
					call.turn.rememberBefore(s.FS, s.env.Abs(p))
				}
			}
		}
	}
	if err := s.FS.Apply(ctx, changes); err != nil {
		return err
	}

	// Approved changes to control files are the user's: what processes
	// left running are watched for must not undo them.
	for _, c := range changes {
		s.env.Control.Accept(c.Path)
		if c.NewPath != "" {
			s.env.Control.Accept(c.NewPath)
		}
	}
	return nil
}

// judge decides one path of a change.
func (s *writeSeam) judge(ctx context.Context, call *writeCall, path string) error {
	spelt := spellings(s.env, path)
	if _, ok := controlOf(s.env, spelt); ok && !coveredBy(spelt, call.approved) {
		return fmt.Errorf("one of Reasonix's control files, which only a change the user approved for that very call may touch")
	}
	r := permission.Request{SessionID: call.session, Tool: call.tool, Paths: spelt}
	d, rule := s.policy.Judge(r)
	switch {
	case d == permission.Deny && rule != nil:
		return fmt.Errorf("denied by the rule %q", rule.Raw)
	case d == permission.Deny:
		return fmt.Errorf("denied by the permission mode")
	case d == permission.Ask && rule != nil && rule.HasSpec && !coveredBy(spelt, call.declared) && s.gate != nil:
		// A path rule asks about a file the call did not name when the
		// gate judged it: ask now, naming the file.
		r.Args, _ = json.Marshal(map[string]string{"path": s.env.Rel(path)})
		if v := s.gate.Check(ctx, r); !v.Allowed {
			return fmt.Errorf("%s", v.Reason)
		}
	}
	return nil
}

// judgeMove decides the source of a rename by the rules about reading:
// the content it carries to a new name, which no rule may cover, must be
// content the model may read. A directory carries everything below it.
func (s *writeSeam) judgeMove(ctx context.Context, call *writeCall, src string) error {
	if s.env.ReadRules == nil {
		return nil
	}
	if err := s.judgeRead(ctx, call, src); err != nil {
		return err
	}
	if fi, err := s.FS.Stat(src); err != nil || !fi.IsDir() {
		return nil
	}
	// The first path below the directory a rule denies, else the first
	// one a rule asks about.
	var mu sync.Mutex // guards denied and asked
	var denied, asked string
	note := func(p string, isDir bool) bool {
		rule, deny := s.env.ReadRules.ReadRule(p)
		if rule == "" {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case deny && denied == "":
			denied = p
		case !deny && asked == "":
			asked = p
		}
		return true
	}
	opts := walk.Options{NoIgnore: true, Skip: s.env.SkipForbidden(), Withhold: note}
	if err := walk.Walk(ctx, src, opts, func(walk.Entry) error { return nil }); err != nil {
		return fmt.Errorf("cannot tell what it holds: %w", err)
	}
	for _, p := range []string{denied, asked} {
		if p == "" {
			continue
		}
		if err := s.judgeRead(ctx, call, p); err != nil {
			return fmt.Errorf("it holds %s: %w", s.env.Rel(p), err)
		}
	}
	return nil
}

// judgeRead decides reading path by the rules about reading: a rule that
// denies refuses; one that asks asks, naming the path, unless the gate
// judged it as a path the call declared it reads.
func (s *writeSeam) judgeRead(ctx context.Context, call *writeCall, path string) error {
	spelt := s.env.ReadSpellings([]string{path})
	asks := false
	for _, p := range spelt {
		rule, deny := s.env.ReadRules.ReadRule(p)
		if deny {
			return fmt.Errorf("denied by the rule %q", rule)
		}
		asks = asks || rule != ""
	}
	if asks && !coveredBy(spelt, call.reads) {
		if s.gate == nil {
			return tools.ErrReadAsked
		}
		r := permission.Request{SessionID: call.session, Tool: call.tool, Reads: spelt}
		r.Args, _ = json.Marshal(map[string]string{"path": s.env.Rel(path)})
		if v := s.gate.Check(ctx, r); !v.Allowed {
			return fmt.Errorf("%s", v.Reason)
		}
	}
	return nil
}

// coveredBy reports whether every spelling is in set.
func coveredBy(spelt, set []string) bool {
	for _, p := range spelt {
		if !slices.Contains(set, p) {
			return false
		}
	}
	return true
}

// spellings returns the spellings of a path a call changes, all of which
// the rules must accept: the path as written, absolute and clean, and
// where the write really lands, symbolic links resolved as the sandbox
// resolves them. A link `s → secrets` makes `s/k.txt` also
// `secrets/k.txt`.
func spellings(env *tools.Env, p string) []string {
	abs := env.Abs(p)
	out := []string{abs}
	var real string
	if env.Guard != nil {
		real, _ = env.Guard.CheckWrite(abs)
	} else {
		real, _ = filepath.EvalSymlinks(abs)
	}
	if real != "" && real != abs {
		out = append(out, real)
	}
	return out
}

// controlOf reports whether a change at a path (in any of its spellings)
// touches one of Reasonix's control files, and names the path for the
// user as it really is, links resolved. A control path is one the policy
// names, or one by its names at any depth (`pkg/reasonix.toml`,
// `vendor/x/.git/config`): judged from the path alone, so the cost is
// the same in any tree. Moving or deleting a directory that holds a
// control path the policy names touches it too.
func controlOf(env *tools.Env, spelt []string) (string, bool) {
	g, ok := env.Guard.(*sandbox.Policy)
	if !ok {
		return "", false
	}
	name := env.Rel(spelt[len(spelt)-1])
	for _, p := range spelt {
		if _, ok := g.ControlOf(p); ok {
			return name, true
		}
		for _, c := range slices.Concat(g.Control, g.GitDirs) {
			if strings.HasPrefix(c, p+string(filepath.Separator)) {
				return name, true
			}
		}
	}
	return "", false
}

// declareWrites works out what the gate and the seam need to know of a
// call to a FileChanger: every spelling of every path it declared, and
// the control files among them.
func declareWrites(env *tools.Env, paths []string) (spelt, control, controlSpelt []string) {
	for _, p := range paths {
		ps := spellings(env, p)
		for _, s := range ps {
			if !slices.Contains(spelt, s) {
				spelt = append(spelt, s)
			}
		}
		if name, ok := controlOf(env, ps); ok {
			if !slices.Contains(control, name) {
				control = append(control, name)
			}
			controlSpelt = append(controlSpelt, ps...)
		}
	}
	return spelt, control, controlSpelt
}
