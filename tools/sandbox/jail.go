package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reasonix/reasonix/tools/gitdir"
)

// Jail confines bash commands with the operating system's sandbox ([sandbox]
// bash = "enforce"): a command may write only in the Policy's write roots,
// the scratch directories and, through a private layer, the shared caches;
// may not read under forbid_read; and may not use the network unless
// Network is set. It implements tools.ShellJail.
//
// The jail applies to the command only, never to Reasonix. On Linux, Confine
// makes the command start this same executable with a marker; the package's
// init sees it, confines that process with Landlock and execs the shell in
// its place (see jail_linux.go). Elsewhere there is no jail yet and commands
// run unconfined.
//
// Landlock controls paths, TCP and (ABI 6) signals and abstract sockets. It
// does not control UDP, connections to Unix sockets that have a path (such
// as a Docker daemon's), the environment a command inherits, or resource
// use; and a write root stays writable for everything in it, including
// configuration that Reasonix or other tools later act on unconfined.
type Jail struct {
	Policy *Policy
	// Network lets commands use the network ([sandbox] network = true).
	Network bool
	// Scratch are the directories commands may write besides the write
	// roots: the temporary directories.
	Scratch []string
	// Caches are the shared caches commands may write only through a
	// private layer, the real ones staying as they were (see Cache).
	Caches []Cache
	// Layers is the directory that holds the sessions' private layers
	// over Caches: out of the commands' reach (under Reasonix's own
	// directory) and in no cache. Empty, commands find the caches
	// read-only.
	Layers string

	// told records that the "sandbox unavailable" note was given.
	told atomic.Bool
	// hides records that the last command started in namespaces where
	// the forbidden paths are hidden by mounts (see hideForbidden), so
	// that entries created beside them are not split off (see plan).
	hides atomic.Bool
	// external holds the private caches of the commands another program
	// starts (ConfineExternal), until Close.
	external layerStore

	mu sync.Mutex // guards nested
	// nested are the control paths found in the workspace's
	// subdirectories so far (see ProtectNested).
	nested []string
}

// maxReadOnly bounds the paths a command finds read-only, each a mount or
// more at its start: a repository of a thousand submodules must not make
// every command start slowly (512 mounts take a start from about 20 ms to
// about 35 ms, BenchmarkHostStartNested). The control watch undoes
// changes to those past it.
const maxReadOnly = 1024

// maxNested bounds the control paths in subdirectories that commands
// find read-only: each is a mount or more at every command's start (512
// take a start from about 20 ms to about 35 ms on a busy 2-core machine,
// BenchmarkHostStartNested). The control watch undoes changes to the
// others.
const maxNested = 512

// ProtectNested adds control paths found in the workspace's
// subdirectories — `pkg/reasonix.toml`, `pkg/.claude`, a nested
// repository's .git, as the listing around each command finds them — to
// those the commands that start later find read-only: of a repository,
// what git takes configuration and hooks from through it
// (gitdir.Repo). A path that no longer exists is skipped when a command
// starts; past maxNested, no more are added.
func (j *Jail) ProtectNested(paths ...string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, p := range paths {
		if len(j.nested) >= maxNested {
			return
		}
		if !slices.Contains(j.nested, p) {
			j.nested = append(j.nested, p)
		}
	}
}

// NewJail returns a jail for policy with the default scratch directories
// and shared caches.
func NewJail(policy *Policy, network bool) *Jail {
	return &Jail{Policy: policy, Network: network, Scratch: ScratchDirs(), Caches: SharedCaches()}
}

