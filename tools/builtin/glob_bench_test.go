package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/walk/walktest"
)

// BenchmarkGlobVsRgFiles lists synthetic git repositories of 1k, 25k and
// 100k files (walktest.Build: a .gitignore, ignored directories) with
// the glob tool and with `rg --files`, alternately in each iteration,
// and reports the ratio of their wall times as x-rg (lower is better; 1
// means as fast).
//
//	go test ./tools/builtin -run '^$' -bench GlobVsRgFiles -benchtime 5x
//
// ripgrep runs with the flags that make it list the same files as the
// tool (see BenchmarkGrepVsRipgrep), and leaves out .git, which --hidden
// would otherwise list. The tool does more than list: it reads each
// match's modification time to put the newest first, and caps what it
// prints; rg prints every path.
func BenchmarkGlobVsRgFiles(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg is not on PATH")
	}
	rgFlags := []string{"--no-config", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-global", "--files", "-g", "!.git"}
	for _, n := range []int{1_000, 25_000, 100_000} {
		root := b.TempDir()
		if _, err := walktest.Build(root, n); err != nil {
			b.Fatal(err)
		}
		env := &tools.Env{Root: root, FS: tools.DiskFS{}}
		for _, c := range []struct{ name, pattern, rgGlob string }{
			{"go", "**/*.go", "*.go"},
			{"all", "**/*", ""},
		} {
			b.Run(fmt.Sprintf("%s/%dk", c.name, n/1000), func(b *testing.B) {
				rgArgs := append([]string(nil), rgFlags...)
				if c.rgGlob != "" {
					rgArgs = append(rgArgs, "-g", c.rgGlob)
				}
				rgArgs = append(rgArgs, root)
				// The two must agree before their times mean anything.
				args, _ := json.Marshal(map[string]any{"pattern": c.pattern})
				ours := globBenchCount(b, env, args)
				out, err := exec.Command(rg, rgArgs...).Output()
				if err != nil {
					b.Fatalf("rg: %v", err)
				}
				if theirs := bytes.Count(out, []byte("\n")); ours != theirs {
					b.Fatalf("glob found %d files, rg --files %d", ours, theirs)
				}

				benchAgainst(b, globTool{}, env, args, rg, rgArgs, "x-rg", "glob-ms/op")
			})
		}
	}
}

// globBenchCount runs the tool and returns how many files matched in all.
func globBenchCount(b *testing.B, env *tools.Env, args json.RawMessage) int {
	res, err := (globTool{}).Execute(context.Background(), env, args)
	if err != nil || res.IsError {
		b.Fatalf("glob: %v %s", err, res.Content)
	}
	n, err := strconv.Atoi(strings.Fields(res.Summary)[0])
	if err != nil {
		b.Fatalf("glob summary %q", res.Summary)
	}
	return n
}
