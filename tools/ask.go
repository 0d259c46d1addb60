package tools

import "context"

// Question is what the ask tool puts to the user.
type Question struct {
	SessionID string
	Question  string
	// Options are the suggested answers, two to four. Where the front
	// end can, the user may type another.
	Options []string
}

// Asker puts the model's questions to the user: a prompt on the terminal,
// a dialog or a card in the editor. Ask returns the answer, one of the
// options or what the user typed; "" when the user gave none (dismissed
// the question). It is not a permission: no posture answers it.
type Asker interface {
	Ask(ctx context.Context, q Question) (answer string, err error)
}

type sessionKey struct{}

// WithSession returns ctx carrying the id of the session a tool call
// belongs to, which a question to the user names.
func WithSession(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, id)
}

// SessionOf returns the session id ctx carries, or "".
func SessionOf(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}
