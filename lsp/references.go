package lsp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reasonix/reasonix/tools/walk"
)

// References: "@path" in a prompt names a file or directory of the
// workspace, and its content (from the editor's buffer when the file is
// open) or listing is attached to the prompt. An "@" word that names
// nothing, such as an e-mail address or a mention, stays as written.

const (
	// maxReferenceBytes caps one attached file.
	maxReferenceBytes = 64 << 10
	// maxListing caps a directory listing.
	maxListing = 200
)

// attachReferences appends the files and directories prompt refers to.
func (s *Server) attachReferences(prompt string, ws *workspace) string {
	root := ws.root
	seen := map[string]bool{}
	var blocks []string
	for _, word := range strings.Fields(prompt) {
		if !strings.HasPrefix(word, "@") || len(word) < 2 {
			continue
		}
		ref := strings.TrimRightFunc(word[1:], func(r rune) bool { return strings.ContainsRune(".,;:!?)]}'\"", r) })
		if ref == "" || seen[ref] {
			continue
		}
		abs := ref
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, filepath.FromSlash(ref))
		}
		abs = filepath.Clean(abs)
		if abs != root && !strings.HasPrefix(abs, root+string(filepath.Separator)) {
			continue // only the workspace is attached
		}
		if _, err := ws.agent.Env.ReadPath(abs); err != nil {
			// Secrets stay secret: the reference is named, not read.
			seen[ref] = true
			blocks = append(blocks, fmt.Sprintf("<file path=%q>(not attached: reading it is forbidden by [sandbox] forbid_read)</file>", ref))
			continue
		}
		block, ok := s.referenceBlock(abs, ref, ws.agent.Env.CheckRead)
		if !ok {
			continue
		}
		seen[ref] = true
		blocks = append(blocks, block)
	}
	if len(blocks) == 0 {
		return prompt
	}
	return prompt + "\n\n" + strings.Join(blocks, "\n")
}

// referenceBlock renders one reference, or reports that it names nothing.
// What it reads from the disk it judges with check by the real path of
// what it opened, so a link swapped in since the reference was checked
// leads nowhere forbidden.
func (s *Server) referenceBlock(abs, ref string, check func(string) error) (string, bool) {
	fs := &editorFS{s: s}
	fi, err := fs.Stat(abs)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return fmt.Sprintf("<directory path=%q>\n%s</directory>", ref, listing(abs, check)), true
	}
	data, held, err := fs.Overlaid(abs)
	if !held {
		var f *os.File
		if f, err = walk.Open(abs, check); err == nil {
			data, err = io.ReadAll(f)
			f.Close()
		}
	}
	if err != nil {
		return "", false
	}
	if !isText(data) {
		return fmt.Sprintf("<file path=%q>(binary, %d bytes, not shown)</file>", ref, len(data)), true
	}
	text := string(data)
	if len(text) > maxReferenceBytes {
		text = text[:maxReferenceBytes] + fmt.Sprintf("\n[… cut: %d bytes in all; read_file shows the rest]", len(data))
	}
	return fmt.Sprintf("<file path=%q>\n%s\n</file>", ref, strings.TrimRight(text, "\n")), true
}

// listing lists a directory one level deep, directories first.
func listing(dir string, check func(string) error) string {
	f, err := walk.Open(dir, check)
	if err != nil {
		return "(unreadable)\n"
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return "(unreadable)\n"
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].IsDir() != entries[j].IsDir() {
			return entries[i].IsDir()
		}
		return entries[i].Name() < entries[j].Name()
	})
	var b strings.Builder
	for i, e := range entries {
		if i == maxListing {
			fmt.Fprintf(&b, "… %d more\n", len(entries)-i)
			break
		}
		name := e.Name()
		if name == ".git" {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		b.WriteString(name + "\n")
	}
	return b.String()
}

// isText reports whether data looks like text: no NUL byte near the start.
func isText(data []byte) bool {
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) < 0
}
