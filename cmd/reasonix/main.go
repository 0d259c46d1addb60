// Command reasonix is a coding agent that lives in the editor: it serves
// the Language Server Protocol for editors and runs headless for scripts.
//
// Usage:
//
//	reasonix lsp [--stdio] [--config FILE]
//	reasonix run [--model REF] [--config FILE] [--approval ask|auto|yolo] [--resume ID] [--plan] PROMPT
//	reasonix sessions [--json]
//	reasonix mcp list [--json] [--config FILE]
//	reasonix setup [--force]
//	reasonix version
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"

	_ "github.com/reasonix/reasonix/agent/provider/openai"
	_ "github.com/reasonix/reasonix/tools/builtin"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	hideEnvironment()
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs the command line and returns the exit code. Only this package
// decides what the user sees and how the process exits.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	setupLogging(stderr)
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdin, stdout, stderr)
	case "lsp":
		return lspCmd(args[1:], stdin, stdout, stderr)
	case "sessions":
		return sessionsCmd(args[1:], stdout, stderr)
	case "mcp":
		return mcpCmd(args[1:], stdout, stderr)
	case "setup":
		return setupCmd(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "reasonix %s %s/%s %s\n", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
		return 0
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "reasonix: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Reasonix is a coding agent for your editor and your terminal.

Usage:
  reasonix lsp [--config FILE]  serve the Language Server Protocol on stdin/stdout (for editors)
  reasonix run [flags] PROMPT   run one task in the current directory
  reasonix sessions [--json]    list saved sessions
  reasonix mcp list [--json]    start the configured MCP servers and show what each offers
  reasonix setup [--force]      write a commented config to ~/.reasonix/config.toml
  reasonix version              print the version

Run flags:
  --model REF      provider, model, or provider/model (default: default_model)
  --config FILE    a config file above ./reasonix.toml and the user config
  --approval A     ask, auto or yolo, above [permissions] approval (default ask):
                     ask   edits and commands need a yes on the terminal; with no
                           terminal (a script, CI) they are refused
                     auto  they run, unless an ask or deny rule names them
                     yolo  everything runs that no deny rule refuses
  --resume ID      continue a saved session (an id or a unique prefix)
  --verbose        also show the model's reasoning on stderr
  --plan           plan mode: read-only tools only until you approve the plan

Exit codes of run: 0 done, 1 error, 2 token budget exceeded, 130 interrupted.
`)
}

// setupLogging sends library logs to stderr; REASONIX_LOG picks the level.
func setupLogging(stderr io.Writer) {
	level := slog.LevelWarn
	switch strings.ToLower(os.Getenv("REASONIX_LOG")) {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "error":
		level = slog.LevelError
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
}
