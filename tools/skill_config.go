package tools

// SkillConfig says where skills are found and which are turned off
// ([skills]); tools/skills reads them.
type SkillConfig struct {
	// Roots are the directories whose subdirectories are skills, highest
	// precedence first: on a name clash the first root's skill wins.
	Roots []SkillRoot
	// Exclude hides the roots and skill folders at or under these
	// absolute paths.
	Exclude []string
	// Disabled names skills that are not offered at all.
	Disabled []string
}

// SkillRoot is one directory of skills.
type SkillRoot struct {
	Dir string
	// Source says where it comes from: "project" (.reasonix/skills),
	// "claude" (.claude/skills of the workspace or the home directory),
	// "user" (Reasonix's home) or "config" ([skills] paths).
	Source string
}
