package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
)

// Exit codes. `reasonix run` promises 2 for an exceeded token budget, so
// a usage error takes 64, EX_USAGE of BSD's sysexits.h, and no command
// exits 2 for anything else.
const (
	exitOK          = 0
	exitError       = 1
	exitBudget      = 2
	exitUsage       = 64
	exitInterrupted = 130
)

// A command is one subcommand as the help describes it. The overview
// (`reasonix --help`), a subcommand's own usage (`reasonix run --help`,
// `reasonix help run`, or after a wrong flag) and the synopsis in
// docs/SPEC.md are all checked against this table, and the flags listed
// come from the flag set the subcommand itself parses with.
type command struct {
	// name is what follows "reasonix", subcommand words included.
	name string
	// synopsis is the whole command line: name, flags, operands. A flag's
	// argument is named here (`--model REF`), its meaning in its usage.
	synopsis string
	summary  string
	// flags defines the subcommand's flags, as the subcommand does.
	flags func(*flag.FlagSet)
}

var commands = []command{
	{"lsp", "lsp [--stdio] [--config FILE]",
		"serve the Language Server Protocol on stdin/stdout (for editors)",
		func(fs *flag.FlagSet) { lspFlags(fs) }},
	{"acp", "acp [--config FILE]",
		"serve the Agent Client Protocol on stdin/stdout (for Zed, JetBrains, CodeCompanion)",
		func(fs *flag.FlagSet) { acpFlags(fs) }},
	{"run", "run [--model REF] [--config FILE] [--approval ask|auto|yolo] [--resume ID] [--plan] [--verbose] [--budget N] [--trust DIGEST] PROMPT",
		"run one task in the current directory; a PROMPT of - is read from stdin",
		func(fs *flag.FlagSet) { runFlags(fs) }},
	{"sessions", "sessions [--json]",
		"list saved sessions, newest first",
		func(fs *flag.FlagSet) { sessionsFlags(fs) }},
	{"trace", "trace [N] [--session ID] [--json] [--config FILE]",
		"print the last N steps (default 20) of this workspace's latest session",
		func(fs *flag.FlagSet) { traceFlags(fs) }},
	{"stats", "stats [--days N] [--json] [--config FILE]",
		"tokens, cache hits, cost, retries and latency of every session, per model and per day",
		func(fs *flag.FlagSet) { statsFlags(fs) }},
	{"memory", "memory [--json] [--archived] [--config FILE]",
		"list what the agent remembers for you and for this project",
		func(fs *flag.FlagSet) { memoryFlags(fs) }},
	{"mcp list", "mcp list [--verbose] [--json] [--config FILE]",
		"start the configured MCP servers and show what each offers",
		func(fs *flag.FlagSet) { mcpListFlags(fs) }},
	{"mcp login", "mcp login [--config FILE] NAME",
		"sign in to the MCP server NAME if it wants it, and keep the sign-in for later runs",
		func(fs *flag.FlagSet) { fs.String("config", "", configFlagUsage) }},
	{"mcp logout", "mcp logout [--config FILE] NAME",
		"forget the sign-in kept for the MCP server NAME",
		func(fs *flag.FlagSet) { fs.String("config", "", configFlagUsage) }},
	{"setup", "setup [--force]",
		"write a commented config to ~/.reasonix/config.toml",
		func(fs *flag.FlagSet) { setupFlags(fs) }},
	{"trust", "trust [--yes] [--revoke] [--list] [--config FILE] [DIR]",
		"show what a workspace's own configuration would start, send or loosen, and trust it (default DIR: .)",
		func(fs *flag.FlagSet) { trustFlags(fs) }},
	{"version", "version", "print the version", func(*flag.FlagSet) {}},
}

// runPrompts says what a prompt of `reasonix run` may hold besides words.
const runPrompts = `The prompt may start with a slash command: reasonix run /help lists them,
with your own commands (.reasonix/commands) and skills. @path attaches a
file of the workspace, @dir/ a directory's listing:
  reasonix run "/review @calc.go"
  reasonix run --resume ID /cost
`

// exitCodes is the table the overview prints; docs/SPEC.md §1 and the
// README say the same.
const exitCodes = `Exit codes: 0 done, 1 error, 2 budget exceeded (run),
64 usage error (a wrong flag or a missing argument), 130 interrupted.
`

// usage prints the overview: every command, the flags of run, the exit
// codes.
func usage(w io.Writer) {
	fmt.Fprint(w, "Reasonix is a coding agent for your editor and your terminal.\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  reasonix %s\n      %s\n", c.synopsis, c.summary)
	}
	fmt.Fprint(w, "\nRun flags:\n")
	printFlags(w, lookupCommand("run"))
	fmt.Fprint(w, "\n"+runPrompts)
	fmt.Fprint(w, "\n"+exitCodes)
	fmt.Fprint(w, "`reasonix help COMMAND` or `reasonix COMMAND --help` describes one command.\n")
}

// commandUsage prints one command's synopsis, summary and flags.
func commandUsage(w io.Writer, name string) {
	c := lookupCommand(name)
	fmt.Fprintf(w, "Usage: reasonix %s\n\n%s.\n", c.synopsis, upperFirst(c.summary))
	if strings.Contains(c.synopsis, "--") {
		fmt.Fprint(w, "\nFlags:\n")
		printFlags(w, c)
	}
	if name == "run" {
		fmt.Fprint(w, "\n"+runPrompts)
	}
}

