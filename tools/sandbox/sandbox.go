// Package sandbox confines what the file tools may touch: writes stay inside
// the workspace root, the user's Reasonix directory and any configured extra
// roots; reads stay out of the configured secret directories.
package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools/permission"
)

// Policy is a tools.Guard built from the [sandbox] config.
type Policy struct {
	// WriteRoots are the directories writes may land in.
	WriteRoots []string
	// ForbidRead are directories and files no tool may read.
	ForbidRead []string
	// Control are Reasonix's control files and directories (its config,
	// a repository's hooks): readable, but changed only with the user's
	// approval of that very change. See Protect.
	Control []string
	// GitDirs are the git directories of the workspace's repository
	// (tools/gitdir.Dirs). Everything below one is a control path to the
	// file tools; to commands, only what git takes configuration, hooks
	// and attributes from (tools/gitdir.Walk), since commits must go on
	// writing the rest. See ProtectGit.
	GitDirs []string
}

// New returns a Policy with every root made absolute and symlink-free, so
// comparisons are made between real paths.
func New(writeRoots, forbidRead []string) *Policy {
	p := &Policy{}
	for _, r := range writeRoots {
		if r == "" {
			continue
		}
		p.WriteRoots = append(p.WriteRoots, resolve(r))
	}
	for _, r := range forbidRead {
		if r == "" {
			continue
		}
		p.ForbidRead = append(p.ForbidRead, resolve(r))
	}
	return p
}

// ErrOutsideRoots is wrapped by CheckWrite's refusals.
var ErrOutsideRoots = errors.New("outside the directories Reasonix may write")

// ErrProcessFiles is wrapped by CheckRead's refusals of processes' files.
var ErrProcessFiles = errors.New("the files of processes under /proc are not for the tools to read")

// processFiles reports whether path lies in the directory of a process
// under /proc (/proc/<pid>, /proc/self, /proc/thread-self). Those hold a
// process's environment, memory and open files: Reasonix's own (the API
// key is in its memory), its language servers' and MCP servers', and its
// parents' — the editor's or the shell's, whose environment may hold the
// key. The read tools have no business there; the shell jail keeps
// commands to their own processes by other means. The rest of /proc
// (cpuinfo, meminfo) stays readable, and /proc/self/root/... or
// /proc/self/cwd/... are judged where they lead.
func processFiles(path string) bool {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	if first == "self" || first == "thread-self" {
		return true
	}
	for _, r := range first {
		if r < '0' || r > '9' {
			return false
		}
	}
	return first != ""
}

// ErrForbidden is wrapped by CheckRead's refusals.
var ErrForbidden = errors.New("reading it is forbidden by [sandbox] forbid_read")

// CheckWrite resolves path to its real location (following any symbolic
// link in it, so a link inside the workspace cannot tunnel out) and accepts
// it when that location is inside a write root.
func (p *Policy) CheckWrite(path string) (string, error) {
	real := resolve(path)
	for _, root := range p.WriteRoots {
		if within(real, root) {
			return real, nil
		}
	}
	if real != filepath.Clean(path) {
		return "", fmt.Errorf("%s (resolves to %s) is %w", path, real, ErrOutsideRoots)
	}
	return "", fmt.Errorf("%s is %w; allowed: %s", path, ErrOutsideRoots, strings.Join(p.WriteRoots, ", "))
}

// CheckRead refuses paths inside a forbidden directory.
func (p *Policy) CheckRead(path string) error {
	real := resolve(path)
	if processFiles(real) {
		return fmt.Errorf("%s: %w", path, ErrProcessFiles)
	}
	for _, f := range p.ForbidRead {
		if within(real, f) || within(filepath.Clean(path), f) {
			return fmt.Errorf("%s: %w", path, ErrForbidden)
		}
	}
	return nil
}

// Protect adds control paths: files and directories (present or not) that
// only a change the user approved may touch. Like the other roots they are
// kept absolute and symlink-free.
func (p *Policy) Protect(paths ...string) {
	p.Control = addResolved(p.Control, paths)
}

// ProtectGit adds git directories (present or not): see GitDirs.
func (p *Policy) ProtectGit(dirs ...string) {
	p.GitDirs = addResolved(p.GitDirs, dirs)
}

// addResolved adds to list each path not yet in it, resolved.
func addResolved(list, paths []string) []string {
	for _, c := range paths {
		if c == "" {
			continue
		}
		c = resolve(c)
		if !slices.Contains(list, c) {
			list = append(list, c)
		}
	}
	return list
}

