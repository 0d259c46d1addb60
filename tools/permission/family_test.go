package permission

// The families of the built-in tools these tests name, as the tools
// describe themselves (tools/builtin): the package's own tests cannot
// link the built-ins, which import it. Describe panics if a built-in,
// linked into the same test binary by writes_test.go, says otherwise.
func init() {
	for tool, f := range map[string]Family{
		"bash":        FamilyShell,
		"read_file":   FamilyRead,
		"ls":          FamilyList,
		"grep":        FamilyGrep,
		"glob":        FamilyGlob,
		"write_file":  FamilyWrite,
		"edit_file":   FamilyWrite,
		"multi_edit":  FamilyWrite,
		"move_file":   FamilyWrite,
		"apply_patch": FamilyWrite,
	} {
		Describe(tool, f, nil)
	}
}
