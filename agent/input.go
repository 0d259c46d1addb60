package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/reasonix/reasonix/tools/skills"
)

// The prompt pipeline. Every front end — `reasonix run`, the language
// server's reasonix.ask and reasonix.start, the chat panels through them —
// hands the agent an Input, and RunInput makes it a turn the same way:
//
//  1. dispatch: a first word that names a slash command is that command.
//     A built-in becomes an Action and no turn runs; a custom command's
//     body, or an MCP prompt as its server renders it, replaces the text
//     (and a command may name the model its turn runs on).
//  2. attach: the editor's attachments and the text's @ references are
//     rendered after the text, into the user message of the turn.

// Input is one prompt as a front end hands it over.
type Input struct {
	// Text is what the user typed.
	Text string
	// Attachments are what the editor adds: its selection, its file.
	Attachments []Attachment
}

// prepared is an Input after the pipeline.
type prepared struct {
	// text is the prompt, as typed or as its command made it; it opens
	// the turn (EventTurnStart).
	text string
	// fromCommand is set when text is a command's (a command file's, a
	// skill's, an MCP prompt's) and typed what the user typed after the
	// command: the MCP resources text names are read only when the user
	// typed them (see references).
	fromCommand bool
	typed       string
	// attached follows text in the user message: the attachments and
	// references, rendered.
	attached string
	// model is the model reference the turn runs on; "" for the
	// session's.
	model string
	// effort is the reasoning effort the turn asks for; "" for the
	// session's.
	effort string
	// notices are told the user as the turn starts.
	notices []string

	// action is set for a built-in command; no turn runs.
	action *Action
	// local is a built-in's answer.
	local string
}

// prepare runs the pipeline on in.
func (a *Agent) prepare(ctx context.Context, s *Session, in Input) (prepared, error) {
	p, err := a.dispatch(ctx, s, in.Text, false)
	if err != nil || p.action != nil {
		return p, err
	}
	typed := p.text
	if p.fromCommand {
		typed = p.typed
	}
	attached, notices := a.attach(ctx, p.text, typed, in.Attachments)
	p.attached = attached
	p.notices = append(p.notices, notices...)
	return p, nil
}

// slashName splits a prompt into its first word and the rest.
func slashName(prompt string) (name, rest string) {
	line := strings.TrimSpace(prompt)
	i := strings.IndexFunc(line, unicode.IsSpace)
	if i < 0 {
		return line, ""
	}
	return line[:i], strings.TrimSpace(line[i:])
}

