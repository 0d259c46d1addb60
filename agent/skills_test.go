package agent

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

func skillFile(description, body string) string {
	return "---\nname: NAME\ndescription: " + description + "\n---\n" + body + "\n"
}

// skillAgent is an agent over a workspace and homes holding skills in
// every root: the project's .reasonix and .claude, a [skills] path,
// Reasonix's home and ~/.claude.
func skillAgent(t *testing.T, disabled ...string) (a *Agent, root, secrets string) {
	t.Helper()
	base := t.TempDir()
	root, home, userHome, secrets := filepath.Join(base, "ws"), filepath.Join(base, "rxhome"), filepath.Join(base, "home"), filepath.Join(base, "secrets")
	sk := func(name, description, body string) string {
		return strings.Replace(skillFile(description, body), "NAME", name, 1)
	}
	writeFiles(t, base, map[string]string{
		"ws/.reasonix/skills/deploy/SKILL.md":         sk("deploy", "Deploy the service to staging", "Run `make deploy`, then check scripts/smoke.sh."),
		"ws/.reasonix/skills/deploy/scripts/smoke.sh": "curl -f localhost",
		"ws/.reasonix/skills/deploy/.hidden":          "no",
		"ws/.claude/skills/deploy/SKILL.md":           sk("deploy", "Claude's deploy", "never seen"),
		"ws/.claude/skills/pdf/SKILL.md":              sk("pdf", "Fill PDF forms", "Use pdftk."),
		"ws/.claude/skills/broken/SKILL.md":           "---\nname: broken\ndescription: never closed\n",
		"ws/.claude/skills/nodesc/SKILL.md":           "---\nname: nodesc\n---\nBody",
		"ws/.claude/skills/notes/README.md":           "a folder without SKILL.md is no skill",
		"shared/changelog/SKILL.md":                   sk("changelog", "Write the changelog entry", "Keep a Changelog format."),
		"rxhome/skills/review/SKILL.md":               sk("review", "Review a diff", "List bugs first."),
		"rxhome/skills/help/SKILL.md":                 sk("help", "A skill named like a built-in", "Helpful."),
		"home/.claude/skills/pdf/SKILL.md":            sk("pdf", "the user's pdf", "never seen"),
		"home/.claude/skills/commit/SKILL.md":         sk("commit", "Write a commit message", "Imperative mood."),
		"home/.claude/skills/hidden/SKILL.md":         sk("hidden", "Excluded by path", "x"),
		"secrets/leak/SKILL.md":                       sk("leak", "A forbidden skill", "sk-secret"),
		"secrets/leak2.md":                            sk("leak2", "A forbidden SKILL.md", "sk-secret"),
	})
	for link, target := range map[string]string{
		"ws/.claude/skills/leak":           "secrets/leak",
		"ws/.claude/skills/leak2/SKILL.md": "secrets/leak2.md",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(base, link)), 0o755)
		if err := os.Symlink(filepath.Join(base, target), filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{Skills: config.SkillsConfig{
		Paths:          []string{"../shared"},
		ExcludedPaths:  []string{filepath.Join(userHome, ".claude/skills/hidden")},
		DisabledSkills: disabled,
	}}
	env := &tools.Env{Root: root, FS: tools.DiskFS{}, Guard: sandbox.New([]string{root}, []string{secrets})}
	env.Skills = skillConfig(cfg, root, home, userHome)
	reg, err := tools.DefaultRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Agent{Env: env, Tools: reg, CommandDirs: CommandDirs(root, home, userHome)}, root, secrets
}

// TestSkillsFound: a skill from each root, the project's before the
// user's and Reasonix's before Claude Code's; malformed, forbidden and
// excluded ones skipped, the first two with a warning.
func TestSkillsFound(t *testing.T) {
	a, _, _ := skillAgent(t)
	cmds, warnings := a.Commands()
	got := map[string]string{}
	for _, c := range cmds {
		if c.Source == SourceSkill {
			got[c.Name] = c.skill.Source + ": " + c.Description
		}
	}
	want := map[string]string{
		"/deploy":    "project: Deploy the service to staging",
		"/pdf":       "claude: Fill PDF forms",
		"/changelog": "config: Write the changelog entry",
		"/review":    "user: Review a diff",
		"/commit":    "claude: Write a commit message",
	}
	if !maps.Equal(got, want) {
		t.Errorf("skills %v\nwant %v", got, want)
	}
	for _, w := range []string{
		"broken/SKILL.md: skipped: the frontmatter's opening --- has no closing ---",
		"nodesc/SKILL.md: skipped: no description",
		"leak/SKILL.md: skipped:",
		"leak2/SKILL.md: skipped:",
	} {
		if !slices.ContainsFunc(warnings, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("no warning %q in %q", w, warnings)
		}
	}
	if len(warnings) != 4 {
		t.Errorf("%d warnings: %q", len(warnings), warnings)
	}
	// The system prompt lists them by name, the same bytes every time;
	// help lists them; a skill named like a built-in is no slash command.
	system := a.systemMessage()
	if !strings.Contains(system, "# Skills\n") || !strings.Contains(system, "- changelog: Write the changelog entry\n- commit: Write a commit message\n- deploy: Deploy the service to staging\n- help: A skill named like a built-in\n- pdf: Fill PDF forms\n- review: Review a diff\n") {
		t.Errorf("system message:\n%s", system)
	}
	if a.systemMessage() != system {
		t.Error("the system message changed between two sessions over the same skills")
	}
	if strings.Contains(system, "sk-secret") || strings.Contains(system, "leak") {
		t.Error("a forbidden skill reached the system message")
	}
	help := a.helpText(cmds)
	if !strings.Contains(help, "Skills:\n") || !strings.Contains(help, "/deploy") {
		t.Errorf("help:\n%s", help)
	}
}

