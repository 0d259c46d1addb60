package acp_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestRefusedRead: a client that offers fs/read_text_file and answers a
// read with an error has refused it. The read fails with the client's
// reason, whatever shape its error has, and the disk is not read in its
// place; a client that does not offer reads has the file read from the
// disk.
func TestRefusedRead(t *testing.T) {
	const reason = "calc.go is outside what this editor shares"
	for _, tc := range []struct {
		name string
		ed   *editor
		// result is what the model reads in the tool result.
		result string
		// disk is whether the result holds the file as the disk has it.
		disk bool
	}{
		{
			name: "error in data, as the TypeScript SDK sends a failed handler",
			ed: &editor{refuseRead: func(string) error {
				return &acpsdk.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"details": reason}}
			}},
			result: "calc.go: the editor refused to read it: " + reason,
		},
		{
			name: "error in the message",
			ed: &editor{refuseRead: func(string) error {
				return &acpsdk.RequestError{Code: -32000, Message: reason}
			}},
			result: "calc.go: the editor refused to read it: " + reason,
		},
		{
			name: "a plain error, as the Go SDK sends it",
			ed: &editor{refuseRead: func(string) error {
				return errors.New(reason)
			}},
			result: "calc.go: the editor refused to read it: " + reason,
		},
		{
			name:   "no fs.readTextFile",
			ed:     &editor{noRead: true},
			result: "return a - b",
			disk:   true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace(t, fmt.Sprintf(`call read_file {"path": "calc.go"}
---
expect tool %s
text Done.
`, tc.result))
			conn, id := newSession(t, tc.ed, root)
			if r := prompt(t, conn, id, "read calc.go"); r.StopReason != acpsdk.StopReasonEndTurn {
				t.Fatalf("stopReason = %q", r.StopReason)
			}
			ed := tc.ed
			ed.mu.Lock()
			defer ed.mu.Unlock()
			if asked := len(ed.reads) > 0; asked == tc.disk {
				t.Errorf("the client was asked to read %v", ed.reads)
			}
			status, text := "", ""
			for _, u := range ed.updates {
				if c := u.ToolCallUpdate; c != nil && c.Status != nil && *c.Status != acpsdk.ToolCallStatusInProgress {
					status = string(*c.Status)
					for _, b := range c.Content {
						if b.Content != nil && b.Content.Content.Text != nil {
							text += b.Content.Content.Text.Text
						}
					}
				}
			}
			want := "failed"
			if tc.disk {
				want = "completed"
			}
			if status != want || !strings.Contains(text, tc.result) {
				t.Errorf("read_file ended %s with %q; want %s with %q", status, text, want, tc.result)
			}
			if !tc.disk && strings.Contains(text, "return a - b") {
				t.Errorf("the refused read returned the file from the disk: %q", text)
			}
		})
	}
}

// TestRefusedReadKeepsTheFile: a file the client refuses to read is not
// overwritten either, since what it held could not be shown in the diff
// nor put back.
func TestRefusedReadKeepsTheFile(t *testing.T) {
	root := workspace(t, `call write_file {"path": "calc.go", "content": "package calc\n"}
---
expect tool the editor refused to read it: private
text Could not.
`)
	ed := &editor{refuseRead: func(string) error { return errors.New("private") }}
	conn, id := newSession(t, ed, root)
	if r := prompt(t, conn, id, "overwrite calc.go"); r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.writes) != 0 {
		t.Errorf("fs/write_text_file calls: %+v", ed.writes)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(data) != calcGo {
		t.Errorf("calc.go after the refused read:\n%s", data)
	}
}
