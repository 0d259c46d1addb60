package scripted

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"
)

// A Scenario is a whole agent transcript in one txtar archive: the task,
// the scripted model, the project before, and what must hold after.
//
//	-- prompt --       the user's task (required)
//	-- model --        the script the server plays (required)
//	-- files/<path> -- the workspace before the run
//	-- want/<path> --  files that must have exactly this content afterwards
//	-- gone/<path> --  files that must not exist afterwards (body ignored)
//	-- config --       extra TOML for the run's config file
//	-- flags --        extra command-line flags for `reasonix run`, one per line
//	-- check --        a shell command run in the workspace afterwards,
//	                   which must succeed
//	-- exit --         the expected exit code of `reasonix run` (default 0)
//	-- stdout --       lines that must each appear in the run's stdout
//	-- stdout-absent -- lines that must not appear in the run's stdout
//	-- stderr --       lines that must each appear in the run's stderr
//	-- needs --        programs the run needs (language servers), one per
//	                   line; the runner skips the scenario without them
type Scenario struct {
	Comment string
	Prompt  string
	Script  *Script
	Files   map[string]string
	Want    map[string]string
	Gone    []string
	Config  string
	Flags   []string
	Check   string
	Exit    int
	Stdout  []string
	// StdoutAbsent lists text that must not appear in stdout.
	StdoutAbsent []string
	Stderr       []string
	// Needs lists programs the scenario cannot run without.
	Needs []string
}

// ParseScenario reads a scenario archive.
func ParseScenario(data []byte) (*Scenario, error) {
	script, err := ParseArchive(data)
	if err != nil {
		return nil, err
	}
	ar := txtar.Parse(data)
	sc := &Scenario{
		Comment: strings.TrimSpace(string(ar.Comment)),
		Script:  script,
		Files:   map[string]string{},
		Want:    map[string]string{},
	}
	for _, f := range ar.Files {
		body := string(f.Data)
		switch name := f.Name; {
		case name == "model":
		case name == "prompt":
			sc.Prompt = strings.TrimSpace(body)
		case name == "config":
			sc.Config = body
		case name == "flags":
			sc.Flags = nonEmptyLines(body)
		case name == "check":
			sc.Check = strings.TrimSpace(body)
		case name == "exit":
			n, err := strconv.Atoi(strings.TrimSpace(body))
			if err != nil {
				return nil, fmt.Errorf("scenario: exit section: %v", err)
			}
			sc.Exit = n
		case name == "stdout":
			sc.Stdout = nonEmptyLines(body)
		case name == "stdout-absent":
			sc.StdoutAbsent = nonEmptyLines(body)
		case name == "stderr":
			sc.Stderr = nonEmptyLines(body)
		case name == "needs":
			sc.Needs = nonEmptyLines(body)
		case strings.HasPrefix(name, "files/"):
			sc.Files[strings.TrimPrefix(name, "files/")] = body
		case strings.HasPrefix(name, "want/"):
			sc.Want[strings.TrimPrefix(name, "want/")] = body
		case strings.HasPrefix(name, "gone/"):
			sc.Gone = append(sc.Gone, strings.TrimPrefix(name, "gone/"))
		default:
			return nil, fmt.Errorf("scenario: unknown section %q", name)
		}
	}
	if sc.Prompt == "" {
		return nil, fmt.Errorf("scenario: no prompt section")
	}
	return sc, nil
}

// LoadScenario reads a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc, err := ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// WriteFiles writes the scenario's starting workspace under dir.
func (sc *Scenario) WriteFiles(dir string) error {
	for name, body := range sc.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !strings.HasPrefix(p, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("scenario: file %q escapes the workspace", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
