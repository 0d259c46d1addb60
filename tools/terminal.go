package tools

import "context"

// Terminal runs shell commands where the user watches them: the editor's
// own terminal, for a client of the Agent Client Protocol that offers one.
// The bash tool builds the command as it would to run it itself, confined
// by the jail when there is one, and hands the terminal the exact program,
// arguments and environment, so the terminal starts the same confined
// command the tool would have started.
type Terminal interface {
	// Run starts cmd in the terminal and waits for it to end. When ctx
	// ends first (a timeout, the user stopping the turn) the command is
	// killed and Run reports that it was. An error means the terminal
	// itself failed; the command may not have run.
	Run(ctx context.Context, cmd TerminalCommand) (TerminalRun, error)
}

// TerminalCommand is a command for a Terminal, fully built.
type TerminalCommand struct {
	// Path is the program, Args its arguments after the program's
	// name, Env its whole environment as NAME=value, Dir where it runs.
	Path string
	Args []string
	Env  []string
	Dir  string
	// OutputLimit is how many bytes of output to keep: the last ones.
	OutputLimit int
}

// TerminalRun is how a command run in a Terminal ended.
type TerminalRun struct {
	// Output is what the command wrote, stdout and stderr together;
	// Truncated says its beginning was cut to OutputLimit.
	Output    string
	Truncated bool
	Status    ExitStatus
	// Killed reports that Run killed the command because ctx ended.
	Killed bool
}
