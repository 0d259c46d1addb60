package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/walk"
)

// Custom commands are Markdown files: review.md is /review, and a
// subdirectory namespaces its files (git/commit.md is /git:commit). An
// optional frontmatter block of "key: value" lines between "---" lines
// may set description, argument-hint and model; other keys (Claude Code's
// allowed-tools, say) are ignored, so existing command libraries load
// unchanged. The rest is the body, a template for the prompt.

const (
	// maxCommandBytes bounds one command file.
	maxCommandBytes = 256 << 10
	// maxCommandDepth bounds how deep subdirectories namespace commands.
	maxCommandDepth = 4
	// maxCommandFiles bounds the files read from one directory tree, so
	// a directory full of something else costs little.
	maxCommandFiles = 1000
)

// customCommand is one command file, parsed.
type customCommand struct {
	// name is the command without its slash: "review", "git:commit".
	name   string
	path   string
	source CommandSource

	description  string
	argumentHint string
	// model is a model reference the command's turn runs on.
	model string
	// body is the prompt template.
	body string
}

// loadCommands reads the command files of dirs, in order. A file that
// cannot be read or parsed is skipped with a warning; a missing directory
// is no command at all. Files are read as the read tools read them,
// judged by their real path, so a command file that is a link into
// forbid_read (a cloned repository's .reasonix/commands/x.md pointing at
// ~/.aws/credentials) is refused, not sent to the model.
func loadCommands(env *tools.Env, dirs []CommandDir) ([]*customCommand, []string) {
	if env == nil {
		env = &tools.Env{FS: tools.DiskFS{}}
	}
	l := &commandLoader{env: env}
	for _, d := range dirs {
		l.files = 0
		l.dir(d, d.Dir, "", 0)
	}
	return l.out, l.warnings
}

type commandLoader struct {
	env      *tools.Env
	out      []*customCommand
	warnings []string
	files    int
}

func (l *commandLoader) warn(path, format string, args ...any) {
	l.warnings = append(l.warnings, path+": skipped: "+fmt.Sprintf(format, args...))
}

// dir loads the commands under path, whose names start with prefix.
func (l *commandLoader) dir(d CommandDir, path, prefix string, depth int) {
	_, ents, err := l.env.ListDir(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			l.warn(path, "%v", readRefusal(err))
		}
		return
	}
	for _, e := range ents {
		name := e.Name()
		full := filepath.Join(path, name)
		if strings.HasPrefix(name, ".") {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(full)
			isDir = err == nil && fi.IsDir()
		}
		if isDir {
			switch {
			case !commandSegment(name):
				l.warn(full, "%q cannot be part of a command name (letters, digits, _ - . only)", name)
			case depth+1 < maxCommandDepth:
				l.dir(d, full, prefix+name+":", depth+1)
			}
			continue
		}
		stem, ok := strings.CutSuffix(name, ".md")
		if !ok {
			continue
		}
		if !commandSegment(stem) {
			l.warn(full, "%q cannot be a command name (letters, digits, _ - . only)", stem)
			continue
		}
		if l.files++; l.files > maxCommandFiles {
			if l.files == maxCommandFiles+1 {
				l.warn(d.Dir, "more than %d command files; the rest are not read", maxCommandFiles)
			}
			continue
		}
		data, ok := l.read(full)
		if !ok {
			continue
		}
		c, err := parseCommand(data)
		if err != nil {
			l.warn(full, "%v", err)
			continue
		}
		c.name, c.path, c.source = prefix+stem, full, d.Source
		l.out = append(l.out, c)
	}
}

// read reads the file at full, or warns why it cannot.
func (l *commandLoader) read(full string) ([]byte, bool) {
	data, err := l.env.ReadDisk(full, nil, maxCommandBytes)
	switch {
	case errors.Is(err, walk.ErrTooLarge):
		l.warn(full, "larger than %d KiB", maxCommandBytes>>10)
	case err != nil:
		l.warn(full, "%v", readRefusal(err))
	}
	return data, err == nil
}

// commandSegment reports whether s can be one part of a command name.
func commandSegment(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && strings.ContainsRune("_-.", r)
		if !ok {
			return false
		}
	}
	return true
}

// parseCommand parses a command file: its frontmatter, then the body.
func parseCommand(data []byte) (*customCommand, error) {
	if tools.IsBinary(data) {
		return nil, errors.New("not a text file")
	}
	fields, text, err := tools.Frontmatter(string(data))
	if err != nil {
		return nil, err
	}
	c := &customCommand{description: fields["description"], argumentHint: fields["argument-hint"], model: fields["model"]}
	c.body = strings.TrimSpace(text)
	if c.body == "" {
		return nil, errors.New("the command has no text")
	}
	if c.description == "" {
		// As Claude Code does: the body's first line says what it is.
		c.description = clipRunes(strings.TrimLeft(firstLineOf(c.body), "# "), 80)
	}
	return c, nil
}

// expand renders the body with the arguments typed after the command:
// $ARGUMENTS is all of them as typed, $1 … $N the words ("quotes" group
// words; empty when absent), $$ a literal $. A body that uses none of
// them gets the arguments appended, "ARGUMENTS: …", as Claude Code does,
// so that nothing the user typed is lost.
func (c *customCommand) expand(rest string) (string, error) {
	words, err := splitWords(rest)
	if err != nil {
		return "", err
	}
	body := c.body
	var b strings.Builder
	used := false
	for i := 0; i < len(body); i++ {
		if body[i] != '$' || i+1 == len(body) {
			b.WriteByte(body[i])
			continue
		}
		next := body[i+1:]
		switch {
		case next[0] == '$':
			b.WriteByte('$')
			i++
		case strings.HasPrefix(next, "ARGUMENTS"):
			b.WriteString(rest)
			i += len("ARGUMENTS")
			used = true
		case next[0] >= '1' && next[0] <= '9':
			j := 0
			for j < len(next) && next[j] >= '0' && next[j] <= '9' {
				j++
			}
			if n, _ := strconv.Atoi(next[:j]); n <= len(words) {
				b.WriteString(words[n-1])
			}
			i += j
			used = true
		default:
			b.WriteByte('$')
		}
	}
	if !used && rest != "" {
		b.WriteString("\n\nARGUMENTS: " + rest)
	}
	return b.String(), nil
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
