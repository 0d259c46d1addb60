package permission

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// A Family groups tools by what they do, as the capitalised rule names
// and the front ends speak of them. A tool says its family when it
// describes itself (tools.Describer), and the family decides which
// capitalised rule names cover it: a new tool of the read family is
// covered by Read rules without a change here.
type Family string

const (
	FamilyRead   Family = "read"   // reads the file it names: Read
	FamilyList   Family = "list"   // lists a directory: Read, LS
	FamilyGrep   Family = "grep"   // searches file contents: Read, Grep
	FamilyGlob   Family = "glob"   // finds files by name: Read, Glob
	FamilyWrite  Family = "write"  // changes the files it names: Edit, Write
	FamilyShell  Family = "shell"  // runs a shell command: Bash
	FamilyMemory Family = "memory" // the agent's notes
	FamilyGraph  Family = "graph"  // the project graph's questions and refactorings
	FamilyAsk    Family = "ask"    // asks the user or thinks
	FamilyOther  Family = "other"
)

// familyRules lists the capitalised rule names that cover each family's
// tools; a family not listed is covered only by its tools' own names.
var familyRules = map[Family][]string{
	FamilyShell: {"Bash"},
	FamilyWrite: {"Edit", "Write"},
	FamilyRead:  {"Read"},
	FamilyList:  {"Read", "LS"},
	FamilyGrep:  {"Read", "Grep"},
	FamilyGlob:  {"Read", "Glob"},
}

// A described tool is what the rules and the approval prompts know of a
// tool beyond its name.
type described struct {
	family Family
	// change renders what a call would do, for the person asked; nil
	// for a tool that has nothing to show but its arguments.
	change func(args json.RawMessage) string
}

var (
	describedMu sync.RWMutex // guards describedTools
	// describedTools holds, by name, the tools that described
	// themselves; it is filled from init (tools.RegisterBuiltin).
	describedTools = map[string]described{}
)

// Describe records a tool's family, and how to render a call's change
// for approval (Prompt.Change; nil for none). It is meant to be called
// from init, through tools.RegisterBuiltin. Describing a name again with
// the same family replaces its renderer; another family is a programming
// error and panics.
func Describe(tool string, family Family, change func(args json.RawMessage) string) {
	describedMu.Lock()
	defer describedMu.Unlock()
	if d, ok := describedTools[tool]; ok && d.family != family {
		panic(fmt.Sprintf("permission: %s described as %s and as %s", tool, d.family, family))
	}
	describedTools[tool] = described{family: family, change: change}
}

// FamilyOf returns the family a tool described itself with; "" for a
// tool that did not (an MCP tool).
func FamilyOf(tool string) Family {
	describedMu.RLock()
	defer describedMu.RUnlock()
	return describedTools[tool].family
}

func changeOf(tool string) func(json.RawMessage) string {
	describedMu.RLock()
	defer describedMu.RUnlock()
	return describedTools[tool].change
}

// isShell reports whether tool runs shell commands, whose specifiers
// are matched against the parsed command.
func isShellTool(tool string) bool { return FamilyOf(tool) == FamilyShell }

// coversFamily reports whether the rule names the family's tools: by a
// capitalised name, or by the name of one of them.
func (r Rule) coversFamily(f Family) bool {
	return slices.Contains(familyRules[f], r.Tool) || FamilyOf(r.Tool) == f
}
