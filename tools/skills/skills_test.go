package skills

import "testing"

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"deploy": true, "pdf-forms": true, "v2": true,
		"": false, "-x": false, "Deploy": false, "a_b": false, "a.b": false, "a/b": false,
		"x234567890123456789012345678901234567890123456789012345678901234":  true,
		"x2345678901234567890123456789012345678901234567890123456789012345": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestExcluded(t *testing.T) {
	paths := []string{"/home/u/.claude/skills"}
	for path, want := range map[string]bool{
		"/home/u/.claude/skills":        true,
		"/home/u/.claude/skills/review": true,
		"/home/u/.claude/skills2":       false,
		"/home/u/.claude":               false,
	} {
		if got := excluded(paths, path); got != want {
			t.Errorf("excluded(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestIndex(t *testing.T) {
	if Index(nil) != "" {
		t.Error("an index without skills")
	}
	got := Index([]Skill{{Name: "a", Description: "First"}, {Name: "b", Description: "Second"}})
	want := "# Skills\n\nSkills are instructions for particular tasks. When a task matches a skill's description, load the skill with the skill tool before starting, and follow it.\n\n- a: First\n- b: Second\n"
	if got != want {
		t.Errorf("Index:\n%q\nwant\n%q", got, want)
	}
}
