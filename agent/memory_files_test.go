package agent

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// TestMemoryFilesAreRegularFiles: a repository can commit AGENTS.md as a
// link to a device that never ends (/dev/zero) or that is another
// program's input (/dev/stdin: an editor's requests to the server), and
// a command file as a link to a named pipe. What the session reads on its
// own at start — memory files, command files, skills — is read only from
// regular files, and only so much of them: it neither hangs nor reads what
// is not a file.
func TestMemoryFilesAreRegularFiles(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for link, target := range map[string]string{
		"AGENTS.md":                      "/dev/zero",
		"CLAUDE.md":                      filepath.Join(root, "pipe"),
		".reasonix/commands/zero.md":     "/dev/zero",
		".reasonix/commands/pipe.md":     filepath.Join(root, "pipe"),
		".reasonix/skills/zero/SKILL.md": "/dev/zero",
		".reasonix/skills/pipe/SKILL.md": filepath.Join(root, "pipe"),
	} {
		p := filepath.Join(root, link)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "REASONIX.md"), []byte("Use tabs.\n"), 0o644)
	env := &tools.Env{Root: root, FS: tools.DiskFS{}, Guard: sandbox.New([]string{root}, nil)}
	env.Skills = tools.SkillConfig{Roots: SkillRoots(root, t.TempDir(), "", nil)}
	done := make(chan string)
	go func() {
		system := BuildSystemPrompt("", root, env.CheckRead)
		cmds, warnings := loadCommands(env, CommandDirs(root, t.TempDir(), ""))
		if len(cmds) != 0 {
			system += "\ncommands loaded"
		}
		done <- system + "\n" + strings.Join(warnings, "\n")
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, "Use tabs.") || strings.Contains(got, "(AGENTS.md)") || strings.Contains(got, "(CLAUDE.md)") || strings.Contains(got, "commands loaded") {
			t.Errorf("what the session read:\n%.2000s", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("reading the memory and command files does not end")
	}
}
