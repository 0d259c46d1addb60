package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/reasonix/reasonix/agent/provider/openai"
)

// writeFile writes name under dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolate points the user config at an empty directory.
func isolate(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("REASONIX_HOME", home)
	// Claude Code's files in the user's home (settings.json, .claude.json)
	// are read too: none of the machine's.
	t.Setenv("HOME", t.TempDir())
	return home
}

// trust records that the user trusts what the workspace dir's own files
// bring, as they are now. A configuration that does not load has nothing
// to trust.
func trust(t *testing.T, dir string) {
	t.Helper()
	loadTrusted(t, Options{Dir: dir})
}

// loadTrusted loads opts once the user trusts what the workspace's own
// files bring.
func loadTrusted(t *testing.T, opts Options) (*Config, error) {
	t.Helper()
	if c, err := Load(opts); err == nil && len(c.Workspace.Items) > 0 {
		if err := Trust(c.Workspace); err != nil {
			t.Fatal(err)
		}
	}
	return Load(opts)
}

func TestLayering(t *testing.T) {
	home := isolate(t)
	writeFile(t, home, "config.toml", `
default_model = "local"
[[providers]]
name = "local"
base_url = "http://127.0.0.1:1/v1"
models = ["small", "big"]
default = "big"
[agent]
max_steps = 7
token_budget = 1000
repair = false
[permissions]
deny = ["Bash(rm -rf*)"]
`)
	project := t.TempDir()
	writeFile(t, project, "reasonix.toml", `
[agent]
max_steps = 9
[permissions]
allow = ["Bash(go test:*)"]
`)
	trust(t, project)
	flagFile := writeFile(t, t.TempDir(), "flag.toml", `default_model = "deepseek"`)

	c, err := Load(Options{Dir: project})
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.MaxSteps != 9 || c.Agent.TokenBudget != 1000 || On(c.Agent.Repair, true) {
		t.Errorf("agent = %+v", c.Agent)
	}
	if strings.Join(c.Permissions.Deny, ",") != "Bash(rm -rf*)" || strings.Join(c.Permissions.Allow, ",") != "Bash(go test:*)" {
		t.Errorf("permissions = %+v", c.Permissions)
	}
	r, err := c.ResolveModel("")
	if err != nil || r.String() != "local/big" {
		t.Fatalf("default model = %v, %v", r, err)
	}

	c, err = Load(Options{Dir: project, File: flagFile})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := c.ResolveModel(""); r.String() != "deepseek/deepseek-flash" {
		t.Errorf("flag layer: default model = %v", r)
	}
	if len(c.Files) != 3 {
		t.Errorf("files = %v", c.Files)
	}
}

func TestResolveModel(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, dir, "reasonix.toml", `
[[providers]]
name = "local"
base_url = "http://127.0.0.1:1/v1"
model = "qwen"
[[providers]]
name = "router"
base_url = "http://127.0.0.1:2/v1"
models = ["vendor/model-a", "model-b"]
`)
	trust(t, dir)
	c, err := Load(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ ref, want string }{
		{"deepseek", "deepseek/deepseek-flash"},
		{"deepseek-v4-pro", "deepseek/deepseek-v4-pro"},
		{"deepseek/deepseek-v4-pro", "deepseek/deepseek-v4-pro"},
		{"local", "local/qwen"},
		{"qwen", "local/qwen"},
		{"local/other", "local/other"},
		{"router", "router/vendor/model-a"},
		{"vendor/model-a", "router/vendor/model-a"},
		{"model-b", "router/model-b"},
	}
	for _, tt := range tests {
		r, err := c.ResolveModel(tt.ref)
		if err != nil || r.String() != tt.want {
			t.Errorf("ResolveModel(%q) = %v, %v; want %s", tt.ref, r, err, tt.want)
		}
	}
	_, err = c.ResolveModel("gpt-9")
	if err == nil || !strings.Contains(err.Error(), `model "gpt-9" matches no provider`) || !strings.Contains(err.Error(), "local (qwen)") {
		t.Errorf("unknown model: %v", err)
	}
}

