package agent

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/tools/walk"
)

//go:embed prompt.md
var defaultSystemPrompt string

// DefaultSystemPrompt is the built-in system prompt.
func DefaultSystemPrompt() string { return defaultSystemPrompt }

// MemoryFiles are the project memory files read from the workspace root, in
// order, into the system prompt.
var MemoryFiles = []string{"REASONIX.md", "AGENTS.md"}

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
	fmt.Fprintf(&b, "\n\n# Environment\nWorkspace root: %s\nOperating system: %s/%s\nPaths in tool calls are relative to the workspace root unless absolute.\n",
		root, runtime.GOOS, runtime.GOARCH)
	for _, name := range MemoryFiles {
		data, err := readMemory(filepath.Join(root, name), check)
		if err != nil || len(strings.TrimSpace(string(data))) == 0 {
			continue
		}
		text := string(data)
		if len(text) > maxMemoryBytes {
			text = text[:maxMemoryBytes] + "\n[… cut: the file is longer than 64 KiB]"
		}
		fmt.Fprintf(&b, "\n# Project memory (%s)\n%s\n", name, strings.TrimSpace(text))
	}
	return b.String()
}

func readMemory(path string, check func(real string) error) ([]byte, error) {
	f, err := walk.Open(path, check)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return walk.ReadAll(f, nil, 0)
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
