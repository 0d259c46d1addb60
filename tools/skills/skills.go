// Package skills finds skills: folders holding a SKILL.md — a
// frontmatter with the skill's name and description, then instructions —
// and whatever files those instructions use, in the format Claude Code
// and other agents share. Only names and descriptions are offered up
// front; a skill's instructions are read when it is used.
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/walk"
)

const (
	// FileName is the file that makes a folder a skill.
	FileName = "SKILL.md"
	// maxBytes bounds one SKILL.md.
	maxBytes = 256 << 10
	// maxPerRoot bounds the skills read from one root, so a root full of
	// something else costs little.
	maxPerRoot = 500
	// maxFiles and maxDepth bound the listing of a skill's other files.
	maxFiles = 200
	maxDepth = 4
	// maxDescription bounds a description in the index, which every
	// request of a session carries.
	maxDescription = 1024
)

// Skill is one skill found.
type Skill struct {
	Name        string
	Description string
	// Dir is the skill's folder.
	Dir    string
	Source string
}

// Load finds the skills of env.Skills, sorted by name. Where two share a
// name, the one of the first root wins. A SKILL.md that cannot be read or
// parsed is skipped, and warnings say which and why; it never stops
// anything. Files are read as the read tools read them, judged by their
// real paths, so a skill that links into forbid_read is refused.
func Load(env *tools.Env) (skills []Skill, warnings []string) {
	cfg := env.Skills
	seen := map[string]bool{}
	for _, root := range cfg.Roots {
		if excluded(cfg.Exclude, root.Dir) {
			continue
		}
		_, ents, err := env.ListDir(root.Dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Sprintf("%s: skipped: %v", root.Dir, err))
			}
			continue
		}
		n := 0
		for _, e := range ents {
			dir := filepath.Join(root.Dir, e.Name())
			if strings.HasPrefix(e.Name(), ".") || !isDir(e, dir) || excluded(cfg.Exclude, dir) {
				continue
			}
			if n++; n > maxPerRoot {
				warnings = append(warnings, fmt.Sprintf("%s: more than %d skills; the rest are not read", root.Dir, maxPerRoot))
				break
			}
			s, err := read(env, dir)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				// A folder without SKILL.md is not a skill.
			case err != nil:
				warnings = append(warnings, fmt.Sprintf("%s: skipped: %v", filepath.Join(dir, FileName), err))
			case seen[s.Name] || slices.Contains(cfg.Disabled, s.Name):
				// A root of higher precedence has it, or it is off.
			default:
				seen[s.Name] = true
				s.Source = root.Source
				skills = append(skills, s)
			}
		}
	}
	slices.SortFunc(skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return skills, warnings
}

func isDir(e fs.DirEntry, path string) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.IsDir()
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// excluded reports whether path is one of paths or under one.
func excluded(paths []string, path string) bool {
	for _, p := range paths {
		if path == p || strings.HasPrefix(path, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// read parses the SKILL.md of dir; the name defaults to the folder's.
func read(env *tools.Env, dir string) (Skill, error) {
	fields, _, err := readFile(env, dir)
	if err != nil {
		return Skill{}, err
	}
	s := Skill{Name: fields["name"], Description: strings.Join(strings.Fields(fields["description"]), " "), Dir: dir}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	if !ValidName(s.Name) {
		return Skill{}, fmt.Errorf("%q cannot be a skill name (lower-case letters, digits and -, at most 64)", s.Name)
	}
	if s.Description == "" {
		return Skill{}, errors.New("no description in the frontmatter: it says when to use the skill")
	}
	if r := []rune(s.Description); len(r) > maxDescription {
		s.Description = string(r[:maxDescription-1]) + "…"
	}
	return s, nil
}

func readFile(env *tools.Env, dir string) (fields map[string]string, body string, err error) {
	data, err := env.ReadDisk(filepath.Join(dir, FileName), nil, maxBytes)
	if errors.Is(err, walk.ErrTooLarge) {
		return nil, "", fmt.Errorf("larger than %d KiB", maxBytes>>10)
	}
	if err != nil {
		return nil, "", err
	}
	if tools.IsBinary(data) {
		return nil, "", errors.New("not a text file")
	}
	fields, body, err = tools.Frontmatter(string(data))
	if err == nil && fields == nil {
		err = errors.New("no frontmatter (a --- block with name and description)")
	}
	return fields, body, err
}

// ValidName reports whether name can name a skill: lower-case letters,
// digits and hyphens, as Claude Code's skills are named, so that it is a
// slash command too.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '-' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Index lists skills for the system prompt: each name and description,
// in name order, so the text is the same for the same skills.
func Index(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\n\nSkills are instructions for particular tasks. When a task matches a skill's description, load the skill with the skill tool before starting, and follow it.\n\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
	}
	return b.String()
}

// Render reads the instructions of s now and returns them for the model,
// followed by the other files of its folder, which the instructions may
// tell it to read.
func Render(env *tools.Env, s Skill) (string, error) {
	_, body, err := readFile(env, s.Dir)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<skill name=%q folder=%q>\n%s\n</skill>", s.Name, env.Rel(s.Dir), strings.TrimSpace(body))
	if files := otherFiles(env, s.Dir); len(files) > 0 {
		b.WriteString("\n\nThe skill's folder also holds these files; read them with read_file when the instructions call for them:\n")
		for _, f := range files {
			b.WriteString("- " + env.Rel(f) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// otherFiles lists the files of dir but SKILL.md, depth first in name
// order, bounded, leaving out hidden names and what may not be read.
func otherFiles(env *tools.Env, dir string) []string {
	var out []string
	var visit func(d string, depth int)
	visit = func(d string, depth int) {
		_, ents, err := env.ListDir(d)
		if err != nil {
			return
		}
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			switch {
			case len(out) >= maxFiles, strings.HasPrefix(e.Name(), "."), env.CheckRead(p) != nil:
			case isDir(e, p):
				if depth < maxDepth {
					visit(p, depth+1)
				}
			case d != dir || e.Name() != FileName:
				out = append(out, p)
			}
		}
	}
	visit(dir, 1)
	return out
}
