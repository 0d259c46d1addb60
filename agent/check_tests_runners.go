package agent

import (
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/gotest"
	"github.com/reasonix/reasonix/tools/pytest"
	"github.com/reasonix/reasonix/tools/testrun"
)

// testRunners are the runners a turn's changes are tested with, one a
// language: Go's (tools/gotest), and Python's where the project
// configures pytest (tools/pytest), which asks the project graph which
// tests reach a change.
func (t *turn) testRunners() []testrun.Runner {
	finder, _ := t.a.Env.Graph.(tools.ImpactFinder)
	return []testrun.Runner{{
		Command: "go test ./...",
		Matches: func(path string) bool { return strings.HasSuffix(path, ".go") },
		Run:     gotest.Run,
	}, pytest.Runner(finder)}
}