// ControlOf reports the control path that path, as written or once its
// links are resolved, is or lies under: one Protect or ProtectGit named,
// or, below a write root, one by its names wherever it is
// (permission.ControlRoot: `pkg/reasonix.toml`, `vendor/x/.git/config`).
func (p *Policy) ControlOf(path string) (string, bool) {
	real, clean := resolve(path), filepath.Clean(path)
	for _, spelt := range []string{real, clean} {
		for _, c := range slices.Concat(p.Control, p.GitDirs) {
			if within(spelt, c) {
				return c, true
			}
		}
		for _, root := range p.WriteRoots {
			rel, below := strings.CutPrefix(spelt, withSeparator(root))
			if !below {
				continue
			}
			if c, ok := permission.ControlRoot(rel); ok {
				return filepath.Join(root, c), true
			}
		}
	}
	return "", false
}

// withSeparator returns dir with a trailing separator.
func withSeparator(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// Forbidden reports whether path lies in a forbidden directory, comparing
// it as it is, without resolving links. It is exact only for a real path:
// walks, which give their skip function real paths, use it to prune
// quickly; anything else should use CheckRead.
func (p *Policy) Forbidden(path string) bool {
	if processFiles(path) {
		return true
	}
	for _, f := range p.ForbidRead {
		if within(path, f) {
			return true
		}
	}
	return false
}

// within reports whether path is root or below it. Both are clean.
func within(path, root string) bool {
	return path == root || strings.HasPrefix(path, withSeparator(root))
}

// resolve makes path absolute and resolves symbolic links in the longest
// prefix of it that exists; the missing tail is appended as is (it cannot
// contain links yet). A dangling link on the way is followed to where it
// points, since creating the missing target would make the path land
// there.
func resolve(path string) string {
	return resolveDepth(path, 0)
}

// maxLinkDepth bounds the dangling links resolve follows, as the kernel
// bounds a lookup's links.
const maxLinkDepth = 40

func resolveDepth(path string, depth int) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var tail []string
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, tail...)...)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// A permission error or a link loop: keep the lexical path,
			// which is the conservative answer for a prefix check.
			return abs
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 && depth < maxLinkDepth {
			if target, err := os.Readlink(cur); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				return resolveDepth(filepath.Join(append([]string{target}, tail...)...), depth+1)
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		tail = append([]string{filepath.Base(cur)}, tail...)
		cur = parent
	}
}

// DefaultForbidRead lists the secret locations protected out of the box,
// relative to the user's home directory: keys, tokens and passwords that
// tools keep in well-known places, and the histories of shells and
// interactive interpreters, where passwords typed or pasted on a command
// line end up.
//
// A file a program reads at every start is listed only if that program
// still works without it: npm, cargo, psql and Docker go on when their
// file cannot be opened (npm and cargo take the defaults, psql and Docker
// warn). Maven's ~/.m2/settings.xml is not listed, though it may hold
// passwords: Maven refuses to build when it cannot read it, and it holds
// the mirrors and proxies every build needs; its master password
// (~/.m2/settings-security.xml), which Maven reads only to decrypt, is.
var DefaultForbidRead = []string{
	// Keys and the tools' own credential stores.
	".ssh", ".gnupg", ".password-store", ".local/share/keyrings",
	".aws", ".azure", ".config/gcloud", ".kube", ".oci",
	".docker/config.json", ".config/containers/auth.json",
	".netrc", ".git-credentials", ".config/git/credentials", ".config/gh",
	".npmrc", ".pypirc", ".gem/credentials", ".m2/settings-security.xml",
	".cargo/credentials.toml", ".cargo/credentials",
	".terraform.d/credentials.tfrc.json", ".vault-token", ".pgpass",
	".s3cfg", ".config/rclone/rclone.conf", ".claude/.credentials.json",
	// sops's age keys, read only to decrypt a project's secrets.
	".config/sops/age",
	// Histories.
	".bash_history", ".zsh_history", ".zhistory", ".histfile",
	".local/share/fish/fish_history", ".python_history", ".node_repl_history",
	".psql_history", ".mysql_history", ".sqlite_history", ".rediscli_history",
}

// HomeDefaults returns DefaultForbidRead under home.
func HomeDefaults(home string) []string {
	if home == "" {
		return nil
	}
	out := make([]string, 0, len(DefaultForbidRead))
	for _, d := range DefaultForbidRead {
		out = append(out, filepath.Join(home, d))
	}
	return out
}

// SystemSecrets returns the system's own secrets that a command run as
// root could read: the password hashes (and their backups) and the host's
// SSH keys. Another user cannot read them anyway, so for one it returns
// nothing, sparing each command the work of keeping them out.
func SystemSecrets() []string {
	if os.Geteuid() != 0 {
		return nil
	}
	out := []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-"}
	keys, _ := filepath.Glob("/etc/ssh/ssh_host_*_key")
	return append(out, keys...)
}
