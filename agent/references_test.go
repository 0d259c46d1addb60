package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// referenceAgent is an agent whose workspace root holds a few files, with
// the guard Build gives it: the user's secrets (under a home of the
// test's own) and root/secrets are forbidden.
func referenceAgent(t *testing.T) (*Agent, string, string) {
	t.Helper()
	base := t.TempDir()
	root, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	writeFiles(t, base, map[string]string{
		"ws/calc.go":            "package calc\n",
		"ws/notes/todo.md":      "- make Add add\n",
		"ws/notes/.git/HEAD":    "ref\n",
		"ws/secrets/token.txt":  "sk-project-secret\n",
		"ws/big.txt":            strings.Repeat("0123456789abcdef", 5<<10), // 80 KiB
		"home/.aws/credentials": "aws_secret_access_key = sk-aws-secret\n",
		"outside.txt":           "outside the workspace\n",
	})
	writeFiles(t, base, map[string]string{"ws/bin.dat": "\x00\x01\x02\x03"})
	for link, target := range map[string]string{
		"link-aws":  filepath.Join(home, ".aws/credentials"),
		"link-proc": "/proc/self/environ",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	forbid := append(sandbox.HomeDefaults(home), filepath.Join(root, "secrets"))
	env := &tools.Env{Root: root, FS: tools.DiskFS{}, Guard: sandbox.New([]string{root}, forbid)}
	return &Agent{Env: env}, root, base
}

// TestReferences: @path attaches a file or lists a directory of the
// workspace, each once; what the guard forbids — directly, or through a
// link into ~/.aws or /proc — is named, never read; binary files are
// described; large files are cut; words that name nothing stay as
// written. The user is told of each reference the model does not get
// whole, once; not of words that were never meant as paths.
func TestReferences(t *testing.T) {
	a, _, _ := referenceAgent(t)
	prompt := "compare @calc.go with @notes/ and @notes, see @link-aws, @link-proc and @bin.dat; " +
		"then @big.txt, @secrets/token.txt, @nobody, me@example.com, @../outside.txt, (@calc.go) and @calc.go/. " +
		"Also @notes/gone.md, @missing.json, @todo.md/, @notes/todo.md/ and @missing.json again; " +
		"and in this code @pytest.fixture, @app.route(\"/\"), @Override, @functools.cache(maxsize=2) and @user:name."
	attached, notices := a.attach(t.Context(), prompt, prompt, nil)
	wantNotices := []string{
		"@link-aws not attached: reading it is forbidden by [sandbox] forbid_read",
		"@link-proc not attached: the files of processes under /proc are not for the tools to read",
		"@bin.dat not attached: it is a binary file (4 bytes)",
		"@big.txt attached in part: its first 64 KiB of 81920 bytes (the model can read the rest)",
		"@secrets/token.txt not attached: reading it is forbidden by [sandbox] forbid_read",
		"@../outside.txt not attached: it is outside the workspace",
		"@notes/gone.md not attached: there is no such file in the workspace",
		"@missing.json not attached: there is no such file in the workspace",
		"@todo.md/ not attached: there is no such file in the workspace",
		"@notes/todo.md/ not attached: it is a file, not a directory",
	}
	if strings.Join(notices, "\n") != strings.Join(wantNotices, "\n") {
		t.Errorf("notices\n%s\nwant\n%s", strings.Join(notices, "\n"), strings.Join(wantNotices, "\n"))
	}
	big := strings.Repeat("0123456789abcdef", 5<<10)[:maxReferenceBytes]
	want := "\n\n" + strings.Join([]string{
		"<file path=\"calc.go\">\npackage calc\n</file>",
		"<directory path=\"notes\">\ntodo.md\n</directory>",
		"<file path=\"link-aws\">(not attached: reading it is forbidden by [sandbox] forbid_read)</file>",
		"<file path=\"link-proc\">(not attached: the files of processes under /proc are not for the tools to read)</file>",
		"<file path=\"bin.dat\">(binary, 4 bytes, not shown)</file>",
		"<file path=\"big.txt\">\n" + big + "\n[… cut: 81920 bytes in all; read_file shows the rest]\n</file>",
		"<file path=\"secrets/token.txt\">(not attached: reading it is forbidden by [sandbox] forbid_read)</file>",
	}, "\n")
	if attached != want {
		i := 0
		for i < min(len(attached), len(want)) && attached[i] == want[i] {
			i++
		}
		t.Errorf("attached (%d bytes) differs from the expected (%d bytes) at %d:\n%.300q\nwant\n%.300q",
			len(attached), len(want), i, attached[max(0, i-100):], want[max(0, i-100):])
	}
	for _, secret := range []string{"sk-", "outside the workspace", "\x00"} {
		if strings.Contains(attached, secret) {
			t.Errorf("attached %q", secret)
		}
	}
}

// TestAttachments: the editor's selection is pasted with its lines, its
// file named; a selection in a forbidden file is not attached.
func TestAttachments(t *testing.T) {
	a, root, _ := referenceAgent(t)
	attached, notices := a.attach(t.Context(), "explain", "explain", []Attachment{
		{Kind: AttachSelection, Path: filepath.Join(root, "calc.go"), Text: "func Add(a, b int) int {\n\treturn a - b\n}\n", StartLine: 3, EndLine: 5, Language: "go"},
		{Kind: AttachFile, Path: filepath.Join(root, "calc.go")},
		{Kind: AttachSelection, Path: filepath.Join(root, "secrets/token.txt"), Text: "sk-project-secret", StartLine: 1, EndLine: 1},
	})
	want := "\n\nThe user's selection in calc.go:\n\nLines 3-5:\n```go\nfunc Add(a, b int) int {\n\treturn a - b\n}\n```\n" +
		"\n\n(The user is looking at calc.go.)" +
		"\n\n(The user's selection in secrets/token.txt is not attached: reading it is forbidden by [sandbox] forbid_read.)"
	if attached != want {
		t.Errorf("attached\n%q\nwant\n%q", attached, want)
	}
	if len(notices) != 1 || notices[0] != "the selection in secrets/token.txt not attached: reading it is forbidden by [sandbox] forbid_read" {
		t.Errorf("notices %q", notices)
	}
}
