package builtin

import (
	"cmp"
	"errors"
	"io/fs"
	"slices"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/walk"
)

// The read tools check a path with Env.ReadPath first, for a clear
// refusal, and then judge what they actually opened on the disk by its
// real path, taken from the open descriptor: a symbolic link swapped in
// between the check and the open (by a command the model left running)
// cannot carry a read into a forbidden directory. Walks are confined the
// same way by the walk package, with Env.SkipForbidden as their judge.

// readDisk reads the file at abs from the disk, judged by its real path,
// into buf's storage as walk.ReadAll does.
func readDisk(env *tools.Env, abs string, buf []byte, limit int) ([]byte, error) {
	f, err := walk.Open(abs, env.CheckRead)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	return walk.ReadAll(f, buf, limit)
}

// readConfined reads the file at abs as the tools see it: the FS's copy
// when it holds one (an editor buffer), else the disk's, judged by its
// real path. The tools that change files read what they change this way
// too: an edit's complaint ("old_string appears at line 3") must not
// become an oracle on a file no tool may read.
func readConfined(env *tools.Env, abs string) ([]byte, error) {
	if data, held, err := env.Held(abs); held {
		return data, err
	}
	return readDisk(env, abs, nil, 0)
}

// listDir lists the directory at abs, sorted by name, and returns its
// real path with it: from the disk, judged by that real path, when the
// FS reads the disk, else from the FS.
func listDir(env *tools.Env, abs string) (real string, ents []fs.DirEntry, err error) {
	if !env.OnDisk() {
		ents, err = env.FS.ReadDir(abs)
		return abs, ents, err
	}
	f, err := walk.Open(abs, env.CheckRead)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	ents, err = f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
	return f.Name(), ents, err
}

// walkFailed words a failed walk of dir for the model. A root the walk
// refused to enter (one swapped for a link to a forbidden directory
// after ReadPath's check) gets the guard's own refusal.
func walkFailed(env *tools.Env, dir string, err error) tools.Result {
	var pe *fs.PathError
	if errors.Is(err, walk.ErrSkipped) && errors.As(err, &pe) {
		if cerr := env.CheckRead(pe.Path); cerr != nil {
			return tools.Errorf("%v", cerr)
		}
	}
	return tools.Errorf("%s: %v", env.Rel(dir), err)
}
