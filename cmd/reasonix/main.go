// Command reasonix is a coding agent that lives in the editor: it serves
// the Language Server Protocol and the Agent Client Protocol for editors,
// and runs headless for scripts.
//
// Usage:
//
//	reasonix lsp [--stdio] [--config FILE]
//	reasonix acp [--config FILE]
//	reasonix run [--model REF] [--config FILE] [--approval ask|auto|yolo] [--resume ID] [--plan] [--verbose] [--budget N] [--trust DIGEST] PROMPT
//	reasonix sessions [--json]
//	reasonix trace [N] [--session ID] [--json] [--config FILE]
//	reasonix stats [--days N] [--json] [--config FILE]
//	reasonix memory [--json] [--archived] [--config FILE]
//	reasonix mcp list [--verbose] [--json] [--config FILE]
//	reasonix mcp login [--config FILE] NAME
//	reasonix mcp logout [--config FILE] NAME
//	reasonix setup [--force]
//	reasonix trust [--yes] [--revoke] [--list] [--config FILE] [DIR]
//	reasonix version
//
// `reasonix help COMMAND` describes one command; the table behind every
// usage text is in usage.go.
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
		return exitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdin, stdout, stderr)
	case "lsp":
		return lspCmd(args[1:], stdin, stdout, stderr)
	case "acp":
		return acpCmd(args[1:], stdin, stdout, stderr)
	case "sessions":
		return sessionsCmd(args[1:], stdout, stderr)
	case "trace":
		return traceCmd(args[1:], stdout, stderr)
	case "stats":
		return statsCmd(args[1:], stdout, stderr)
	case "memory":
		return memoryCmd(args[1:], stdout, stderr)
	case "mcp":
		return mcpCmd(args[1:], stdout, stderr)
	case "setup":
		return setupCmd(args[1:], stdout, stderr)
	case "trust":
		return trustCmd(args[1:], stdin, stdout, stderr)
	case "version", "--version", "-v":
		return versionCmd(args[1:], stdout, stderr)
	case "help":
		return helpCmd(args[1:], stdout, stderr)
	case "-h", "--help":
		usage(stdout)
		return exitOK
	}
	return unknownCommand(stderr, "reasonix", args[0])
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

// versionCmd prints the version. It takes no flags and no arguments.
func versionCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version")
	if err := fs.Parse(args); err != nil {
		return flagError("version", err, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("version", stderr, "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintf(stdout, "reasonix %s %s/%s %s\n", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
	return exitOK
}
