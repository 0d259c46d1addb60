package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
)

// Rules about reading. The permission rules may deny reading some paths
// of the workspace (`deny = ["Read(private/**)"]`), or ask first. The
// gate judges what a call names: its path arguments, and the paths a
// FileReader declares, in every spelling. Env.ReadRules carries the same
// rules to where files are reached without being named — a walk, a
// listing, a confined open through a link — so that:
//
//   - a confined read (Env.CheckRead, and so ReadPath, ReadDisk,
//     OpenDisk, ReadConfined, ListDir) refuses a path a rule denies,
//     judged by the real path it opened;
//   - walks and listings (grep, glob, ls, an @dir reference) leave out
//     what a rule denies or asks about, and say how many they left out
//     (Withheld): nobody can be asked file by file from inside a walk,
//     and read_file, which asks, reads such a file by name;
//   - reads no person asked for (the project memory a session attaches
//     on its own, the references a command's text makes) leave out what
//     a rule asks about too (CheckReadUnasked).

// ReadRules is the permission rules' word on reading a path.
// tools/permission provides it.
type ReadRules interface {
	// ReadRule returns the rule, as written, that covers reading the file
	// or directory at path (absolute; from a walk, free of symbolic
	// links), and whether it denies reading (else it asks first); ""
	// when none does. A walk asks about every entry: it must be cheap.
	ReadRule(path string) (rule string, deny bool)
}

// FileReader is implemented by tools whose calls read files they name,
// or carry their content elsewhere: ReadPaths lists, from a call's
// arguments and before it runs, every such path, spelt as the arguments
// spell them — what read_file reads, the file edit_file matches its old
// text against, the source of a move or a patch's rename, the paths a
// shell command names. The permission rules about reading are judged
// against them, and against where their links lead. An error is worded
// for the model and means the arguments cannot be read.
type FileReader interface {
	ReadPaths(args json.RawMessage) ([]string, error)
}

// ErrReadDenied is wrapped by the refusal of a read a permission rule
// denies.
var ErrReadDenied = errors.New("the permission rules deny reading it")

// ErrReadAsked is wrapped by the refusal of a read no person was asked
// about, of a path a permission rule asks about.
var ErrReadAsked = errors.New("the permission rules ask before it is read, and no one was asked")

// readRule returns the rule about reading path, "" when there is none.
func (e *Env) readRule(path string) (rule string, deny bool) {
	if e.ReadRules == nil {
		return "", false
	}
	return e.ReadRules.ReadRule(path)
}

// checkReadRule refuses path when a rule denies reading it, or, with
// asked set, asks about it.
func (e *Env) checkReadRule(path string, asked bool) error {
	rule, deny := e.readRule(path)
	switch {
	case rule == "":
		return nil
	case deny:
		return fmt.Errorf("%s: %w (the rule %q)", e.Rel(path), ErrReadDenied, rule)
	case asked:
		return fmt.Errorf("%s: %w (the rule %q); read_file reads it after asking", e.Rel(path), ErrReadAsked, rule)
	}
	return nil
}

// CheckReadUnasked checks that path may be read with no one asked: as
// CheckRead, and refused too when a rule asks before it is read. For
// what a session reads on its own account, not at a call someone
// approved.
func (e *Env) CheckReadUnasked(path string) error {
	if err := e.CheckRead(path); err != nil {
		return err
	}
	return e.checkReadRule(path, true)
}

// Withheld leaves out of one walk or listing the entries a rule about
// reading covers, and counts them for the model. Its methods are safe for
// concurrent use; a nil *Withheld leaves nothing out.
type Withheld struct {
	rules ReadRules
	// asked is set when the walk's root is itself one a rule asks
	// about: the gate asked about the call that walks it, so the
	// entries ask rules cover are shown.
	asked bool

	denied, askedN atomic.Int64
}

// Withhold returns what leaves out of a walk or a listing of root (the
// path the call named, absolute) the entries a rule about reading
// covers; nil when there are no such rules.
func (e *Env) Withhold(root string) *Withheld {
	if e.ReadRules == nil {
		return nil
	}
	w := &Withheld{rules: e.ReadRules}
	for _, p := range spellings(root) {
		if rule, deny := e.ReadRules.ReadRule(p); rule != "" && !deny {
			w.asked = true
		}
	}
	return w
}

// ReadSpellings spells the paths a call reads (FileReader) for the
// permission rules: each absolute, and where its links lead when that
// differs.
func (e *Env) ReadSpellings(paths []string) []string {
	var out []string
	for _, p := range paths {
		for _, s := range spellings(e.Abs(p)) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// spellings returns abs and, when it differs, where its links lead.
func spellings(abs string) []string {
	out := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		out = append(out, real)
	}
	return out
}

// Leave reports whether the entry at path (a real path) is left out,
// and counts it if so. It fits walk.Options.Withhold.
func (w *Withheld) Leave(path string, isDir bool) bool {
	if w == nil {
		return false
	}
	rule, deny := w.rules.ReadRule(path)
	switch {
	case rule == "":
		return false
	case deny:
		w.denied.Add(1)
	case w.asked:
		return false
	default:
		w.askedN.Add(1)
	}
	return true
}

// Func returns Leave as a function, nil for a nil *Withheld, for
// walk.Options.
func (w *Withheld) Func() func(path string, isDir bool) bool {
	if w == nil {
		return nil
	}
	return w.Leave
}

// Note tells the model what was left out, "" when nothing was. The
// entries are counted, not named: their names are theirs to withhold too.
func (w *Withheld) Note() string {
	if w == nil {
		return ""
	}
	var s string
	if n := w.denied.Load(); n > 0 {
		s = fmt.Sprintf("(%d %s left out: the permission rules deny reading %s.)\n", n, plural(n, "path", "paths"), plural(n, "it", "them"))
	}
	if n := w.askedN.Load(); n > 0 {
		s += fmt.Sprintf("(%d %s left out: the permission rules ask before %s read; read_file reads one by name after asking.)\n", n, plural(n, "path", "paths"), plural(n, "it is", "they are"))
	}
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
