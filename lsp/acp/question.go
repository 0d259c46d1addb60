package acp

import (
	"context"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/tools"
)

// asker puts the ask tool's questions to the user. The stable protocol
// has no question request, so a question is a session/request_permission
// about the ask call whose options are the model's suggested answers
// (kind allow_once) and "Skip" (reject_once): the answer is the option
// picked; skipping, cancelling or an error is no answer, and the model
// proceeds on an assumption, as the ask tool says.
type asker struct {
	ss *session
}

var _ tools.Asker = (*asker)(nil)

// optSkip is the option that answers nothing.
const optSkip = "skip"

func (a *asker) Ask(ctx context.Context, q tools.Question) (string, error) {
	ss := a.ss
	id, _ := ss.pendingCall("ask")
	if id == "" {
		id = "ask"
	}
	options := make([]acpsdk.PermissionOption, 0, len(q.Options)+1)
	for i, o := range q.Options {
		options = append(options, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId(fmt.Sprintf("answer-%d", i)),
			Name: o, Kind: acpsdk.PermissionOptionKindAllowOnce})
	}
	options = append(options, acpsdk.PermissionOption{OptionId: optSkip, Name: "Skip", Kind: acpsdk.PermissionOptionKindRejectOnce})
	resp, err := ss.s.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(q.SessionID),
		ToolCall: acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id), Title: acpsdk.Ptr(strings.TrimSpace(q.Question)),
			Kind: acpsdk.Ptr(acpsdk.ToolKindThink), Status: acpsdk.Ptr(acpsdk.ToolCallStatusPending)},
		Options: options,
	})
	if err != nil {
		return "", err
	}
	if resp.Outcome.Cancelled != nil {
		ss.cancelTurn()
		return "", nil
	}
	if sel := resp.Outcome.Selected; sel != nil {
		for _, o := range options[:len(options)-1] {
			if o.OptionId == sel.OptionId {
				return o.Name, nil
			}
		}
	}
	return "", nil
}
