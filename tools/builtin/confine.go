package builtin

import (
	"errors"
	"io/fs"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/walk"
)

// The read tools read through the Env's confined reads (tools/confine.go):
// a path is checked with Env.ReadPath first, for a clear refusal, and what
// is opened on the disk is judged again by its real path. Walks are
// confined the same way by the walk package, with Env.SkipForbidden as
// their judge; what the permission rules about reading cover is left out
// of them and counted (Env.Withhold).

// walkFailed words a failed walk of dir for the model. A root the walk
// refused to enter (one swapped for a link to a forbidden directory
// after ReadPath's check, or one a rule about reading covers) gets the
// guard's or the rule's own refusal.
func walkFailed(env *tools.Env, dir string, err error) tools.Result {
	var pe *fs.PathError
	if errors.Is(err, walk.ErrSkipped) && errors.As(err, &pe) {
		if cerr := env.CheckReadUnasked(pe.Path); cerr != nil {
			return tools.Errorf("%v", cerr)
		}
	}
	return tools.Errorf("%s: %v", env.Rel(dir), err)
}