// dispatch interprets the command text may start with. A first word that
// could be a command but names none is an error, unless it is a path
// ("/tmp is full"). nested is set for the prompt after /model REF.
func (a *Agent) dispatch(ctx context.Context, s *Session, text string, nested bool) (prepared, error) {
	name, rest := slashName(text)
	if !commandWord(name) {
		return prepared{text: text}, nil
	}
	cmds, warnings := a.Commands()
	p := prepared{text: text, notices: warnings}
	var c *Command
	for i := range cmds {
		if cmds[i].Name == name {
			c = &cmds[i]
			break
		}
	}
	switch {
	case c == nil && strings.HasPrefix(name, "/mcp__"):
		return p, a.noSuchPrompt(name, cmds)
	case c == nil && a.isPath(name):
		return prepared{text: text}, nil
	case c == nil:
		return p, fmt.Errorf("%s: no such command; /help lists them", name)
	case c.custom != nil:
		body, err := c.custom.expand(rest)
		if err != nil {
			return p, fmt.Errorf("%s: %w", name, err)
		}
		if ref := c.custom.model; ref != "" {
			// Said here, naming the file to fix, not once the turn starts.
			if _, err := a.onModel(ref); err != nil {
				return p, fmt.Errorf("%s: %s: %w", name, shortPath(c.custom.path, a.root()), err)
			}
		}
		if body, err = a.runCommandShell(ctx, s, body); err != nil {
			return p, fmt.Errorf("%s: %w", name, err)
		}
		p.text, p.model = body, c.custom.model
		p.fromCommand, p.typed = true, rest
		return p, nil
	case c.skill != nil:
		body, err := skills.Render(a.Env, *c.skill)
		if err != nil {
			return p, fmt.Errorf("%s: %w", name, err)
		}
		if rest != "" {
			body += "\n\nARGUMENTS: " + rest
		}
		p.text = body
		p.fromCommand, p.typed = true, rest
		return p, nil
	case c.prompt != nil:
		args, err := promptArguments(*c.prompt, rest)
		if err != nil {
			return p, fmt.Errorf("%s: %w", name, err)
		}
		rendered, err := a.Plugins.GetPrompt(ctx, c.prompt.Server, c.prompt.Name, args)
		if err != nil {
			return p, fmt.Errorf("%s: %w", name, err)
		}
		p.text = rendered
		p.fromCommand, p.typed = true, rest
		return p, nil
	}
	p.action = &Action{Kind: c.builtin}
	switch c.builtin {
	case ActionHelp:
		p.local = a.helpText(cmds)
	case ActionCost:
		p.local = a.costText(s)
	case ActionContext:
		p.local = a.contextText(s)
	case ActionMCP:
		p.local = a.PluginStatus()
	case ActionTrust:
		switch rest {
		case "":
			p.local = a.trustText()
		case "revoke":
			p.action.Revoke = true
		default:
			return p, fmt.Errorf("/trust takes nothing, or revoke, not %q", rest)
		}
	case ActionModel:
		return a.switchModel(ctx, s, p, rest, nested)
	case ActionEffort:
		return a.setEffort(ctx, s, p, rest, nested)
	case ActionRewind:
		if rest == "" {
			list, err := a.rewindList(s)
			p.local = list
			return p, err
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return p, fmt.Errorf("/rewind takes nothing, or the number of a turn, not %q", rest)
		}
		p.action.Turn = n
	}
	return p, nil
}

// switchModel is /model: without a reference it shows the model; with
// one alone it switches the session to it; with a prompt after it, it
// runs that prompt (itself a command, perhaps) on the model, once.
func (a *Agent) switchModel(ctx context.Context, s *Session, p prepared, rest string, nested bool) (prepared, error) {
	if rest == "" {
		p.local = a.modelText(s)
		return p, nil
	}
	if nested {
		return p, fmt.Errorf("/model: a prompt after /model REF cannot be another /model")
	}
	ref, tail := slashName(rest)
	on, err := a.onModel(ref)
	if err != nil {
		return p, fmt.Errorf("/model: %w", err)
	}
	if tail == "" {
		// The front end says so: in `reasonix run` a switch alone means
		// nothing.
		s.SetModel(on.ModelRef)
		p.action.Model = on.ModelRef
		return p, nil
	}
	return a.thenPrompt(ctx, s, p, tail, func(q *prepared) { q.model = on.ModelRef })
}

// thenPrompt puts the prompt after /model REF or /effort LEVEL through
// the pipeline, and lets mark set what the turn it makes runs with.
func (a *Agent) thenPrompt(ctx context.Context, s *Session, p prepared, tail string, mark func(*prepared)) (prepared, error) {
	q, err := a.dispatch(ctx, s, tail, true)
	q.notices = append(p.notices, q.notices...)
	if q.action == nil {
		mark(&q)
	}
	return q, err
}

// noSuchPrompt explains a /mcp__… word that names no MCP prompt.
func (a *Agent) noSuchPrompt(name string, cmds []Command) error {
	if a.Plugins == nil {
		return fmt.Errorf("%s: no MCP servers are configured", name)
	}
	var names []string
	for _, c := range cmds {
		if c.prompt != nil {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("%s: the MCP servers offer no prompts", name)
	}
	return fmt.Errorf("%s: no such MCP prompt; there are %s", name, strings.Join(names, ", "))
}

// isPath reports whether word names something on the disk, as an
// absolute path or one relative to the workspace root: a prompt that
// starts with a path is a prompt, not a command.
func (a *Agent) isPath(word string) bool {
	if _, err := os.Lstat(word); err == nil {
		return true
	}
	if root := a.root(); root != "" {
		if _, err := os.Lstat(filepath.Join(root, strings.TrimPrefix(word, "/"))); err == nil {
			return true
		}
	}
	return false
}
