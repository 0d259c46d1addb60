package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Reasonix runs git itself, unconfined, in a workspace whose content a
// command may have chosen: a command can plant configuration where git
// reads it (a commondir naming a directory of its own, a submodule's
// config) and attributes that pick a filter driver. So every git
// command Reasonix runs has what would make git run a program turned off,
// whatever the configuration says:
//
//   - core.fsmonitor, which git runs whenever it reads the index;
//   - hooks (core.hooksPath to /dev/null, where there are none);
//   - every filter driver's clean, smudge and process commands, which
//     git runs to compare a file with the index, and every diff driver's
//     textconv and command, and diff.external; their names are read from
//     the configuration first (filterSettings), since git has no switch
//     that turns them all off;
//   - the pager (--no-pager);
//   - transports (protocol.allow=never, which also keeps core.sshCommand
//     and remote helpers from running), credential helpers and askpass
//     programs;
//   - recursion into submodules, whose configuration would be read
//     afresh.
//
// The settings travel as GIT_CONFIG_COUNT entries, the command-line
// scope that outranks every file, and whose keys, unlike `-c`'s, may
// hold any character a driver's name can. Variables of the user's
// environment that name programs for git to run are left out too. The
// user's own git, outside Reasonix, is another matter: the control paths
// keep what a command plants from reaching it (tools.ControlWatch).

// fixedSettings are the settings every git command gets.
var fixedSettings = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", os.DevNull},
	{"core.askPass", ""},
	{"credential.helper", ""},
	{"protocol.allow", "never"},
	{"diff.external", ""},
	{"submodule.recurse", "false"},
}

// unsafeVars are variables of Reasonix's environment that name programs
// git would run.
var unsafeVars = []string{
	"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PAGER", "PAGER",
	"GIT_ASKPASS", "SSH_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PROXY_COMMAND",
}

// driverCommands are, per section, the keys of a driver's subsection
// that name a program, and the value that turns each off.
var driverCommands = map[string][][2]string{
	"filter": {{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}},
	"diff":   {{"textconv", ""}, {"command", ""}},
}

// A gitRunner runs git commands in one directory with everything that
// would make them run a program turned off (see above).
type gitRunner struct {
	dir string
	env []string
}

// newGit returns a runner for dir, after reading which filter and diff
// drivers the configuration there defines. It fails when that cannot be
// read: git is then not run at all.
func newGit(ctx context.Context, dir string) (*gitRunner, error) {
	g := &gitRunner{dir: dir}
	g.env = safeEnv(fixedSettings)
	out, err := g.run(ctx, "config", "-z", "--get-regexp", `^(filter|diff)\.`)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) { // 1: no such key
		return nil, fmt.Errorf("reading git's drivers: %w", err)
	}
	g.env = safeEnv(slices.Concat(fixedSettings, filterSettings(out)))
	return g, nil
}

// filterSettings returns the settings that turn off each driver named in
// the output of `git config -z --get-regexp`: records of "key\nvalue",
// each ended by a NUL.
func filterSettings(out []byte) [][2]string {
	var settings [][2]string
	seen := map[string]bool{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		key, _, _ := strings.Cut(string(rec), "\n")
		section, rest, ok := strings.Cut(key, ".")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i < 0 {
			continue // no subsection: not a driver
		}
		driver := section + "." + rest[:i]
		if seen[driver] {
			continue
		}
		seen[driver] = true
		for _, kv := range driverCommands[strings.ToLower(section)] {
			settings = append(settings, [2]string{driver + "." + kv[0], kv[1]})
		}
	}
	return settings
}

// safeEnv returns Reasonix's environment without unsafeVars, with
// settings added after any GIT_CONFIG_COUNT entries it holds.
func safeEnv(settings [][2]string) []string {
	var env []string
	n := 0
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains(unsafeVars, name):
			continue
		case name == "GIT_CONFIG_COUNT":
			n, _ = strconv.Atoi(value)
			continue
		}
		env = append(env, kv)
	}
	if n < 0 {
		n = 0
	}
	for i, kv := range settings {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, kv[1]))
	}
	// An empty GIT_ASKPASS stops git from looking further (core.askPass,
	// SSH_ASKPASS) for a program to ask with.
	return append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+len(settings)),
		"GIT_ASKPASS=", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
}

// run runs git with args, without taking the index lock
// (GIT_OPTIONAL_LOCKS=0): a status here must not get in the way of the
// user's own git commands.
func (g *gitRunner) run(ctx context.Context, args ...string) ([]byte, error) {
	return g.output(g.command(ctx, nil, args...))
}

// command returns the command that runs git with args. With index, git
// reads that open file as its index (GIT_INDEX_FILE naming the
// descriptor the child inherits) rather than the one at the index's
// path, which git may have replaced since.
func (g *gitRunner) command(ctx context.Context, index *os.File, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager"}, args...)...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	if index != nil {
		// The first of ExtraFiles is descriptor 3 in the child; a later
		// GIT_INDEX_FILE replaces the user's (exec keeps the last).
		cmd.ExtraFiles = []*os.File{index}
		cmd.Env = append(slices.Clip(g.env), "GIT_INDEX_FILE=/dev/fd/3")
	}
	return cmd
}

// output runs cmd and returns its standard output, its standard error
// in the error.
func (g *gitRunner) output(cmd *exec.Cmd) ([]byte, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%s: %w", msg, err)
		}
		return nil, err
	}
	return out, nil
}
