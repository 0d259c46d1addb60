package agent

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/memory"
	"github.com/reasonix/reasonix/tools/walk"
)

// defaultSystemPrompt is the built-in system prompt.
//
//go:embed prompt.md
var defaultSystemPrompt string

// leanSystemPrompt is the built-in system prompt of the lean tool
// profile, short as its tools' descriptions are.
//
//go:embed prompt_lean.md
var leanSystemPrompt string

// toolConventions is what holds for every built-in tool, said once here
// rather than in each tool's description: those are sent on every
// request, and a repeated sentence is paid for each time it appears. It
// follows any base prompt, a configured one included, so the
// descriptions, which count on it, never go without it.
//
//go:embed tools.md
var toolConventions string

// MemoryFiles are the project memory files, in the order they enter the
// system prompt and of their precedence: Reasonix's own file, then
// AGENTS.md, which many agents read, then Claude Code's CLAUDE.md. Every
// one present is read, so a project set up for another agent works as it
// is; a file that says the same as an earlier one (CLAUDE.md a link to
// AGENTS.md, or a copy) is left out.
var MemoryFiles = []string{"REASONIX.md", "AGENTS.md", "CLAUDE.md"}

// LocalMemoryFile is Claude Code's memory file for the user's own notes
// on a project, kept out of version control: read at the workspace root
// after MemoryFiles.
const LocalMemoryFile = "CLAUDE.local.md"

// UserMemoryName is how the system message names Claude Code's memory
// file for all of the user's projects, read after the project's.
const UserMemoryName = "~/.claude/CLAUDE.md"

// claudeMemory reports whether the memory file name is Claude Code's,
// whose `@path` imports are read (memory_imports.go).
func claudeMemory(name string) bool {
	return name == "CLAUDE.md" || name == LocalMemoryFile || name == UserMemoryName
}

// maxMemoryBytes bounds project memory; it is paid for on every request
// (at the cached rate), so a huge file is cut rather than carried.
const maxMemoryBytes = 64 << 10

// BuildSystemPrompt assembles the session's system message: the base
// prompt, the workspace facts that do not change during a session, and the
// project memory. Nothing volatile goes in (no time, no directory listing):
// this message opens the cached prefix and must stay byte-identical for the
// whole session.
//
// The memory files are read as the read tools read a file: opened first,
// then judged by check (the session's read guard; nil allows all) on
// their real path, so a memory file that is a link into forbid_read (a
// repository can commit AGENTS.md -> ~/.aws/credentials) stays out.
func BuildSystemPrompt(base, root string, check func(real string) error) string {
	if strings.TrimSpace(base) == "" {
		base = defaultSystemPrompt
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(base))
	fmt.Fprintf(&b, "\n\n# Environment\nWorkspace root: %s\nOperating system: %s/%s\n\n%s",
		root, runtime.GOOS, runtime.GOARCH, toolConventions)
	var seen memorySeen
	var names []string
	home, _ := os.UserHomeDir()
	project := &importer{root: root, home: home, check: check}
	// Claude Code's order, which is its precedence: the project's file,
	// the user's, then the user's own notes on the project.
	for _, name := range append(slices.Clone(MemoryFiles), UserMemoryName, LocalMemoryFile) {
		heading, path, im := "Project memory", filepath.Join(root, name), project
		if name == UserMemoryName {
			// The user's own file may import whatever the read rules
			// let the agent read.
			if home == "" {
				continue
			}
			heading, path, im = "User memory", filepath.Join(home, ".claude", "CLAUDE.md"), &importer{root: root, home: home, check: check, anywhere: true}
		}
		text, real, ok := seen.read(path, check)
		if !ok {
			continue
		}
		if claudeMemory(name) {
			text = im.expand(text, real)
		}
		names = append(names, name)
		fmt.Fprintf(&b, "\n# %s (%s)\n%s\n", heading, name, text)
	}
	if len(names) > 1 {
		fmt.Fprintf(&b, "\nWhere these files disagree, %s.\n", precedence(names))
	}
	return b.String()
}

// precedence words the order of the memory files: "REASONIX.md takes
// precedence over AGENTS.md, and AGENTS.md over CLAUDE.md".
func precedence(names []string) string {
	parts := []string{names[0] + " takes precedence over " + names[1]}
	for i := 2; i < len(names); i++ {
		parts = append(parts, names[i-1]+" over "+names[i])
	}
	return strings.Join(parts, ", and ")
}

// memorySeen is what a session read of its memory files, so that a file
// is not read twice: their real paths and their texts.
type memorySeen struct {
	real, text map[string]bool
}

// read reads the memory file at path, judged on its real path by check,
// trimmed and cut at maxMemoryBytes. ok is false for a file that is
// missing, refused, empty, or that says what an earlier one said.
func (m *memorySeen) read(path string, check func(real string) error) (text, real string, ok bool) {
	data, real, err := readMemory(path, check)
	if err != nil {
		return "", "", false
	}
	text, ok = m.add(real, data)
	return text, real, ok
}

// add takes a memory file's content, read from real.
func (m *memorySeen) add(real string, data []byte) (text string, ok bool) {
	if m.real == nil {
		m.real, m.text = map[string]bool{}, map[string]bool{}
	}
	text = strings.TrimSpace(string(data))
	if text == "" || m.real[real] || m.text[text] {
		return "", false
	}
	m.real[real], m.text[text] = true, true
	if len(text) > maxMemoryBytes {
		text = text[:maxMemoryBytes] + "\n[… cut: the file is longer than 64 KiB]"
	}
	return text, true
}

// readMemory reads a memory file and returns it with its real path: a
// regular file only, and no more of it than maxMemoryBytes and a byte, so
// that a memory file linked to /dev/zero, to a named pipe or to a huge
// file costs nothing (add cuts what is longer).
func readMemory(path string, check func(real string) error) ([]byte, string, error) {
	f, err := walk.Open(path, check)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	if err := tools.Regular(f); err != nil {
		return nil, "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxMemoryBytes+1))
	return data, f.Name(), err
}

// systemMessage is a new session's system message: BuildSystemPrompt's,
// then the index of the memory as it stands now, when the memory tool is
// offered to read it, and the list of skills, when the skill tool is
// offered to load them. Both are taken once, so the cached prefix holds
// for the session; notes saved or forgotten and skills added during it
// are seen through the tools, and in the next session's prompt.
//
// It is redacted as every message a session appends is: it takes in
// files the user did not write for the model (a memory file a repository
// committed as a link to a shell profile that exports the key, a note
// written by hand), and it opens every request and the session file.
func (a *Agent) systemMessage() string {
	return newRedactor(a.Secrets).apply(a.systemText())
}

// systemText is systemMessage before redaction.
func (a *Agent) systemText() string {
	system := BuildSystemPrompt(a.SystemPrompt, a.Env.Root, a.Env.CheckReadUnasked)
	if a.Tools == nil {
		return system
	}
	if _, ok := a.Tools.Get("memory"); ok {
		if idx := memory.ForEnv(a.Env).Index(); idx != "" {
			system += "\n" + idx
		}
	}
	if idx := a.skillIndex(); idx != "" {
		system += "\n" + idx
	}
	return system
}

// PrefixHash fingerprints the immutable prefix: the system prompt and the
// tool schemas, exactly as they are sent.
func PrefixHash(system string, schemas []provider.ToolSchema) string {
	h := sha256.New()
	h.Write([]byte(system))
	h.Write([]byte{0})
	b, _ := json.Marshal(schemas)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
