package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Grace periods for stopping a stdio server. The MCP specification asks
// a client to close the server's stdin first, then to send SIGTERM, then
// SIGKILL; most servers exit as soon as stdin closes.
const (
	stdinGrace = time.Second
	termGrace  = 2 * time.Second
	// stderrDrain bounds how long an exited server's stderr is read for its
	// last lines: a grandchild that escaped the process group may hold the
	// pipe open forever.
	stderrDrain = time.Second
)

// A process is a running stdio server: a child process whose stdin and
// stdout carry newline-delimited JSON-RPC and whose stderr is logged, with
// its last lines kept for messages.
//
// The child leads its own process group, so that stopping it also stops
// whatever it started (npx and uvx launchers run the real server as a
// grandchild). When the child exits, what is left of its group is killed.
type process struct {
	name   string // the server's name, for messages
	cmd    *exec.Cmd
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	tail   *tailWriter
	lines  *messageLines // stdout, without lines that are not JSON-RPC

	exited  chan struct{} // closed once the child has been reaped
	waitErr error         // the child's exit status; read after exited is closed

	closeOnce sync.Once
	closeErr  error
}

// startProcess starts the stdio server cfg describes, in dir, with the
// environment of this process minus hideEnv plus cfg.Env.
func startProcess(cfg ServerConfig, dir string, hideEnv []string, log *slog.Logger) (*process, error) {
	name, args, err := resolveCommand(cfg.Command, cfg.Args)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = childEnv(os.Environ(), hideEnv, cfg.Env)
	prepareGroup(cmd)

	// Pipes are made by hand rather than with cmd.StdoutPipe and friends so
	// that reaping the child (cmd.Wait) never waits on, or closes, a pipe
	// the JSON-RPC connection is still reading.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating pipes: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("creating pipes: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("creating pipes: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("starting %s: %w", cfg.Command, err)
	}
	// The child has its copies; ours would keep the pipes from reporting
	// end of file when it exits.
	closeAll(inR, outW, errW)

	p := &process{
		name:   cfg.Name,
		cmd:    cmd,
		stdin:  inW,
		stdout: outR,
		tail:   newTailWriter(log),
		exited: make(chan struct{}),
	}
	p.lines = newMessageLines(outR, log)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		p.tail.readFrom(errR)
		errR.Close()
	}()
	go func() {
		err := cmd.Wait()
		// Whatever the server started goes with it (and stops holding
		// its stderr open).
		killGroup(cmd.Process)
		// Let the stderr and stdout readers catch the last lines before
		// the exit is announced, so messages about the exit can quote
		// them.
		drain := time.After(stderrDrain)
		for _, done := range []chan struct{}{stderrDone, p.lines.done} {
			select {
			case <-done:
			case <-drain:
			}
		}
		p.waitErr = err
		close(p.exited)
	}()
	return p, nil
}