func TestErrorsNameFileAndLine(t *testing.T) {
	isolate(t)
	tests := []struct {
		name, src, want string
	}{
		{"bad toml", "default_model = \"x\"\n[agent\nmax_steps = 1\n", "reasonix.toml:2: invalid TOML"},
		{"unknown kind", "[[providers]]\nname = \"a\"\nkind = \"openai\"\nbase_url = \"u\"\nmodel = \"m\"\n\n[[providers]]\nname = \"b\"\nkind = \"anthropic\"\nbase_url = \"u\"\nmodel = \"m\"\n",
			`reasonix.toml:9: provider "b" has unknown kind "anthropic" (known kinds: openai)`},
		{"no model", "[[providers]]\nname = \"a\"\nbase_url = \"u\"\n", `reasonix.toml:1: provider "a" declares no model`},
		{"bad mode", "[permissions]\nmode = \"sometimes\"\n", `reasonix.toml:2: [permissions] mode must be ask, allow or deny`},
		{"bad posture", "[permissions]\n\napproval = \"always\"\n", `reasonix.toml:3: [permissions] approval must be ask, auto or yolo`},
		{"bad compact ratio", "[agent]\nmax_steps = 5\ncompact_ratio = 1.5\n", `reasonix.toml:3: [agent] compact_ratio must be above 0 and at most 1, not 1.5`},
		{"bad reasoning effort", "[agent]\nreasoning_effort = \"max\"\n", `reasonix.toml:2: [agent] reasoning_effort must be low, medium or high, not "max"`},
		{"negative window", "[[providers]]\nname = \"a\"\nbase_url = \"u\"\nmodel = \"m\"\ncontext_window = -1\n", `reasonix.toml:1: provider "a": context_window must not be negative`},
		{"wrong type", "[agent]\nmax_steps = \"ten\"\n", `reasonix.toml:2: "agent.max_steps" must be an integer, not a string`},
		{"wrong type in a list", "[permissions]\nmode = \"ask\"\n\nallow = \"Bash\"\n", `reasonix.toml:4: "permissions.allow" must be an array, not a string`},
		// The decoder names the last entry that sets the key; the error
		// is in the first.
		{"wrong type in an entry", "[[providers]]\nname = \"a\"\nbase_url = \"u\"\nmodel = \"m\"\ncontext_window = \"big\"\n\n[[providers]]\nname = \"b\"\nbase_url = \"u\"\nmodel = \"m\"\ncontext_window = 5\n",
			`reasonix.toml:5: "providers.context_window" must be an integer, not a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "reasonix.toml", tt.src)
			trust(t, dir)
			_, err := Load(Options{Dir: dir})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestModelReferenceErrorNamesItsLine(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	p := writeFile(t, dir, "reasonix.toml", "# comment\ndefault_model = \"nope\"\n")
	c, err := Load(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ResolveModel("")
	var ce *Error
	if !errors.As(err, &ce) || ce.At.File != p || ce.At.Line != 2 {
		t.Fatalf("err = %#v", err)
	}
}

// TestSummaryModel: [agent] summary_model resolves like any model
// reference, and a bad one is an error at its line; compact_ratio
// defaults to 0.8.
func TestSummaryModel(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	p := writeFile(t, dir, "reasonix.toml", "[agent]\ncompact_ratio = 0.5\nsummary_model = \"deepseek-v4-pro\"\n")
	c, err := Load(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, ok, err := c.SummaryModel()
	if err != nil || !ok || res.String() != "deepseek/deepseek-v4-pro" || c.Agent.CompactRatio != 0.5 {
		t.Fatalf("SummaryModel = %v, %v, %v; ratio %v", res, ok, err, c.Agent.CompactRatio)
	}
	writeFile(t, dir, "reasonix.toml", "[agent]\n\nsummary_model = \"nope\"\n")
	if c, err = Load(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.SummaryModel()
	var ce *Error
	if !errors.As(err, &ce) || ce.At.File != p || ce.At.Line != 3 {
		t.Fatalf("err = %#v", err)
	}
	if _, ok, err := Defaults().SummaryModel(); ok || err != nil || Defaults().Agent.CompactRatio != 0.8 {
		t.Fatalf("defaults: %v %v", ok, err)
	}
}

func TestMissingKeyNamesTheVariable(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, dir, "reasonix.toml", "[[providers]]\nname = \"x\"\nbase_url = \"u\"\nmodel = \"m\"\napi_key_env = \"REASONIX_TEST_KEY_UNSET\"\n")
	trust(t, dir)
	c, err := Load(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Provider("x")
	_, err = p.APIKey()
	if err == nil || !strings.Contains(err.Error(), "REASONIX_TEST_KEY_UNSET") || !strings.Contains(err.Error(), "reasonix.toml:5") {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("REASONIX_TEST_KEY_UNSET", "sk-1")
	if k, err := p.APIKey(); err != nil || k != "sk-1" {
		t.Fatalf("key %q err %v", k, err)
	}
	// The built-in default names DEEPSEEK_API_KEY.
	t.Setenv("DEEPSEEK_API_KEY", "")
	d, _ := c.Provider("deepseek")
	if _, err := d.APIKey(); err == nil || !strings.Contains(err.Error(), "DEEPSEEK_API_KEY") {
		t.Fatalf("deepseek key err = %v", err)
	}
}

func TestUnknownKeysWarn(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, dir, "reasonix.toml", "[agent]\nmax_step = 3\n")
	c, err := Load(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `reasonix.toml:2: unknown setting "agent.max_step"`) {
		t.Fatalf("warnings = %v", c.Warnings)
	}
}

// TestErrorsCarryTheWarnings: a misspelt key is only a warning, and the
// error that follows from it (here, no model) must come with it.
func TestErrorsCarryTheWarnings(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, dir, "reasonix.toml", "[[providers]]\nname = \"x\"\nbase_url = \"u\"\nmodell = \"m\"\n")
	_, err := loadTrusted(t, Options{Dir: dir})
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "declares no model") {
		t.Fatalf("err = %v", err)
	}
	if len(ce.Warnings) != 1 || !strings.Contains(ce.Warnings[0], `reasonix.toml:4: unknown setting "providers.modell"`) {
		t.Fatalf("warnings = %q", ce.Warnings)
	}

	c, err := Load(Options{Dir: dir + "/none"})
	if err != nil {
		t.Fatal(err)
	}
	err = c.OverlayTOML("editor settings", "[agent]\nmax_stepz = 3\n[permissions]\nmode = \"never\"\n")
	if !errors.As(err, &ce) || len(ce.Warnings) != 1 || !strings.Contains(ce.Warnings[0], "max_stepz") {
		t.Fatalf("overlay: err = %v, warnings %q", err, ce.Warnings)
	}
}

// TestExplain: an error told in one message carries its own warnings,
// else those given, one a line after it, and stays what it was for
// errors.As.
func TestExplain(t *testing.T) {
	own := &Error{At: Pos{File: "f", Line: 2}, Msg: "bad", Warnings: []string{"f:5: own"}}
	if got := Explain(own, []string{"given"}).Error(); got != "f:2: bad\nwarning: f:5: own" {
		t.Errorf("own warnings: %q", got)
	}
	var ce *Error
	if !errors.As(Explain(own, nil), &ce) || ce != own {
		t.Errorf("errors.As lost the configuration error")
	}
	plain := errors.New("build failed")
	if got := Explain(plain, []string{"a", "b"}).Error(); got != "build failed\nwarning: a\nwarning: b" {
		t.Errorf("given warnings: %q", got)
	}
	if Explain(plain, nil) != plain || Explain(nil, []string{"a"}) != nil {
		t.Errorf("nothing to add must change nothing")
	}
}

func TestPrices(t *testing.T) {
	c := Defaults()
	p, _ := c.Provider("deepseek")
	pr, ok := p.PriceOf("deepseek-flash")
	if !ok || pr.InputCacheMiss == 0 {
		t.Fatalf("no default DeepSeek price")
	}
	if got := pr.Cost(1_000_000, 0, 0); got != pr.InputCacheHit {
		t.Fatalf("cost of 1M hits = %v", got)
	}
	custom := ProviderConfig{Price: &Price{Output: 2}, Prices: map[string]Price{"special": {Output: 5}}}
	if pr, _ := custom.PriceOf("special"); pr.Output != 5 {
		t.Fatal("per-model price ignored")
	}
	if pr, _ := custom.PriceOf("other"); pr.Output != 2 {
		t.Fatal("provider price ignored")
	}
	if _, ok := (&ProviderConfig{}).PriceOf("llama"); ok {
		t.Fatal("unknown model priced")
	}
}

func TestDefaultFileLoads(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, "config.toml")
	if err := WriteDefault(path, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteDefault(path, false); err == nil {
		t.Fatal("overwrote an existing config without force")
	}
	c, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Fatalf("warnings: %v", c.Warnings)
	}
	if r, err := c.ResolveModel(""); err != nil || r.String() != "deepseek/deepseek-flash" {
		t.Fatalf("default model %v %v", r, err)
	}
}

func TestAppendRule(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"no file", "", "[permissions]\nallow = [\"Bash(go test:*)\"]\n"},
		{"no table", "default_model = \"x\"\n", "default_model = \"x\"\n\n[permissions]\nallow = [\"Bash(go test:*)\"]\n"},
		{"table without list", "[permissions]\nmode = \"ask\"\n", "[permissions]\nallow = [\"Bash(go test:*)\"]\nmode = \"ask\"\n"},
		{"empty list", "[permissions]\nallow = [] # none yet\n", "[permissions]\nallow = [\"Bash(go test:*)\"] # none yet\n"},
		{"one-line list", "[permissions]\nallow = [\"read_file\"]\n[sandbox]\n", "[permissions]\nallow = [\"read_file\", \"Bash(go test:*)\"]\n[sandbox]\n"},
		{"multi-line list", "[permissions]\nallow = [\n  \"read_file\" # reads\n]\n", "[permissions]\nallow = [\n  \"Bash(go test:*)\",\n  \"read_file\" # reads\n]\n"},
		{"already there", "[permissions]\nallow = [\"Bash(go test:*)\"]\n", "[permissions]\nallow = [\"Bash(go test:*)\"]\n"},
		{"list in another table", "[other]\nallow = [1]\n[permissions]\nmode = \"ask\"\n", "[other]\nallow = [1]\n[permissions]\nallow = [\"Bash(go test:*)\"]\nmode = \"ask\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "reasonix.toml")
			if tt.src != "" {
				os.WriteFile(p, []byte(tt.src), 0o644)
			}
			if err := AppendRule(p, "allow", "Bash(go test:*)"); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tt.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	t.Setenv("RX_A", "aa")
	t.Setenv("RX_EMPTY", "")
	tests := map[string]string{
		"${RX_A}/x":           "aa/x",
		"${RX_EMPTY:-dflt}/y": "dflt/y",
		"${RX_MISSING:-d}":    "d",
		"${RX_MISSING}z":      "z",
		"plain":               "plain",
		"${unterminated":      "${unterminated",
	}
	for in, want := range tests {
		if got := Expand(in); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPosText(t *testing.T) {
	for _, p := range []Pos{{}, {File: "/a/reasonix.toml"}, {File: "/a/reasonix.toml", Line: 12}, {File: `C:\a:b\x.toml`, Line: 3}} {
		b, err := p.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var q Pos
		if err := q.UnmarshalText(b); err != nil || q != p {
			t.Errorf("%+v → %q → %+v, %v", p, b, q, err)
		}
	}
}

// TestSkillsSettings: [skills] lists add up across layers, and an unknown
// key in it warns like any other.
func TestSkillsSettings(t *testing.T) {
	home := isolate(t)
	writeFile(t, home, "config.toml", "[skills]\npaths = [\"~/my-skills\"]\ndisabled_skills = [\"review\"]\n")
	dir := t.TempDir()
	writeFile(t, dir, "reasonix.toml", "[skills]\npaths = [\"../shared\"]\nexcluded_paths = [\"~/.claude/skills\"]\ndisabled = [\"x\"]\n")
	c, err := Load(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	k := c.Skills
	if !slices.Equal(k.Paths, []string{"~/my-skills", "../shared"}) || !slices.Equal(k.ExcludedPaths, []string{"~/.claude/skills"}) || !slices.Equal(k.DisabledSkills, []string{"review"}) {
		t.Errorf("[skills] = %+v", k)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `reasonix.toml:4: unknown setting "skills.disabled"`) {
		t.Errorf("warnings = %v", c.Warnings)
	}
}

// TestReview: review is apply, propose or unset; the editor's settings
// override the project file; anything else is an error naming the key.
func TestReview(t *testing.T) {
	c, err := Load(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Review != "" {
		t.Errorf("default review = %q, want unset", c.Review)
	}
	if err := c.OverlayTOML("editor settings", "review = \"propose\"\n"); err != nil || c.Review != "propose" {
		t.Fatalf("review = %q, err %v", c.Review, err)
	}
	err = c.OverlayTOML("editor settings", "review = \"sometimes\"\n")
	if err == nil || !strings.Contains(err.Error(), `review must be apply or propose, not "sometimes"`) {
		t.Fatalf("bad review: %v", err)
	}
}
