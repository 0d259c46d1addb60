package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// hideForbidden hides the forbidden paths that exist from everything
// started in the supervisor's mount namespace, which must be its own, by
// mounting over each something that reveals nothing: an empty read-only
// tmpfs of mode 0 over a directory, and over anything else /dev/null on a
// read-only mount without devices, which cannot even be opened. It returns
// the paths the jail must still keep out with Landlock: those that could
// not be hidden, with the first reason why, and those that do not exist
// (a path created while the command runs stays forbidden as before).
//
// Hiding is what lets the jail grant a forbidden path's parents whole:
// Landlock can only allow, so keeping a path out with it alone means
// granting its siblings one by one, and an entry created beside it later
// gets nothing (see plan). A mount point cannot be renamed or removed, and
// a jailed command can neither unmount nor mount, so the hiding holds for
// the whole command.
//
// A command that runs as root, with CAP_DAC_OVERRIDE, can look inside a
// directory of mode 0 and would find a name in it missing rather than
// refused. For it (asRoot), the cover of a directory holds the
// directory's names, at most mirrorLimit of them, each file one that
// cannot be opened: a refusal the command and the model recognise, and
// no more than Landlock's keeping out showed (the names).
//
// A path that holds the working directory is not hidden: the directory
// stays open below the cover, and names relative to it would reach what
// the cover hides. Landlock, which judges the path, keeps it out instead.
func hideForbidden(paths []string, asRoot bool) (rest []string, err error) {
	cwd, cwdErr := os.Getwd()
	for _, p := range paths {
		if cwdErr != nil || within(cwd, p) {
			rest = append(rest, p)
			continue
		}
		hidden, herr := hide(p, asRoot)
		if herr != nil && err == nil {
			err = fmt.Errorf("%s: %w", p, herr)
		}
		if !hidden {
			rest = append(rest, p)
		}
	}
	return rest, err
}

// hide mounts over path as hideForbidden says and reports whether it did.
// A path that does not exist is left alone without error. A symbolic link
// is left alone too: the paths are stored resolved, so a link there now
// was put there since, and its target may be anything; Landlock keeps it
// out as before.
func hide(path string, asRoot bool) (bool, error) {
	target, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unix.Close(target)
	var st unix.Stat_t
	if err := unix.Fstat(target, &st); err != nil {
		return false, err
	}
	var cover int
	var names []mirrored
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return false, nil
	case unix.S_IFDIR:
		if asRoot {
			names = namesBelow(path)
		}
		// The names are made in the cover once it is in place, then
		// it becomes read-only.
		cover, err = emptyDirMount(len(names) == 0)
	default:
		cover, err = deviceNullMount()
	}
	if err != nil {
		return false, err
	}
	defer unix.Close(cover)
	var want unix.Stat_t
	if err := unix.Fstat(cover, &want); err != nil {
		return false, err
	}
	// Mounting on the open descriptor mounts on what was opened, not on
	// whatever the name leads to by now.
	if err := unix.MoveMount(cover, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return false, fmt.Errorf("mount: %w", err)
	}
	// The name must now lead to the cover: if it was replaced meanwhile,
	// the mount went on the old entry and the new one is not hidden.
	var got unix.Stat_t
	if err := unix.Lstat(path, &got); err != nil {
		return false, err
	}
	if got.Dev != want.Dev || got.Ino != want.Ino {
		return false, errors.New("it was replaced while being hidden")
	}
	if len(names) > 0 {
		// Best effort: the path is hidden whatever the cover holds. A
		// name not mirrored is missing rather than refused, and a
		// cover left writable holds nothing of the path's.
		_ = mirror(cover, names)
		_ = unix.MountSetattr(cover, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	}
	return true, nil
}

// mirrorLimit bounds the names a root command's cover holds, and so the
// mounts made for one forbidden directory.
const mirrorLimit = 256

// A mirrored is a name below a forbidden directory, relative to it.
type mirrored struct {
	rel string
	dir bool
}

// namesBelow returns the names below dir, parents before children, at
// most mirrorLimit. Links are not followed: a link is a name like any
// other file's.
func namesBelow(dir string) []mirrored {
	var out []mirrored
	queue := []string{""}
	for len(queue) > 0 && len(out) < mirrorLimit {
		rel := queue[0]
		queue = queue[1:]
		ents, err := os.ReadDir(filepath.Join(dir, rel))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if len(out) == mirrorLimit {
				break
			}
			m := mirrored{rel: filepath.Join(rel, e.Name()), dir: e.IsDir()}
			out = append(out, m)
			if m.dir {
				queue = append(queue, m.rel)
			}
		}
	}
	return out
}

// mirror makes names in the cover, attached and still writable: each
// directory of mode 0, each file an empty one with an unopenable
// /dev/null mounted over it (see deviceNullMount).
func mirror(cover int, names []mirrored) error {
	for _, m := range names {
		if m.dir {
			if err := unix.Mkdirat(cover, m.rel, 0); err != nil {
				return fmt.Errorf("mirroring %s: %w", m.rel, err)
			}
			continue
		}
		fd, err := unix.Openat(cover, m.rel, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return fmt.Errorf("mirroring %s: %w", m.rel, err)
		}
		unix.Close(fd)
		null, err := deviceNullMount()
		if err != nil {
			return err
		}
		err = unix.MoveMount(null, "", cover, m.rel, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(null)
		if err != nil {
			return fmt.Errorf("mirroring %s: %w", m.rel, err)
		}
	}
	return nil
}

// hiddenAttrs are the attributes of the mounts that hide a path.
const hiddenAttrs = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC

// emptyDirMount returns a new detached mount of an empty tmpfs whose root
// has mode 0, read-only unless it is to be filled first.
func emptyDirMount(readOnly bool) (int, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen tmpfs: %w", err)
	}
	defer unix.Close(fs)
	for _, kv := range [][2]string{{"mode", "0"}, {"size", "64k"}, {"nr_inodes", fmt.Sprint(mirrorLimit + 1)}} {
		if err := unix.FsconfigSetString(fs, kv[0], kv[1]); err != nil {
			return -1, fmt.Errorf("tmpfs %s: %w", kv[0], err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("tmpfs: %w", err)
	}
	attrs := hiddenAttrs
	if !readOnly {
		attrs &^= unix.MOUNT_ATTR_RDONLY
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, attrs)
	if err != nil {
		return -1, fmt.Errorf("fsmount: %w", err)
	}
	return m, nil
}

// deviceNullMount returns a new detached bind mount of /dev/null, read-only
// and without devices, so that opening it fails with EACCES.
func deviceNullMount() (int, error) {
	m, err := unix.OpenTree(unix.AT_FDCWD, "/dev/null", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("bind /dev/null: %w", err)
	}
	if err := unix.MountSetattr(m, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: hiddenAttrs}); err != nil {
		unix.Close(m)
		return -1, fmt.Errorf("mount_setattr: %w", err)
	}
	return m, nil
}
