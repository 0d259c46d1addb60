package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Prompt is a prompt template a server offers; front ends show it as the
// slash command /<Command>.
type Prompt struct {
	Server string `json:"server"`
	Name   string `json:"name"`
	// Command is "mcp__<server>__<prompt>", normalised like tool names.
	Command     string           `json:"command"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// A PromptArgument is one argument of a Prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// A Resource is a piece of context a server offers, which the user can
// refer to as @<server>:<uri>.
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

func (s *server) adaptPrompts(list []*mcp.Prompt) []Prompt {
	out := make([]Prompt, 0, len(list))
	for _, p := range list {
		desc := p.Description
		if desc == "" {
			desc = p.Title
		}
		q := Prompt{Server: s.name, Name: p.Name, Command: ToolName(s.name, p.Name), Description: desc}
		for _, a := range p.Arguments {
			if a == nil {
				continue
			}
			q.Arguments = append(q.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, q)
	}
	return out
}

func (s *server) adaptResources(list []*mcp.Resource) []Resource {
	out := make([]Resource, 0, len(list))
	for _, r := range list {
		desc := r.Description
		if desc == "" {
			desc = r.Title
		}
		out = append(out, Resource{Server: s.name, URI: r.URI, Name: r.Name, Description: desc, MIMEType: r.MIMEType})
	}
	return out
}

// Prompts returns the prompts of every connected server, sorted by
// Command.
func (m *Manager) Prompts() []Prompt {
	var all []Prompt
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state != stateClosed {
			all = append(all, s.prompts...)
		}
		s.mu.Unlock()
	}
	uniqueNames(all, func(p Prompt) string { return p.Server + "\x00" + p.Name },
		func(p Prompt) string { return p.Command },
		func(p Prompt, name string) Prompt { p.Command = name; return p })
	slices.SortFunc(all, func(a, b Prompt) int { return strings.Compare(a.Command, b.Command) })
	return all
}

// Resources returns the resources of every connected server, sorted by
// server and URI.
func (m *Manager) Resources() []Resource {
	var all []Resource
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state != stateClosed {
			all = append(all, s.resources...)
		}
		s.mu.Unlock()
	}
	slices.SortFunc(all, func(a, b Resource) int {
		if c := strings.Compare(a.Server, b.Server); c != 0 {
			return c
		}
		return strings.Compare(a.URI, b.URI)
	})
	return all
}

// GetPrompt asks server for its prompt name filled in with args, and
// renders the messages as plain text for a user turn: text joined by blank
// lines, embedded resources inline, other content described. Messages in
// the assistant's voice are marked as such.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	s, err := m.lookup(server)
	if err != nil {
		return "", err
	}
	var res *mcp.GetPromptResult
	err = s.do(ctx, s.callTimeout(), func(ctx context.Context, cs *mcp.ClientSession) error {
		var err error
		res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		return err
	})
	if err != nil {
		return "", wrapRequestError(ctx, err, "getting prompt %q", name)
	}
	var parts []string
	for _, msg := range res.Messages {
		if msg == nil {
			continue
		}
		text := renderBlock(msg.Content)
		if text == "" {
			continue
		}
		if msg.Role == "assistant" {
			text = "(assistant) " + text
		}
		parts = append(parts, text)
	}
	return capOutput(strings.Join(parts, "\n\n")), nil
}

// ReadResource reads a resource from server as text: text contents under
// their URI when there are several, binary contents described, the whole
// cut at 256 KiB.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (string, error) {
	s, err := m.lookup(server)
	if err != nil {
		return "", err
	}
	var res *mcp.ReadResourceResult
	err = s.do(ctx, s.callTimeout(), func(ctx context.Context, cs *mcp.ClientSession) error {
		var err error
		res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return err
	})
	if err != nil {
		return "", wrapRequestError(ctx, err, "reading %s", uri)
	}
	var contents []*mcp.ResourceContents
	for _, c := range res.Contents {
		if c != nil {
			contents = append(contents, c)
		}
	}
	if len(contents) == 1 && contents[0].Blob == nil {
		return capOutput(contents[0].Text), nil
	}
	parts := make([]string, 0, len(contents))
	for _, c := range contents {
		parts = append(parts, renderResourceContents(c))
	}
	if len(parts) == 0 {
		return "(no content)", nil
	}
	return capOutput(strings.Join(parts, "\n\n")), nil
}

// wrapRequestError adds what was asked to err, except to the end of ctx,
// which is returned as is.
func wrapRequestError(ctx context.Context, err error, format string, args ...any) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
