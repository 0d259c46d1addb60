package builtin

import (
	"context"
	"fmt"

	"github.com/reasonix/reasonix/tools"
)

// applyServerChanges applies the changes a language server computed
// (a rename, a code action, a formatting) through the FS, as any edit: every
// file they touch must be writable, and the write seam judges each by
// the rules about files. It returns the absolute paths changed; an error
// is worded for the model, what names what was being applied.
func applyServerChanges(ctx context.Context, env *tools.Env, changes []tools.Change, what string) ([]string, error) {
	var changed []string
	for i := range changes {
		p, err := env.WritePath(changes[i].Path)
		if err != nil {
			return nil, err
		}
		changes[i].Path = p
		if changes[i].NewPath != "" {
			np, err := env.WritePath(changes[i].NewPath)
			if err != nil {
				return nil, err
			}
			changes[i].NewPath = np
			changed = append(changed, np)
		}
		changed = append(changed, p)
	}
	if err := env.FS.Apply(ctx, changes); err != nil {
		return nil, fmt.Errorf("applying %s: %w", what, err)
	}
	return changed, nil
}

// graphActor returns the project graph as a tools.CodeActor, or the
// model's reason there is none.
func graphActor(env *tools.Env, instead string) (tools.CodeActor, error) {
	if env.Graph == nil {
		return nil, fmt.Errorf("the project graph is turned off ([graph] enabled = false); %s", instead)
	}
	ca, ok := env.Graph.(tools.CodeActor)
	if !ok {
		return nil, fmt.Errorf("this project graph offers no code actions; %s", instead)
	}
	return ca, nil
}