// resolveCommand finds the program to run. A command line written whole
// into `command` with no `args` ("npx -y some-server") is split at spaces
// when no program has that exact name. A command with a path separator is
// left to the system, relative to the server's working directory.
func resolveCommand(command string, args []string) (string, []string, error) {
	if strings.TrimSpace(command) == "" {
		return "", nil, errors.New("no command configured (set command in its [[plugins]] entry)")
	}
	if strings.ContainsAny(command, `/\`) {
		return command, args, nil
	}
	if _, err := exec.LookPath(command); err == nil {
		return command, args, nil
	}
	if fields := strings.Fields(command); len(fields) > 1 && len(args) == 0 {
		if _, err := exec.LookPath(fields[0]); err == nil {
			return fields[0], fields[1:], nil
		}
	}
	return "", nil, fmt.Errorf("command %q not found in PATH", command)
}

// childEnv returns base without the variables named in hide, with extra
// added (extra wins over base, and may set a hidden variable explicitly).
func childEnv(base, hide []string, extra map[string]string) []string {
	hidden := make(map[string]bool, len(hide))
	for _, h := range hide {
		hidden[h] = true
	}
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if hidden[k] {
			continue
		}
		if _, ok := extra[k]; ok {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// Read reads the child's stdout, the JSON-RPC messages only.
func (p *process) Read(b []byte) (int, error) { return p.lines.Read(b) }

// notJSONRPC returns the first line the child wrote to stdout that was
// not a JSON-RPC message (a banner, a log line), or "".
func (p *process) notJSONRPC() string { return p.lines.firstJunk() }

// messageLines passes on the lines of newline-delimited JSON-RPC and drops
// any other line, logging it. Some servers print a banner or log lines to
// stdout; other MCP clients skip them, so a server that works elsewhere
// works here, and the first such line is kept to explain a failure.
//
// A goroutine reads stdout as it comes, whether or not the connection
// reads messages, so that a line printed just before the server exits is
// seen when the exit is reported.
type messageLines struct {
	pr   *io.PipeReader // the messages
	log  *slog.Logger
	done chan struct{} // closed when stdout has ended

	mu   sync.Mutex // guards junk
	junk string
}

func newMessageLines(stdout io.Reader, log *slog.Logger) *messageLines {
	pr, pw := io.Pipe()
	m := &messageLines{pr: pr, log: log, done: make(chan struct{})}
	go m.pump(bufio.NewReader(stdout), pw)
	return m
}

// pump reads stdout to its end. Once the connection stops reading
// messages (Close), the rest is read and dropped, so the server never
// blocks on a full pipe.
func (m *messageLines) pump(r *bufio.Reader, pw *io.PipeWriter) {
	defer close(m.done)
	open := true
	for {
		line, err := r.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
				if open {
					_, werr := pw.Write(line)
					open = werr == nil
				}
			} else {
				m.skip(trimmed)
			}
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}

func (m *messageLines) Read(b []byte) (int, error) { return m.pr.Read(b) }

// Close stops passing messages on.
func (m *messageLines) Close() error { return m.pr.Close() }

// skip logs a line that is not a message and keeps the first.
func (m *messageLines) skip(line []byte) {
	text := string(line)
	if len(text) > maxLineLen {
		text = text[:maxLineLen] + "…"
	}
	m.log.Debug("MCP server wrote a line that is not JSON-RPC to stdout; skipped", "line", text)
	m.mu.Lock()
	if m.junk == "" {
		m.junk = text
	}
	m.mu.Unlock()
}

func (m *messageLines) firstJunk() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.junk
}

// Write writes to the child's stdin.
func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close stops the child as the MCP specification describes: stdin is
// closed, then the process group gets SIGTERM, then SIGKILL, each after a
// grace period. It returns once the child has been reaped (or, for a child
// that survives SIGKILL, gives up).
func (p *process) Close() error {
	p.closeOnce.Do(func() {
		p.stdin.Close()
		p.closeErr = p.stop()
		// Closing our end also unblocks a reader if an escaped grandchild
		// still holds the other end.
		p.lines.Close()
		p.stdout.Close()
	})
	return p.closeErr
}

func (p *process) stop() error {
	select {
	case <-p.exited:
		return nil
	case <-time.After(stdinGrace):
	}
	terminateGroup(p.cmd.Process)
	select {
	case <-p.exited:
		return nil
	case <-time.After(termGrace):
	}
	killGroup(p.cmd.Process)
	select {
	case <-p.exited:
		return nil
	case <-time.After(termGrace):
		return fmt.Errorf("MCP server %q (pid %d) did not exit after SIGKILL", p.name, p.cmd.Process.Pid)
	}
}

// kill ends the child and its group at once, without the grace periods:
// for a server that did not finish starting.
func (p *process) kill() {
	p.stdin.Close()
	killGroup(p.cmd.Process)
}

// hasExited reports whether the child has been reaped.
func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitReason describes how the child ended, with the last lines of its
// stderr: "exited with status 3; stderr: boom". It must be called only
// after exited is closed.
func (p *process) exitReason() string {
	var why string
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		why = "exited with status 0"
	case errors.As(p.waitErr, &ee) && ee.Exited():
		why = fmt.Sprintf("exited with status %d", ee.ExitCode())
	case errors.As(p.waitErr, &ee):
		why = "was ended by " + ee.String() // "signal: killed"
	default:
		why = "ended: " + p.waitErr.Error()
	}
	if t := p.tail.String(); t != "" {
		why += "; stderr: " + t
	}
	if junk := p.notJSONRPC(); junk != "" {
		why += fmt.Sprintf("; it also wrote %q to stdout, which is not JSON-RPC (an MCP stdio server must keep logs and banners on stderr)", junk)
	}
	return why
}

// A tailWriter logs a server's stderr line by line at debug level and
// keeps the last few lines for messages.
type tailWriter struct {
	log *slog.Logger

	mu    sync.Mutex // guards lines
	lines []string
}

const (
	tailLines   = 5
	maxLineLen  = 2048
	tailMaxSize = 600
)

func newTailWriter(log *slog.Logger) *tailWriter { return &tailWriter{log: log} }

// readFrom consumes r until it ends. Overlong lines are cut rather than
// buffered, so a server writing megabytes without a newline costs nothing.
func (t *tailWriter) readFrom(r io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line) < maxLineLen {
			line = append(line, chunk[:min(len(chunk), maxLineLen-len(line))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 {
			t.add(string(bytes.TrimRight(line, "\r\n")))
		}
		line = line[:0]
		if err != nil {
			return
		}
	}
}

func (t *tailWriter) add(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	t.log.Debug("MCP server stderr", "line", line)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

// String returns the kept lines on one line, separated by " | " and cut
// to a length that fits in a message.
func (t *tailWriter) String() string {
	t.mu.Lock()
	s := strings.Join(t.lines, " | ")
	t.mu.Unlock()
	if len(s) > tailMaxSize {
		s = "…" + s[len(s)-tailMaxSize:]
	}
	return s
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}
