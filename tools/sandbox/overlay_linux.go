package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A cacheLayer is a shared cache with the directories of its private
// layer in a unit's slot (see layerStore).
type cacheLayer struct {
	Cache
	// Upper and Work are the overlay's upper and work directories.
	// Where no overlay can be mounted, Upper is the private cache that
	// stands in for the shared one.
	Upper string `json:"upper"`
	Work  string `json:"work"`
}

// overlayCaches puts a private layer over each shared cache in the
// supervisor's mount namespace, which must be its own, and lets the
// command write there: an overlay whose lower layer is the real cache and
// whose upper layer is the slot's, so the command reads the cache and
// what it wrote, and every change lands in the upper layer. The real
// cache never changes, and the user's other projects never see the
// change. The jail takes its Landlock grants after these mounts, on the
// overlays' own inodes: those grants reach the real caches by no other
// path.
//
// A cache no overlay can be mounted over (the kernel or its file system
// refuses it) is mounted read-only instead, and the command pointed at a
// private cache (see redirectCache); the error says which and why. One
// that does not exist gets a private cache too.
//
// layers come parents first; a cache inside one already covered (GOCACHE
// inside the user's cache directory) is covered with it.
func overlayCaches(js *jailSpec, layers []cacheLayer) error {
	cwd, cwdErr := os.Getwd()
	var covered []string
	var first error
	for _, l := range layers {
		if slices.ContainsFunc(covered, func(p string) bool { return within(l.Path, p) }) {
			js.Write = append(js.Write, l.Path)
			continue
		}
		var err error
		if cwdErr != nil || within(cwd, l.Path) {
			// The working directory would stay below the overlay,
			// on the real cache.
			err = errors.New("it holds the working directory")
		} else {
			err = mountOverlay(l)
		}
		if err == nil {
			covered = append(covered, l.Path)
			js.Write = append(js.Write, l.Path)
			continue
		}
		// The private cache stays writable when what holds it is
		// mounted read-only: Reasonix's directory, or the cache.
		if berr := unix.Mount(l.Upper, l.Upper, "", unix.MS_BIND, ""); berr != nil {
			first = cmp.Or(first, fmt.Errorf("%s: %w", l.Upper, berr))
			continue
		}
		if err != errNoCache {
			first = cmp.Or(first, fmt.Errorf("%s: %w", l.Path, err))
			// Landlock will not grant it; the mount also covers a
			// cache inside another writable directory.
			_ = bindReadOnly(l.Path)
		}
		redirectCache(js, l, os.Getenv)
	}
	return first
}

// errNoCache is mountOverlay's answer for a cache that does not exist.
var errNoCache = errors.New("the cache does not exist")

// mountOverlay mounts l's overlay over its cache. Each directory is opened
// without following links and named to the kernel through its descriptor,
// and the overlay is mounted on the opened cache, so a name swapped
// meanwhile cannot redirect a layer or the mount.
func mountOverlay(l cacheLayer) error {
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	open := func(p string) (int, error) {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			fds = append(fds, fd)
		}
		return fd, err
	}
	lower, err := open(l.Path)
	if errors.Is(err, unix.ENOENT) {
		return errNoCache
	}
	if err != nil {
		return err
	}
	upper, err := open(l.Upper)
	if err != nil {
		return fmt.Errorf("upper layer: %w", err)
	}
	work, err := open(l.Work)
	if err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	fsfd, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("fsopen overlay: %w", err)
	}
	fds = append(fds, fsfd)
	for _, layer := range []struct {
		key string
		fd  int
	}{{"lowerdir", lower}, {"upperdir", upper}, {"workdir", work}} {
		if err := unix.FsconfigSetString(fsfd, layer.key, "/proc/self/fd/"+strconv.Itoa(layer.fd)); err != nil {
			return fmt.Errorf("overlay %s: %w", layer.key, err)
		}
	}
	// Its own attributes in the user.overlay namespace, which a user
	// namespace may write; the layers are the session's alone, so root
	// uses them too.
	if err := unix.FsconfigSetFlag(fsfd, "userxattr"); err != nil {
		return fmt.Errorf("overlay userxattr: %w", err)
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	m, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return fmt.Errorf("fsmount overlay: %w", err)
	}
	fds = append(fds, m)
	if err := unix.MoveMount(m, "", lower, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("mount overlay: %w", err)
	}
	// The name must now lead to the overlay: if the cache was replaced
	// meanwhile, the overlay went on the old one, and the new one is as
	// writable as Landlock makes it, which is not at all.
	var want, got unix.Stat_t
	if err := unix.Fstat(m, &want); err != nil {
		return err
	}
	if err := unix.Lstat(l.Path, &got); err != nil {
		return err
	}
	if got.Dev != want.Dev || got.Ino != want.Ino {
		return errors.New("it was replaced while being mounted over")
	}
	return nil
}

