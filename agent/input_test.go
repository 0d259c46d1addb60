package agent

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
)

// commandHarness is a harness whose workspace has calc.go and the
// project commands given (name → file).
func commandHarness(t *testing.T, responses []provider.Response, commands map[string]string) *harness {
	t.Helper()
	h := newHarness(t, responses)
	root := h.a.Env.Root
	files := map[string]string{"calc.go": "package calc\n"}
	for name, body := range commands {
		files[".reasonix/commands/"+name] = body
	}
	writeFiles(t, root, files)
	h.a.CommandDirs = CommandDirs(root, filepath.Join(t.TempDir(), "home"), "")
	return h
}

func (h *harness) lastRequest(t *testing.T) provider.Request {
	t.Helper()
	h.prov.mu.Lock()
	defer h.prov.mu.Unlock()
	if len(h.prov.requests) == 0 {
		t.Fatal("no request reached the model")
	}
	return h.prov.requests[len(h.prov.requests)-1]
}

// TestCustomCommandTurn: a custom command's body, with the arguments in
// place, is the prompt; its @ references are attached after it, in the
// user message; the turn opens with the expanded text.
func TestCustomCommandTurn(t *testing.T) {
	h := commandHarness(t, []provider.Response{answer("Looks fine.")}, map[string]string{
		"review.md": "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 for bugs; list them with file:line.\n",
	})
	s, _ := h.a.NewSession()
	res, err := h.a.RunInput(t.Context(), s, Input{Text: "/review @calc.go"})
	if err != nil || res.Text != "Looks fine." || res.Action != nil {
		t.Fatalf("result %+v, %v", res, err)
	}
	msgs := h.lastRequest(t).Messages
	want := "Review @calc.go for bugs; list them with file:line.\n\n<file path=\"calc.go\">\npackage calc\n</file>"
	if got := msgs[len(msgs)-1].Content; got != want {
		t.Errorf("the model got\n%q\nwant\n%q", got, want)
	}
	if starts := h.kinds(EventTurnStart); len(starts) != 1 || starts[0].Text != "Review @calc.go for bugs; list them with file:line." {
		t.Errorf("turn_start events %+v", starts)
	}
}

// TestBuiltinCommands: built-ins never reach the model nor touch the log;
// the agent answers /help, /cost and /mcp, and reports /new and /clear
// for the front end to perform.
func TestBuiltinCommands(t *testing.T) {
	hi := answer("hi")
	hi.Usage = provider.Usage{PromptTokens: 13696, CacheHitTokens: 12800, CacheMissTokens: 896, CompletionTokens: 5}
	h := commandHarness(t, []provider.Response{hi}, map[string]string{"review.md": "Review $ARGUMENTS"})
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(t.Context(), s, "hello"); err != nil {
		t.Fatal(err)
	}
	logged := len(s.Messages())
	cases := []struct {
		prompt string
		kind   ActionKind
		text   []string
	}{
		{"/help", ActionHelp, []string{"/new", "/clear", "/model", "[REF [prompt]]", "/review", "(project)", "@server:uri", ".reasonix/commands"}},
		// Counted as the run's accounting line counts.
		{"/cost", ActionCost, []string{"Session " + s.ID + ": 1 turn · 14k tokens in (93.5% cache hit: 13k hit, 896 miss) + 5 out · $"}},
		{"/mcp", ActionMCP, []string{"No MCP servers are configured"}},
		{"/model", ActionModel, []string{"Model: fake/m"}},
		{"/new", ActionNew, nil},
		{"/clear", ActionClear, nil},
	}
	for _, c := range cases {
		h.events = nil
		res, err := h.a.Run(t.Context(), s, c.prompt)
		if err != nil || res.Action == nil || res.Action.Kind != c.kind || res.Stop != StopDone {
			t.Errorf("%s: %+v, %v", c.prompt, res, err)
			continue
		}
		for _, w := range c.text {
			if !strings.Contains(res.Text, w) {
				t.Errorf("%s: the answer lacks %q:\n%s", c.prompt, w, res.Text)
			}
		}
		if c.text == nil && res.Text != "" {
			t.Errorf("%s: answered %q", c.prompt, res.Text)
		}
		var kinds []string
		for _, e := range h.events {
			kinds = append(kinds, string(e.Kind))
		}
		want := "turn_start turn_done"
		if c.text != nil {
			want = "turn_start text turn_done"
		}
		if strings.Join(kinds, " ") != want {
			t.Errorf("%s: events %v, want %s", c.prompt, kinds, want)
		}
	}
	if n := len(s.Messages()); n != logged {
		t.Errorf("the built-ins changed the log: %d messages, had %d", n, logged)
	}
	// /compact calls Agent.Compact; a failure is the turn's error.
	switch res, err := h.a.Run(t.Context(), s, "/compact"); {
	case err != nil && (!strings.HasPrefix(err.Error(), "/compact: ") || res.Stop != StopError):
		t.Errorf("/compact failed: %+v, %v", res, err)
	case errors.Is(err, ErrNothingToCompact) && err.Error() != "/compact: "+ErrNothingToCompact.Error():
		t.Errorf("/compact with nothing to compact says %q", err)
	case err == nil && (res.Action == nil || res.Action.Kind != ActionCompact || res.Text == ""):
		t.Errorf("/compact: %+v", res)
	}
	if _, err := h.a.Run(t.Context(), s, "/reveiw x"); err == nil || !strings.Contains(err.Error(), "/reveiw: no such command") {
		t.Errorf("a typo: %v", err)
	}
}

