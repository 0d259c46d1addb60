package agent

import (
	"sort"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
)

// A Secret is a value that must never be written anywhere: the API keys
// read from the variables providers name in api_key_env.
type Secret struct {
	Name  string // the environment variable
	Value string
}

// minSecretLen keeps short values (a variable set to "1") from being
// "redacted" out of unrelated text.
const minSecretLen = 8

// redactor replaces secret values with a placeholder naming them.
type redactor struct {
	secrets []Secret
}

func newRedactor(secrets []Secret) redactor {
	var keep []Secret
	for _, s := range secrets {
		if len(s.Value) >= minSecretLen {
			keep = append(keep, s)
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	sort.Slice(keep, func(i, j int) bool { return len(keep[i].Value) > len(keep[j].Value) })
	return redactor{secrets: keep}
}

func (r redactor) apply(s string) string {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec.Value) {
			s = strings.ReplaceAll(s, sec.Value, "[redacted "+sec.Name+"]")
		}
	}
	return s
}

// message redacts every text field of a message.
func (r redactor) message(m provider.Message) provider.Message {
	if len(r.secrets) == 0 {
		return m
	}
	m.Content = r.apply(m.Content)
	m.Reasoning = r.apply(m.Reasoning)
	if len(m.ToolCalls) > 0 {
		calls := make([]provider.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			c.Arguments = r.apply(c.Arguments)
			calls[i] = c
		}
		m.ToolCalls = calls
	}
	return m
}