// helpCmd is `reasonix help [COMMAND]`.
func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	name := strings.Join(args, " ")
	if name == "mcp" {
		name = "mcp list"
	}
	if !slices.ContainsFunc(commands, func(c command) bool { return c.name == name }) {
		return unknownCommand(stderr, "reasonix help", name)
	}
	commandUsage(stdout, name)
	return exitOK
}

func lookupCommand(name string) command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	panic("reasonix: no usage for command " + name)
}

// printFlags lists a command's flags in the order its synopsis names
// them, each with the argument the synopsis gives it.
func printFlags(w io.Writer, c command) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range synopsisFlags(c.synopsis) {
		fl := fs.Lookup(f.name)
		if fl == nil {
			continue // TestUsageMatchesFlags catches this
		}
		lines := strings.Split(fl.Usage, "\n")
		fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace("--"+f.name+" "+f.arg), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(tw, "  \t%s\n", l)
		}
	}
	tw.Flush()
}

// A synopsisFlag is one `[--name ARG]` of a synopsis.
type synopsisFlag struct{ name, arg string }

func synopsisFlags(synopsis string) []synopsisFlag {
	var out []synopsisFlag
	for _, field := range strings.Split(synopsis, "[")[1:] {
		field, _, _ = strings.Cut(field, "]")
		if !strings.HasPrefix(field, "--") {
			continue // an optional operand, such as trace's [N]
		}
		name, arg, _ := strings.Cut(strings.TrimPrefix(field, "--"), " ")
		out = append(out, synopsisFlag{name, arg})
	}
	return out
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// newFlagSet makes the flag set of a subcommand. It prints nothing by
// itself: parse errors are reported by flagError, in the project's words.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagError reports a failed parse of a subcommand's flags and returns
// the exit code: -h or --help prints the command's usage on stdout and
// succeeds; a wrong flag prints the error and the usage on stderr.
func flagError(name string, err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(stdout, name)
		return exitOK
	}
	fmt.Fprintf(stderr, "reasonix %s: %s\n", name, flagProblem(name, err))
	shortUsage(stderr, name)
	return exitUsage
}

// shortUsage ends every usage error: the command's synopsis, and where
// to read the rest. The error line above it says what was wrong; the
// whole help would push that line off a small terminal.
func shortUsage(w io.Writer, name string) {
	fmt.Fprintf(w, "usage: reasonix %s\nRun 'reasonix help %s' for more.\n", lookupCommand(name).synopsis, name)
}

// unknownCommand reports a first word that names no command, with the
// nearest that does, and the shape of a command line.
func unknownCommand(w io.Writer, prefix, word string) int {
	fmt.Fprintf(w, "%s: unknown command %q%s\n", prefix, word, didYouMean(word, commandWords(), "%q"))
	fmt.Fprintf(w, "usage: reasonix COMMAND [FLAGS] [ARGS]; COMMAND is one of %s\n", strings.Join(commandWords(), ", "))
	fmt.Fprint(w, "Run 'reasonix help' for more.\n")
	return exitUsage
}

// commandWords are the first words of the commands, in the table's order,
// and help.
func commandWords() []string {
	var words []string
	for _, c := range commands {
		if w := strings.Fields(c.name)[0]; !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return append(words, "help")
}

// The errors of the flag package, which speaks of "-days" and "parse
// error" where the usage says --days and what it takes.
var (
	flagUnknown  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNoArg    = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagBadBool  = regexp.MustCompile(`^invalid boolean value (".*") for -+(\S+): `)
	flagBadValue = regexp.MustCompile(`^invalid value (".*") for flag -+(\S+): (.*)$`)
	flagSyntax   = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagProblem says what was wrong with command name's flags in the
// project's words: the flag as the usage writes it, and what it takes.
func flagProblem(name string, err error) string {
	msg := err.Error()
	if m := flagUnknown.FindStringSubmatch(msg); m != nil {
		var names []string
		for _, f := range synopsisFlags(lookupCommand(name).synopsis) {
			names = append(names, f.name)
		}
		return "unknown flag --" + m[1] + didYouMean(m[1], names, "--%s")
	}
	if m := flagNoArg.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s needs a value (--%s %s)", m[1], m[1], flagArg(name, m[1]))
	}
	if m := flagBadBool.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s is on or off: --%s, --%s=true or --%s=false, not %s", m[2], m[2], m[2], m[2], m[1])
	}
	if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		if strings.HasSuffix(m[3], "out of range") {
			return fmt.Sprintf("--%s is out of range: %s", m[2], m[1])
		}
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		lookupCommand(name).flags(fs)
		what := "a valid " + flagArg(name, m[2])
		if fl := fs.Lookup(m[2]); fl != nil {
			if g, ok := fl.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case int, int64, uint, uint64:
					what = "a whole number"
				}
			}
		}
		return fmt.Sprintf("--%s must be %s, not %s", m[2], what, m[1])
	}
	if m := flagSyntax.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%q is not a flag (flags are written --name or --name=value)", m[1])
	}
	return msg
}

// flagArg is the argument command name's synopsis gives flag ("N",
// "FILE"), or "VALUE".
func flagArg(name, flag string) string {
	for _, f := range synopsisFlags(lookupCommand(name).synopsis) {
		if f.name == flag && f.arg != "" {
			return f.arg
		}
	}
	return "VALUE"
}

// usageError reports a wrong use that the flag parser cannot see, such as
// a missing operand, with a pointer to the command's usage.
func usageError(name string, stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "reasonix %s: %s\n", strings.Fields(name)[0], fmt.Sprintf(format, args...))
	shortUsage(stderr, name)
	return exitUsage
}