// TestMalformedCommandIsANotice: a command file that cannot be parsed
// never stops a prompt; the reason is told when a command is typed.
func TestMalformedCommandIsANotice(t *testing.T) {
	h := commandHarness(t, []provider.Response{answer("ok")}, map[string]string{
		"review.md": "---\ndescription: never closed\nReview it.\n",
		"plan.md":   "Plan $ARGUMENTS",
	})
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(t.Context(), s, "/plan the release"); err != nil {
		t.Fatal(err)
	}
	_, err := h.a.Run(t.Context(), s, "/review")
	if err == nil || !strings.Contains(err.Error(), "/review: no such command") {
		t.Errorf("/review: %v", err)
	}
	notices := h.kinds(EventNotice)
	if len(notices) != 2 || !strings.Contains(notices[0].Text, "review.md: skipped: line 3") {
		t.Errorf("notices %+v", notices)
	}
}

// switchProviders records, by provider name, the requests of the
// "switch-test" kind's providers.
var switchProviders sync.Map // name → *fakeProvider

func init() {
	provider.Register("switch-test", func(c provider.Config) (provider.Provider, error) {
		p, _ := switchProviders.LoadOrStore(c.Name+"/"+c.Model, &fakeProvider{})
		return p.(*fakeProvider), nil
	})
}

// TestModelSwitch: /model REF switches the session's later turns;
// /model REF PROMPT runs that prompt alone on REF; a command's model
// frontmatter runs its turn on that model; a reference that names no
// model is an error before anything runs.
func TestModelSwitch(t *testing.T) {
	h := commandHarness(t, nil, map[string]string{
		"deep.md": "---\nmodel: pro\n---\nThink hard about $ARGUMENTS",
	})
	cfg := &config.Config{Providers: []config.ProviderConfig{
		{Name: "fake", Kind: "switch-test", Models: []string{"m"}},
		{Name: "big", Kind: "switch-test", Models: []string{"pro", t.Name()}},
	}}
	h.a.config, h.a.models = cfg, &models{}
	fake, big, deep := &fakeProvider{}, &fakeProvider{}, &fakeProvider{responses: []provider.Response{answer("deeply")}}
	switchProviders.Store("big/"+t.Name(), big)
	switchProviders.Store("big/pro", deep)
	h.a.Provider = fake
	for range 4 {
		fake.responses = append(fake.responses, answer("from m"))
		big.responses = append(big.responses, answer("from big"))
	}
	s, _ := h.a.NewSession()
	run := func(prompt string) TurnResult {
		t.Helper()
		res, err := h.a.Run(t.Context(), s, prompt)
		if err != nil {
			t.Fatalf("%s: %v", prompt, err)
		}
		return res
	}
	if res := run("/model big/" + t.Name() + " one question"); res.Text != "from big" || res.Model != "big/"+t.Name() {
		t.Errorf("/model REF PROMPT: %+v", res)
	}
	if res := run("next"); res.Text != "from m" || res.Model != "fake/m" {
		t.Errorf("after a one-off: %+v", res)
	}
	if res := run("/model big/" + t.Name()); res.Action == nil || res.Action.Model != "big/"+t.Name() {
		t.Errorf("/model REF: %+v", res)
	}
	if res := run("on big now"); res.Text != "from big" {
		t.Errorf("after /model REF: %+v", res)
	}
	if res := run("/model"); !strings.Contains(res.Text, "Model: big/"+t.Name()) || !strings.Contains(res.Text, "big: pro, "+t.Name()) {
		t.Errorf("/model: %q", res.Text)
	}
	s.SetModel("")
	if res := run("/deep the cache"); res.Model != "big/pro" || res.Text != "deeply" {
		t.Errorf("a command's model: %+v", res)
	}
	if _, err := h.a.Run(t.Context(), s, "/model nowhere hi"); err == nil || !strings.Contains(err.Error(), `/model: model "nowhere" matches no provider`) {
		t.Errorf("a bad reference: %v", err)
	}
	if len(fake.requests) != 1 || len(big.requests) != 2 {
		t.Errorf("requests: %d to m, %d to big", len(fake.requests), len(big.requests))
	}
}

