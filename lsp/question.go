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

// Ask returns the answer, "" for none: dismissed, or not given in time
// (await). A client that cannot be asked gets no question
// (errCannotAsk).
func (a *asker) Ask(ctx context.Context, q tools.Question) (string, error) {
	s := a.s
	caps := s.capsNow()
	way := caps.askWay(caps.questions)
	if way == askNever {
		return "", errCannotAsk
	}
	var answer *string
	err := s.await(ctx, "The agent's question", "it carries on without an answer", func(ctx context.Context) error {
		if way == askCustom {
			params := questionParams{SessionID: q.SessionID, Question: q.Question, Options: q.Options, AllowText: true}
			res, err := askQuestion.call(ctx, s, params)
			answer = res.Answer
			return err
		}
		actions := make([]protocol.MessageActionItem, len(q.Options))
		for i, o := range q.Options {
			actions[i] = protocol.MessageActionItem{Title: o}
		}
		item, err := showMessageRequest.call(ctx, s, &protocol.ShowMessageRequestParams{
			Type:    protocol.MessageTypeInfo,
			Message: "Reasonix asks: " + q.Question,
			Actions: actions,
		})
		if item != nil && slices.Contains(q.Options, item.Title) {
			answer = &item.Title // else dismissed, or not one of ours: no answer
		}
		return err
	})
	switch {
	case unanswered(err):
		return "", nil
	case err != nil || answer == nil:
		return "", err
	}
	return *answer, nil
}
