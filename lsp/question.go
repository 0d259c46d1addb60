package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools"
)

// asker puts the ask tool's questions to the user: reasonix/ask for
// clients that declared questions (a chat panel's card, a picker that
// also takes typed answers), else window/showMessageRequest with the
// suggested answers as its actions. That dialog is not a permission
// question: its actions are the model's options, not the four fixed
// titles.
type asker struct {
	s *Server
}

var _ tools.Asker = (*asker)(nil)

// questionParams is the reasonix/ask request.
type questionParams struct {
	SessionID string   `json:"sessionId"`
	Question  string   `json:"question"`
	Options   []string `json:"options"`
	// AllowText says the user may answer in their own words.
	AllowText bool `json:"allowText"`
}

type questionResult struct {
	Answer *string `json:"answer"`
}

func (a *asker) Ask(ctx context.Context, q tools.Question) (string, error) {
	s := a.s
	s.mu.Lock()
	custom := s.caps.questions
	s.mu.Unlock()
	if custom {
		var res questionResult
		params := questionParams{SessionID: q.SessionID, Question: q.Question, Options: q.Options, AllowText: true}
		if _, err := s.conn.Call(ctx, methodAsk, params, &res); err != nil {
			return "", err
		}
		if res.Answer == nil {
			return "", nil
		}
		return *res.Answer, nil
	}
	actions := make([]protocol.MessageActionItem, len(q.Options))
	for i, o := range q.Options {
		actions[i] = protocol.MessageActionItem{Title: o}
	}
	item, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeInfo,
		Message: "Reasonix asks: " + q.Question,
		Actions: actions,
	})
	if err != nil || item == nil {
		return "", err // dismissed: no answer
	}
	if !slices.Contains(q.Options, item.Title) {
		return "", nil // not one of ours: no answer
	}
	return item.Title, nil
}