// TestHelpIsOneTable: /help's sections share their columns, so that the
// built-ins, the custom commands and the references read as one table.
func TestHelpIsOneTable(t *testing.T) {
	h := commandHarness(t, nil, map[string]string{
		"git/commit.md": "Write a commit message.\n",
		"review.md":     "---\ndescription: Review a file\nargument-hint: FILE [focus]\n---\nReview $1.\n",
	})
	s, _ := h.a.NewSession()
	res, err := h.a.Run(t.Context(), s, "/help")
	if err != nil {
		t.Fatal(err)
	}
	descAt := map[int]bool{}
	for _, desc := range []string{"List the slash", "Show the model", "Write a commit", "Review a file", "Attach a file", "Attach a resource"} {
		for _, line := range strings.Split(res.Text, "\n") {
			if i := strings.Index(line, desc); i > 0 {
				descAt[i] = true
			}
		}
	}
	if len(descAt) != 1 {
		t.Errorf("the descriptions start at %d columns, want one:\n%s", len(descAt), res.Text)
	}
	for _, title := range []string{"Commands:", "Custom commands:", "References:"} {
		if !strings.Contains(res.Text, "\n"+title+"\n") && !strings.HasPrefix(res.Text, title+"\n") {
			t.Errorf("no %s section:\n%s", title, res.Text)
		}
	}
}

// TestCommandModelIsCheckedFirst: a command whose model reference names
// no model fails before the turn, naming the file to fix, and the model
// is asked nothing.
func TestCommandModelIsCheckedFirst(t *testing.T) {
	h := commandHarness(t, []provider.Response{answer("never")}, map[string]string{
		"fast.md": "---\ndescription: Fast review\nmodel: nosuch\n---\nReview $1\n",
	})
	s, _ := h.a.NewSession()
	_, err := h.a.Run(t.Context(), s, "/fast calc.go")
	if err == nil || !strings.HasPrefix(err.Error(), "/fast: .reasonix/commands/fast.md: ") || strings.Count(err.Error(), `"nosuch"`) != 1 {
		t.Fatalf("error %v", err)
	}
	h.prov.mu.Lock()
	defer h.prov.mu.Unlock()
	if n := len(h.prov.requests); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestReferenceNotices: a reference the model does not get is told the
// user as a notice of the turn, after the turn starts and before the
// model answers; an "@" word of prose is not, nor a missing path that
// only a command's text names.
func TestReferenceNotices(t *testing.T) {
	h := commandHarness(t, []provider.Response{answer("ok"), answer("linted")}, map[string]string{
		"lint.md": "Lint $ARGUMENTS as @docs/style.md says; the types come from @types/node. Skip @blob.bin.",
	})
	writeFiles(t, h.a.Env.Root, map[string]string{"blob.bin": "\x00\x01binary"})
	s, _ := h.a.NewSession()
	if _, err := h.a.Run(t.Context(), s, "look at @calc.go, @blob.bin and @src/gone.go, thanks @alice"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range h.events {
		if e.Kind == EventTurnStart || e.Kind == EventNotice || e.Kind == EventText {
			got = append(got, string(e.Kind)+" "+e.Text)
		}
	}
	want := []string{
		"turn_start look at @calc.go, @blob.bin and @src/gone.go, thanks @alice",
		"notice @blob.bin not attached: it is a binary file (8 bytes)",
		"notice @src/gone.go not attached: there is no such file in the workspace",
		"text ok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	h.mu.Lock()
	h.events = nil
	h.mu.Unlock()
	if _, err := h.a.Run(t.Context(), s, "/lint @src/gone.go"); err != nil {
		t.Fatal(err)
	}
	var notices []string
	for _, e := range h.kinds(EventNotice) {
		notices = append(notices, e.Text)
	}
	want = []string{
		"@src/gone.go not attached: there is no such file in the workspace",
		"@blob.bin not attached: it is a binary file (8 bytes)",
	}
	if strings.Join(notices, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices of the command\n%s\nwant\n%s", strings.Join(notices, "\n"), strings.Join(want, "\n"))
	}
}
