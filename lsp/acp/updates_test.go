package acp_test

import (
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestLaterUpdatesOnlyToLaterSchemas: usage_update and
// config_option_update, which the first schema of protocol version 1
// lacks, go only to a client that sends clientInfo; a client that does
// not still gets the turn's usage in the prompt's answer.
func TestLaterUpdatesOnlyToLaterSchemas(t *testing.T) {
	for _, tc := range []struct {
		name        string
		firstSchema bool
	}{
		{"a client that names itself", false},
		{"a client on the first schema", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace(t, "text Done.\n")
			ed := &editor{firstSchema: tc.firstSchema}
			conn, id := newSession(t, ed, root)
			r := prompt(t, conn, id, "hello")
			if r.StopReason != acpsdk.StopReasonEndTurn || r.Usage == nil || r.Usage.InputTokens == 0 {
				t.Fatalf("prompt answered %+v", r)
			}
			prompt(t, conn, id, "/model scripted/deepseek-flash")
			ed.mu.Lock()
			defer ed.mu.Unlock()
			usage, options := 0, 0
			for _, u := range ed.updates {
				if u.UsageUpdate != nil {
					usage++
				}
				if u.ConfigOptionUpdate != nil {
					options++
				}
			}
			sent, none := usage > 0 && options > 0, usage == 0 && options == 0
			if tc.firstSchema && !none || !tc.firstSchema && !sent {
				t.Errorf("usage_update ×%d, config_option_update ×%d; the client is on the first schema: %v", usage, options, tc.firstSchema)
			}
		})
	}
}
