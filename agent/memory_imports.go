package agent

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Claude Code's memory files may import others: `@path` on its own word,
// outside code, names a file whose text joins the memory, relative to
// the importing file's directory, absolute, or from the home directory
// (`@~/.claude/my-project.md`); an imported file may import in turn, to
// maxImportDepth. Reasonix reads them for CLAUDE.md, CLAUDE.local.md and
// ~/.claude/CLAUDE.md, Claude Code's files, after the importing file's
// text, each once, in <import path="…"> tags.
//
// What a file may import depends on whose it is. The user's own
// ~/.claude/CLAUDE.md may import any file the read rules let the agent
// read. A workspace's file was written by whoever wrote the repository,
// and the memory goes to the model provider on every request: it may
// import files of the workspace, and Markdown files under ~/.claude
// (where Claude Code's users keep their own instructions for a project),
// nothing else — not ~/.claude's credentials, not ~/.ssh. An import that
// is refused or missing stays in the text as written.

// maxImportDepth is how deep imports nest, as in Claude Code.
const maxImportDepth = 5

// maxImports bounds the files one memory file brings in, its imports'
// imports included.
const maxImports = 20

// importRef is an `@path` word: at the start of a line or after a space,
// a path of no spaces.
var importRef = regexp.MustCompile(`(?:^|[ \t(])@((?:~/|/|\.{1,2}/|[A-Za-z0-9_])[^\s` + "`" + `()]*)`)

// importer reads the imports of memory files.
type importer struct {
	// root is the workspace root; home the user's home directory, ""
	// when there is none.
	root, home string
	// check is the read guard every file passes, on its real path.
	check func(real string) error
	// anywhere allows imports from any readable file: the user's own
	// memory file.
	anywhere bool
	// seen holds the real paths read, the importing files' included.
	seen map[string]bool
	n    int
}

// expand returns text, the memory file at real, followed by the files it
// imports.
func (im *importer) expand(text, real string) string {
	if im.seen == nil {
		im.seen = map[string]bool{}
	}
	im.seen[real] = true
	var b strings.Builder
	b.WriteString(text)
	im.appendImports(&b, text, filepath.Dir(real), 1)
	return b.String()
}

// appendImports appends to b the files text imports, read relative to
// dir, depth levels down.
func (im *importer) appendImports(b *strings.Builder, text, dir string, depth int) {
	if depth > maxImportDepth {
		return
	}
	for _, ref := range importRefs(text) {
		if im.n >= maxImports {
			return
		}
		path := im.resolve(ref, dir)
		if path == "" {
			continue
		}
		data, real, err := readMemory(path, im.check)
		if err != nil || im.seen[real] || !im.allowed(real) {
			continue
		}
		im.seen[real] = true
		im.n++
		body := strings.TrimSpace(string(data))
		if len(body) > maxMemoryBytes {
			body = body[:maxMemoryBytes] + "\n[… cut: the file is longer than 64 KiB]"
		}
		fmt.Fprintf(b, "\n\n<import path=%q>\n%s\n</import>", im.shown(real), body)
		im.appendImports(b, body, filepath.Dir(real), depth+1)
	}
}

// resolve is ref's path, "" when it names none.
func (im *importer) resolve(ref, dir string) string {
	switch {
	case strings.HasPrefix(ref, "~/"):
		if im.home == "" {
			return ""
		}
		return filepath.Join(im.home, ref[2:])
	case filepath.IsAbs(ref):
		return filepath.Clean(ref)
	}
	return filepath.Join(dir, filepath.FromSlash(ref))
}

// allowed reports whether a file at real may be imported.
func (im *importer) allowed(real string) bool {
	if im.anywhere || within(im.root, real) {
		return true
	}
	return im.home != "" && strings.EqualFold(filepath.Ext(real), ".md") && within(filepath.Join(im.home, ".claude"), real)
}

// shown is how an imported file is named in the memory: relative to the
// workspace, from the home directory, or as it is.
func (im *importer) shown(real string) string {
	if within(im.root, real) {
		if rel, err := filepath.Rel(im.root, real); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	if im.home != "" && within(im.home, real) {
		if rel, err := filepath.Rel(im.home, real); err == nil {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return real
}

// importRefs lists the `@path` words of text outside code: fenced blocks
// and `spans` are left alone, as Claude Code does.
func importRefs(text string) []string {
	var refs []string
	fence := ""
	for line := range strings.Lines(text) {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for _, m := range importRef.FindAllStringSubmatchIndex(withoutCodeSpans(line), -1) {
			refs = append(refs, strings.TrimRight(line[m[2]:m[3]], ".,;:!?"))
		}
	}
	return refs
}

// withoutCodeSpans is line with the text of its `code spans` blanked
// out, the same length, so that positions still hold.
func withoutCodeSpans(line string) string {
	b := []byte(line)
	in := false
	for i, c := range b {
		switch {
		case c == '`':
			in = !in
		case in:
			b[i] = ' '
		}
	}
	return string(b)
}