// ScratchDirs returns the directories a confined command may write besides
// the write roots, because everyday tools need them: the temporary
// directories. Directories that do not exist are left in; the jail skips
// them.
func ScratchDirs() []string {
	var out []string
	for _, d := range []string{os.TempDir(), "/tmp", "/dev/shm"} {
		if !filepath.IsAbs(d) {
			continue
		}
		d = resolve(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// Confine rewrites cmd, built but not started, to run inside the jail, and
// reports whether it will. When the system has no usable sandbox it leaves
// cmd alone and returns false, with a note saying so the first time only.
// A cmd that cannot start anyway (its shell was not found) is left alone
// too, so that it fails the ordinary way.
func (j *Jail) Confine(cmd *exec.Cmd) (confined bool, note string, err error) {
	if cmd.Err != nil {
		return false, "", nil
	}
	if reason := confine(cmd, j.spec()); reason != "" {
		if j.told.CompareAndSwap(false, true) {
			note = fmt.Sprintf(unavailableNote, reason)
		}
		return false, note, nil
	}
	return true, "", nil
}

// ConfineExternal rewrites cmd, built but not started, to run inside the
// jail when another program starts it (an editor's terminal) rather than
// Reasonix. The jail's executable is named by its path on disk, since
// /proc/self/exe would name that other program; and the jail itself
// removes the variables named in hide, since that program may add its
// own environment to cmd's. It returns why cmd cannot be confined; then
// cmd is left alone and must not be handed on, since it would run
// unconfined. Unlike Confine it gives no note: the caller runs the
// command itself instead, and Reasonix's own start of it says what is
// missing.
func (j *Jail) ConfineExternal(cmd *exec.Cmd, hide []string) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	s := j.spec()
	s.Unset = hide
	return j.confineExternal(cmd, s)
}

// unavailableNote is shown once per session when commands cannot be
// confined; %s says why.
const unavailableNote = "Note: the shell sandbox is unavailable on this system (%s); commands run unconfined."

// jailSpec is what the confined process needs to build its ruleset. It
// travels to it as JSON in the environment.
type jailSpec struct {
	// Write are the directories (and files) that may be written.
	Write []string `json:"write"`
	// Forbid are the paths that may not be read.
	Forbid []string `json:"forbid,omitempty"`
	// Network allows TCP.
	Network bool `json:"network,omitempty"`
	// Unset are variables the jail removes from the command's
	// environment (ConfineExternal).
	Unset []string `json:"unset,omitempty"`
	// Env are variables ("NAME=value") the jail sets in the command's
	// environment, over what it inherited: the private caches that
	// stand in for shared ones (see redirectCaches).
	Env []string `json:"env,omitempty"`
}

func (j *Jail) spec() jailSpec {
	s := jailSpec{Network: j.Network}
	if j.Policy != nil {
		for _, w := range j.Policy.WriteRoots {
			// A write root that is a control path (Reasonix's own
			// directory) is for the file tools, which ask first.
			if _, ok := j.Policy.ControlOf(w); !ok {
				s.Write = append(s.Write, w)
			}
		}
		s.Forbid = append(s.Forbid, j.Policy.ForbidRead...)
	}
	for _, d := range j.Scratch {
		if !slices.Contains(s.Write, d) {
			s.Write = append(s.Write, d)
		}
	}
	return s
}

// readOnly returns the control paths a command must find read-only, less
// any that holds a directory of write, the command's (jailSpec.Write):
// making that read-only would take the workspace (or a scratch
// directory) with it. Of a git directory, those are the files git takes
// configuration, hooks and attributes from as they are when the command
// starts (a submodule added since included); the rest stays writable,
// for commits.
func (j *Jail) readOnly(write []string) []string {
	if j.Policy == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(c string) {
		// The root's control paths come first and always fit; past the
		// bound, the control watch alone undoes what a command changes.
		if len(out) >= maxReadOnly && len(out) >= len(j.Policy.Control) {
			return
		}
		if !seen[c] && !slices.ContainsFunc(write, func(w string) bool { return within(w, c) }) {
			seen[c] = true
			out = append(out, c)
		}
	}
	for _, c := range j.Policy.Control {
		add(c)
	}
	for _, g := range j.Policy.GitDirs {
		for _, c := range gitdir.Control(g) {
			add(c)
		}
	}
	j.mu.Lock()
	nested := slices.Clone(j.nested)
	j.mu.Unlock()
	for _, n := range nested {
		if !strings.EqualFold(filepath.Base(n), ".git") {
			add(n)
			continue
		}
		pointer, dirs := gitdir.Repo(n)
		if pointer != "" {
			add(pointer)
		}
		for _, g := range dirs {
			for _, c := range gitdir.Control(g) {
				add(c)
			}
		}
	}
	return out
}

// denial matches what programs print when an access was refused: EACCES
// and EPERM in their usual spellings, and EXDEV, which Landlock returns for
// a rename or link that would widen a file's access.
var denial = regexp.MustCompile(`(?i)permission denied|operation not permitted|\bEACCES\b|\bEPERM\b|invalid cross-device link`)

// netFailure matches what curl (and so git over HTTPS) prints when it
// cannot connect, which may not name the error.
var netFailure = regexp.MustCompile(`(?i)failed to connect|couldn't connect to server`)

// Explain looks at the output of a confined command that failed. When it
// shows a refusal the jail may have caused, it returns a note for the model
// saying what the jail allows and how the user can widen it, and a one-line
// reason for the user quoting the line that gave it away. Otherwise both
// are empty.
func (j *Jail) Explain(output string) (note, reason string) {
	m := denial.FindString(output)
	if m == "" && !j.Network {
		m = netFailure.FindString(output)
	}
	if m == "" {
		return "", ""
	}
	return j.denialNote(), "the shell sandbox may have blocked it: " + lineAt(output, m)
}

// denialNote is the explanation given with a command the jail may have
// blocked.
func (j *Jail) denialNote() string {
	s := j.spec()
	var b strings.Builder
	b.WriteString("Sandbox: this command ran in Reasonix's shell sandbox, which may have blocked it. ")
	fmt.Fprintf(&b, "It may write only under: %s. ", strings.Join(s.Write, ", "))
	var blocked []string
	if len(s.Forbid) > 0 {
		blocked = append(blocked, fmt.Sprintf("reading under [sandbox] forbid_read (%s)", strings.Join(s.Forbid, ", ")))
	}
	if !s.Network {
		blocked = append(blocked, "network access (TCP connect and listen, localhost included)")
	}
	if len(blocked) > 0 {
		fmt.Fprintf(&b, "Blocked: %s. ", strings.Join(blocked, "; "))
	}
	if caches := j.caches(s.Write, s.Forbid); len(caches) > 0 && j.Layers != "" {
		paths := make([]string, len(caches))
		for i, c := range caches {
			paths[i] = c.Path
		}
		fmt.Fprintf(&b, "The shared caches (%s) never change: a command writes to a private copy of them that lasts for this session. ", strings.Join(paths, ", "))
	}
	if dirs := splitDirs(s.Write, s.Forbid); len(dirs) > 0 && !j.hides.Load() {
		fmt.Fprintf(&b, "A file created directly in %s cannot be read back until the next command, because those directories hold a forbid_read path. ", strings.Join(dirs, ", "))
	}
	b.WriteString("Work inside the writable directories if you can; otherwise ask the user to allow it: a directory added to [sandbox] allow_write becomes writable")
	if !s.Network {
		b.WriteString(", [sandbox] network = true allows the network")
	}
	b.WriteString(`, and [sandbox] bash = "off" turns the shell sandbox off.`)
	return b.String()
}

// splitDirs returns the writable directories that lie on the way to a
// forbidden path, in which the jail can grant no read access to entries
// created after it started when that path is not hidden by a mount (see
// plan and hideForbidden).
func splitDirs(write, forbid []string) []string {
	var out []string
	for _, f := range forbid {
		if _, err := os.Lstat(f); err != nil {
			continue
		}
		for _, w := range write {
			if f == w || !within(f, w) {
				continue
			}
			for d := filepath.Dir(f); within(d, w); d = filepath.Dir(d) {
				if !slices.Contains(out, d) {
					out = append(out, d)
				}
				if d == w {
					break
				}
			}
		}
	}
	return out
}

// lineAt returns the line of s that holds the first occurrence of sub,
// trimmed and capped for a one-line reason.
func lineAt(s, sub string) string {
	i := strings.Index(s, sub)
	if i < 0 {
		return sub
	}
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		end = len(s)
	} else {
		end += i
	}
	line := strings.TrimSpace(s[start:end])
	const max = 200
	if len(line) > max {
		line = line[:max] + "…"
	}
	return line
}