// redirectCache lets the command write l's private cache and points it
// there through the cache's variable, for a cache it may not change and
// that has no overlay. The private cache starts empty, so for the Go
// module cache the shared one is put first among the module proxies: a
// module already downloaded is copied from it rather than downloaded
// again, which needs no network. getenv reads the command's environment
// (a GOPROXY set only with `go env -w` is not seen there: go's default
// follows the shared cache instead).
func redirectCache(js *jailSpec, l cacheLayer, getenv func(string) string) {
	js.Write = append(js.Write, l.Upper)
	js.Env = append(js.Env, l.Var+"="+l.Upper)
	if l.Var != "GOMODCACHE" {
		return
	}
	download := filepath.Join(l.Path, "cache", "download")
	if fi, err := os.Stat(download); err != nil || !fi.IsDir() || strings.ContainsAny(download, ",|") {
		return
	}
	proxy := cmp.Or(getenv("GOPROXY"), "https://proxy.golang.org,direct")
	js.Env = append(js.Env, "GOPROXY=file://"+download+","+proxy)
}

// fallBackCaches gives the command private caches through the
// environment, for a unit without a mount namespace of its own. Landlock
// does not grant the shared caches, so they are read-only, unless one
// lies inside a directory the command may write anyway, which Landlock
// cannot take back: those are returned.
func fallBackCaches(js *jailSpec, layers []cacheLayer, getenv func(string) string) (writable []string) {
	for _, l := range layers {
		if slices.ContainsFunc(js.Write, func(w string) bool { return within(l.Path, w) }) {
			writable = append(writable, l.Path)
		}
	}
	for _, l := range layers {
		redirectCache(js, l, getenv)
	}
	return writable
}

// Notes for the model about the caches; %s name them, %v says why.
const (
	privateCachesNote  = "Note: no private layer could be put over the shared caches (%v): commands find them read-only, and each gets a private cache through its variable (GOCACHE, GOMODCACHE, npm_config_cache, XDG_CACHE_HOME) that starts empty, so a build starts cold and a download needs the network ([sandbox] network = true); Go modules already in the shared GOMODCACHE are copied from it."
	writableCachesNote = "Note: %s lie in a writable directory, so commands here can change them."
	noLayersNote       = "Note: the shared caches (GOCACHE, GOMODCACHE, npm's, the user cache directory) are read-only to commands: no private layer could be made for them (%v)."
)

// cachesNotes returns the notes for a command whose caches fell back to
// private ones (why) and of which some stay writable.
func cachesNotes(why error, writable []string) []string {
	out := []string{fmt.Sprintf(privateCachesNote, why)}
	if len(writable) > 0 {
		out = append(out, fmt.Sprintf(writableCachesNote, strings.Join(writable, ", ")))
	}
	return out
}

// fallBackCaches gives the supervisor's command private caches without
// mounts (see fallBackCaches), since it has no mount namespace (why), and
// says so through note.
func (s *unitSpec) fallBackCaches(why error, note func(string, ...any)) {
	if s.Jail == nil || len(s.Caches) == 0 {
		return
	}
	jail := *s.Jail
	for _, n := range cachesNotes(why, fallBackCaches(&jail, s.Caches, os.Getenv)) {
		note("%s", n)
	}
	s.Jail, s.Caches = &jail, nil
}

// envLookup returns a getenv over env, a list of "NAME=value", the last
// one of a name winning as exec's does.
func envLookup(env []string) func(string) string {
	return func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				return v
			}
		}
		return ""
	}
}
