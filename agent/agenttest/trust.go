package agenttest

import (
	"testing"

	"github.com/reasonix/reasonix/agent/config"
)

// Trust records, in the Reasonix directory of the environment
// (REASONIX_HOME), that the user trusts what the workspace dir's own
// reasonix.toml and .mcp.json bring as they are now: the providers,
// servers and looser settings a test writes there take effect, as they
// would once a user trusted them.
func Trust(tb testing.TB, dir string) {
	tb.Helper()
	cfg, err := config.Load(config.Options{Dir: dir})
	if err != nil {
		tb.Fatalf("trusting %s: %v", dir, err)
	}
	if len(cfg.Workspace.Items) == 0 {
		return
	}
	if err := config.Trust(cfg.Workspace); err != nil {
		tb.Fatalf("trusting %s: %v", dir, err)
	}
}
