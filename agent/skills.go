package agent

import (
	"path/filepath"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/skills"
)

// Skills (tools/skills) reach the model three ways: their names and
// descriptions end the system prompt, taken once per session like the
// memory index; the skill tool loads one's instructions; and /name, a
// slash command, makes them the prompt of a turn.

// SourceSkill marks a slash command that is a skill.
const SourceSkill CommandSource = "skill"

// SkillRoots returns the directories of skills of the workspace root,
// highest precedence first: the project's before the user's, and at each
// level Reasonix's own before Claude Code's, with [skills] paths between
// the two levels. home is Reasonix's home, userHome the user's home
// directory ("" for none).
func SkillRoots(root, home, userHome string, paths []string) []tools.SkillRoot {
	roots := []tools.SkillRoot{
		{Dir: filepath.Join(root, ".reasonix", "skills"), Source: "project"},
		{Dir: filepath.Join(root, ".claude", "skills"), Source: "claude"},
	}
	for _, p := range paths {
		roots = append(roots, tools.SkillRoot{Dir: p, Source: "config"})
	}
	roots = append(roots, tools.SkillRoot{Dir: filepath.Join(home, "skills"), Source: "user"})
	if userHome != "" {
		roots = append(roots, tools.SkillRoot{Dir: filepath.Join(userHome, ".claude", "skills"), Source: "claude"})
	}
	return roots
}

// skillConfig is [skills] made absolute.
func skillConfig(cfg *config.Config, root, home, userHome string) tools.SkillConfig {
	abs := func(key string, ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			out = append(out, absUnder(root, cfg.ExpandItem("skills", key, p)))
		}
		return out
	}
	return tools.SkillConfig{
		Roots:    SkillRoots(root, home, userHome, abs("paths", cfg.Skills.Paths)),
		Exclude:  abs("excluded_paths", cfg.Skills.ExcludedPaths),
		Disabled: cfg.Skills.DisabledSkills,
	}
}

// skillIndex is the list of skills for the system prompt, when the skill
// tool is offered to load them.
func (a *Agent) skillIndex() string {
	if a.Tools == nil || a.Env == nil {
		return ""
	}
	if _, ok := a.Tools.Get("skill"); !ok {
		return ""
	}
	all, _ := skills.Load(a.Env)
	return skills.Index(all)
}
