package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/reasonix/reasonix/agent/config"
)

// A shell command the model runs, or a repository the user clones, can
// change a config file so that the next session is weaker: the jail off,
// an allow rule more, an MCP server added. Such a change must not be
// taken silently. At the start of each session the front end calls
// ReviewConfig, which compares the security settings of the configuration
// with those of the workspace's last session, recorded under Reasonix's
// user directory, and words what loosened since for the user.

// recordDir is the directory, under config.Home, of the records: one
// JSON file per workspace.
const recordDir = "security"

// reviewMu serialises reading and writing the records within the
// process: the LSP server may build a workspace's agent twice at once
// after a settings change, and only one of the builds may tell.
var reviewMu sync.Mutex

// securityRecord is the file kept per workspace: the security settings
// seen at its last session.
type securityRecord struct {
	Workspace string `json:"workspace"`
	config.Security
}

// ReviewConfig compares the security settings of cfg, the configuration
// of the workspace dir as loaded from its files, with those recorded at
// the workspace's last session, records the new ones and returns what to
// show the user: a notice of every change that lets the agent do more,
// and notes on a record that could not be read or written. What the
// workspace's own reasonix.toml and .mcp.json loosen is not told here:
// it needs the user's trust before it takes effect (config.WorkspaceTrust),
// and a trusted one was shown to the user when they trusted it. So the
// review is of the user's own files, which a command cannot write (they
// are in Reasonix's directory) but another program or a synced dotfile
// repository can. A workspace without a record is compared with nothing:
// its first session sets the base.
//
// Nothing here stops a session: problems become notes.
func ReviewConfig(cfg *config.Config, dir string) []string {
	reviewMu.Lock()
	defer reviewMu.Unlock()
	dir = config.Canonical(dir)
	path, err := recordPath(dir)
	if err != nil {
		return []string{"cannot compare the configuration with the last session: " + err.Error()}
	}
	cur := cfg.Security(dir)
	ownOnly := func(changes []config.Change) []config.Change {
		var out []config.Change
		for _, c := range changes {
			if !config.IsWorkspaceFile(dir, c.At.File) {
				out = append(out, c)
			}
		}
		return out
	}
	var msgs []string
	old, err := readRecord(path, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		msgs = append(msgs, fmt.Sprintf("cannot read the record of the last session (%v); comparing the configuration with the defaults", err))
		msgs = appendNotice(msgs, ownOnly(config.Loosened(config.Defaults().Security(dir), cur)),
			"the configuration of "+dir+" lets the agent do more than the defaults:",
			"If you did not choose these settings, undo them.")
	default:
		msgs = appendNotice(msgs, ownOnly(config.Loosened(old, cur)),
			"the configuration of "+dir+" lets the agent do more than in the last session:",
			"If you did not make these changes, undo them.")
	}
	if err := writeRecord(path, securityRecord{Workspace: dir, Security: cur}); err != nil {
		msgs = append(msgs, fmt.Sprintf("cannot record the configuration for the next session: %v", err))
	}
	return msgs
}

// appendNotice adds one message listing changes, if there are any.
func appendNotice(msgs []string, changes []config.Change, head, tail string) []string {
	if len(changes) == 0 {
		return msgs
	}
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, c := range changes {
		b.WriteString("  " + c.String() + "\n")
	}
	b.WriteString(tail)
	return append(msgs, b.String())
}

// recordingGrants wraps persist, which writes an "Always allow" grant to
// the workspace's reasonix.toml, so that the grant is trusted: it is the
// user's own word, and must not be withheld from the next session as an
// untrusted entry of the workspace's configuration.
func recordingGrants(persist func(rule string) error, dir string) func(rule string) error {
	return func(rule string) error {
		if err := persist(rule); err != nil {
			return err
		}
		return config.TrustGrant(dir, rule)
	}
}

// recordPath names dir's record.
func recordPath(dir string) (string, error) { return config.RecordPath(recordDir, dir) }

// readRecord reads dir's record; fs.ErrNotExist when there is none.
func readRecord(path, dir string) (config.Security, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return config.Security{}, err
	}
	var rec securityRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return config.Security{}, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Workspace != dir {
		return config.Security{}, fmt.Errorf("%s records %q, not this workspace", path, rec.Workspace)
	}
	return rec.Security, nil
}

// writeRecord replaces the record at path, unless it already says the
// same.
func writeRecord(path string, rec securityRecord) error { return config.WriteRecord(path, rec) }
