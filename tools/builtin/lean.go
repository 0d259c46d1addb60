package builtin

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/reasonix/reasonix/tools"
)

// leanDescriptions are the descriptions of the lean profile's tools
// (tools.ProfileLean), one <tool>.lean.md beside each tool's own: the
// tools that read, search, edit and run, said in a line or two.
//
//go:embed *.lean.md
var leanDescriptions embed.FS

func init() {
	names, err := fs.Glob(leanDescriptions, "*.lean.md")
	if err != nil {
		panic(err)
	}
	for _, file := range names {
		text, err := leanDescriptions.ReadFile(file)
		if err != nil {
			panic(err)
		}
		tools.RegisterLean(strings.TrimSuffix(file, ".lean.md"), string(text))
	}
}