// TestSkillInvoked: a skill as /name and through the skill tool brings
// its instructions and lists its other files; disabled skills are offered
// nowhere.
func TestSkillInvoked(t *testing.T) {
	a, _, _ := skillAgent(t, "review")
	p, err := a.dispatch(t.Context(), nil, "/deploy to eu-west", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<skill name="deploy" folder=".reasonix/skills/deploy">`, "Run `make deploy`", "- .reasonix/skills/deploy/scripts/smoke.sh", "ARGUMENTS: to eu-west"} {
		if !strings.Contains(p.text, want) {
			t.Errorf("/deploy prompt lacks %q:\n%s", want, p.text)
		}
	}
	if strings.Contains(p.text, ".hidden") || strings.Contains(p.text, "SKILL.md") {
		t.Errorf("/deploy lists hidden files or SKILL.md:\n%s", p.text)
	}
	tool, _ := a.Tools.Get("skill")
	res, err := tool.Execute(t.Context(), a.Env, []byte(`{"name": "changelog"}`))
	if err != nil || res.IsError || !strings.Contains(res.Content, "Keep a Changelog format.") {
		t.Fatalf("skill tool: %+v, %v", res, err)
	}
	for _, name := range []string{"review", "leak", "hidden"} {
		res, _ := tool.Execute(t.Context(), a.Env, []byte(`{"name": "`+name+`"}`))
		if !res.IsError || !strings.Contains(res.Content, `there is no skill "`+name+`"; the skills are: changelog, commit, deploy, help, pdf`) {
			t.Errorf("skill %s: %+v", name, res)
		}
	}
	if _, err := a.dispatch(t.Context(), nil, "/review", false); err == nil {
		t.Error("a disabled skill ran as /review")
	}
	if strings.Contains(a.systemMessage(), "review") {
		t.Error("a disabled skill is in the system message")
	}
}

// TestSkillFromEachRootInvokedBothWays: a skill of each root — the
// project's .reasonix/skills and .claude/skills, a [skills] path,
// Reasonix's home and the user's ~/.claude — brings the same instructions
// as /name and through the skill tool, its folder named.
func TestSkillFromEachRootInvokedBothWays(t *testing.T) {
	a, _, _ := skillAgent(t)
	tool, ok := a.Tools.Get("skill")
	if !ok {
		t.Fatal("no skill tool")
	}
	for _, sk := range []struct{ name, root, body string }{
		{"deploy", ".reasonix/skills", "Run `make deploy`"},
		{"pdf", ".claude/skills", "Use pdftk."},
		{"changelog", "shared", "Keep a Changelog format."},
		{"review", "rxhome/skills", "List bugs first."},
		{"commit", "home/.claude/skills", "Imperative mood."},
	} {
		t.Run(sk.name, func(t *testing.T) {
			p, err := a.dispatch(t.Context(), nil, "/"+sk.name, false)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tool.Execute(t.Context(), a.Env, []byte(`{"name": "`+sk.name+`"}`))
			if err != nil || res.IsError {
				t.Fatalf("skill tool: %+v, %v", res, err)
			}
			for way, text := range map[string]string{"/" + sk.name: p.text, "the skill tool": res.Content} {
				if !strings.Contains(text, sk.body) {
					t.Errorf("%s lacks the skill's body %q:\n%s", way, sk.body, text)
				}
				folder := regexp.MustCompile(`<skill name="` + sk.name + `" folder="([^"]*)">`).FindStringSubmatch(text)
				if folder == nil || !strings.HasSuffix(filepath.ToSlash(folder[1]), sk.root+"/"+sk.name) {
					t.Errorf("%s does not name the skill's folder under %s:\n%s", way, sk.root, text)
				}
			}
		})
	}
}
