package graph

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/reasonix/reasonix/lsp/wire"
	"github.com/reasonix/reasonix/tools"
)

// shutdownGrace is how long a server gets to answer shutdown and exit by
// itself before it is killed.
const shutdownGrace = 2 * time.Second

// A server is one running language server process for one workspace root,
// and Reasonix's client connection to it. It mirrors documents to the
// server (sync.go) and collects the diagnostics it publishes
// (diagnostics.go). A server that dies stays dead; its supervisor starts
// a new one.
type server struct {
	name    string
	cfg     ServerSpec
	root    string
	log     *slog.Logger
	hideEnv []string // variables the process does not inherit

	cmd     *exec.Cmd
	started time.Time
	pipes   *pipes
	conn    jsonrpc2.Conn
	exited  chan struct{} // closed when the process has exited and the connection is torn down
	// closing is set once Reasonix itself stops the server, so its exit is
	// not reported as a crash.
	closing    atomic.Bool
	stderr     *tail
	stderrDone chan struct{} // closed when stderr has been read to its end

	enc  wire.Encoding // how the server counts characters
	caps capabilities

	// commands takes the edits a code action's command sends back.
	commands commandCapture

	// warm is set once the server has answered a request that needed its
	// workspace loaded.
	warm atomic.Bool
	// symbolsSeen is set once workspace/symbol has found something: an
	// empty answer before may come from a server still indexing.
	symbolsSeen atomic.Bool
	// pullRegistered is set when the server registers
	// textDocument/diagnostic dynamically.
	pullRegistered atomic.Bool

	syncMu sync.Mutex // serializes telling the server about documents; guards docs, pending and clock
	docs   map[string]*document
	// pending are files changed on disk that the server has not been told
	// about yet, with whether each still exists.
	pending map[string]bool
	clock   uint64 // counts syncs, to find documents not used for a while
	// disk is the picture of the files the server cares about, taken at
	// start and after each rescan; stale asks the next sync to rescan.
	disk  map[string]stamp
	stale atomic.Bool

	// diagMu guards diags, diagSeq and diagWake. It may be taken while
	// syncMu is held, never the other way round.
	diagMu   sync.Mutex
	diags    map[string]*published
	diagSeq  uint64        // counts publishDiagnostics notifications
	diagWake chan struct{} // closed and replaced on every publication
}

// capabilities are the parts of the server's capabilities the graph uses.
type capabilities struct {
	pullDiagnostics bool // textDocument/diagnostic
	prepareRename   bool // textDocument/prepareRename
	syncNone        bool // the server takes no document content
	nav             navCaps
	resolveActions  bool // codeAction/resolve
	formatting      bool // textDocument/formatting
	rangeFormatting bool // textDocument/rangeFormatting
}

// startServer starts the server cfg describes for root and initializes it.
// ctx bounds only the start; the process lives until shutdown or a crash.
func startServer(ctx context.Context, cfg ServerSpec, root string, hideEnv []string, log *slog.Logger) (*server, error) {
	prog, err := lookCommand(cfg)
	if err != nil {
		return nil, err
	}
	if filepath.Base(cfg.Command[0]) == "typescript-language-server" {
		if cfg.InitializationOptions, err = pinTypeScript(prog, cfg.InitializationOptions); err != nil {
			return nil, fmt.Errorf("starting %s: %w", cfg.Name, err)
		}
	}
	s := &server{
		name:       cfg.Name,
		cfg:        cfg,
		root:       root,
		log:        log.With("server", cfg.Name, "root", root),
		exited:     make(chan struct{}),
		stderr:     &tail{max: 20},
		hideEnv:    hideEnv,
		stderrDone: make(chan struct{}),
		enc:        wire.UTF16,
		docs:       map[string]*document{},
		pending:    map[string]bool{},
		diags:      map[string]*published{},
		diagWake:   make(chan struct{}),
	}
	// The picture is taken before the server reads the disk, so nothing
	// changed during its start goes unseen.
	s.disk = scanDisk(root, cfg)
	if err := s.spawn(prog); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cfg.Name, err)
	}
	if err := s.initialize(ctx); err != nil {
		s.kill()
		<-s.exited
		select { // for the reason it gave, if it was quick to die
		case <-s.stderrDone:
		case <-time.After(time.Second):
		}
		if tail := s.stderr.String(); tail != "" {
			err = fmt.Errorf("%w; its stderr ends with:\n%s", err, tail)
		}
		return nil, fmt.Errorf("initializing %s: %w", cfg.Name, err)
	}
	s.log.Info("language server started", "pid", s.cmd.Process.Pid, "encoding", s.enc, "pull_diagnostics", s.caps.pullDiagnostics)
	return s, nil
}

// spawn starts the process and the connection over its stdin and stdout.
func (s *server) spawn(prog string) error {
	cmd := exec.Command(prog, s.cfg.Command[1:]...)
	cmd.Dir = s.root
	cmd.Env = tools.WithoutVars(os.Environ(), s.hideEnv)
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return err
	}
	// The process gets its own ends as plain files, so Wait does not close
	// ours before everything the server wrote has been read.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	newGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return err
	}
	s.cmd = cmd
	s.started = time.Now()
	s.pipes = &pipes{r: outR, w: inW}
	go s.logStderr(errR)

	s.conn = jsonrpc2.NewConn(wire.NewStream(s.pipes, s.pipes, s.pipes, func(format string, args ...any) {
		s.log.Warn(fmt.Sprintf(format, args...))
	}), jsonrpc2.WithCodec(wire.Codec{}))
	// The handler answers at once and never calls back, so it can run on
	// the read loop, which also keeps publications in the order sent.
	s.conn.Go(context.Background(), s.handle)

	go func() {
		// A server that closed its end of the connection is no use, even
		// if its process lingers.
		<-s.conn.Done()
		if !s.closing.Load() {
			killGroup(cmd.Process)
		}
	}()
	go func() {
		err := cmd.Wait()
		// Whatever the server started (tsserver, type checkers) goes with it.
		killGroup(cmd.Process)
		s.pipes.Close() // unblocks the read loop, which fails calls in flight
		<-s.conn.Done()
		if !s.closing.Load() {
			s.log.Warn("language server exited unexpectedly", "err", err, "stderr", s.stderr.String())
		}
		close(s.exited)
	}()
	return nil
}

// alive reports whether the process is still running.
func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

func (s *server) kill() {
	s.closing.Store(true)
	killGroup(s.cmd.Process)
}

// shutdown asks the server to exit as the protocol says (shutdown, then
// exit) and kills it if it has not within the grace period.
func (s *server) shutdown() {
	if !s.closing.CompareAndSwap(false, true) {
		<-s.exited
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if _, err := s.conn.Call(ctx, "shutdown", nil, nil); err == nil {
		s.conn.Notify(ctx, "exit", nil)
		// Nothing more will be written; the end of its input tells a
		// server that waits for it (gopls) that the client is gone.
		s.pipes.closeInput()
	}
	select {
	case <-s.exited:
		return
	case <-ctx.Done():
	}
	s.log.Debug("language server did not exit in time; killing it")
	killGroup(s.cmd.Process)
	<-s.exited
}

// call sends a request and waits for its answer. When ctx ends first, the
// server is told to stop working on it.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	id, err := s.conn.Call(ctx, method, params, result)
	if err != nil && ctx.Err() != nil && id.IsValid() {
		n, _ := id.Number()
		nctx, cancel := context.WithTimeout(context.Background(), time.Second)
		s.conn.Notify(nctx, "$/cancelRequest", map[string]any{"id": n})
		cancel()
		return ctx.Err()
	}
	var rpc *jsonrpc2.Error
	if errors.As(err, &rpc) {
		return &jsonrpc2.Error{Code: rpc.Code, Message: trimStack(rpc.Message), Data: rpc.Data}
	}
	if err != nil && s.dying() {
		return &crashedError{server: s.name, err: err}
	}
	return err
}

// dying reports whether the connection has failed: the call that just
// failed without an answer may have lost the race with the connection's
// teardown, so this waits a moment for it.
func (s *server) dying() bool {
	select {
	case <-s.conn.Done():
		return true
	case <-s.exited:
		return true
	case <-time.After(250 * time.Millisecond):
		return false
	}
}

// trimStack shortens an error message from a server to what a reader
// needs: Node servers append a JavaScript stack trace.
func trimStack(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "at ") {
			lines = lines[:i]
			break
		}
	}
	if n := len(lines); n > 1 && strings.HasPrefix(lines[n-1], "Error: ") {
		lines = lines[:n-1] // the stack's own repetition of the message
	}
	if len(lines) > 6 {
		lines = append(lines[:6], "…")
	}
	return strings.Join(lines, "\n")
}

// notify sends a notification.
func (s *server) notify(ctx context.Context, method string, params any) error {
	err := s.conn.Notify(ctx, method, params)
	if err != nil && ctx.Err() == nil && s.dying() {
		return &crashedError{server: s.name, err: err}
	}
	return err
}

// errExited is the cause of a crashedError when the server died between
// requests.
var errExited = errors.New("the process exited")

// crashedError reports a request lost because the server died.
type crashedError struct {
	server string
	err    error
}

func (e *crashedError) Error() string {
	return fmt.Sprintf("language server %s exited: %v", e.server, e.err)
}
func (e *crashedError) Unwrap() error { return e.err }

// logStderr sends the server's stderr to the log, and keeps its last lines
// for a crash report.
func (s *server) logStderr(r io.ReadCloser) {
	defer close(s.stderrDone)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		s.stderr.add(line)
		s.log.Debug("language server stderr", "line", line)
	}
}

// pipes is the connection's side of the process's stdin and stdout.
type pipes struct {
	r      *os.File
	w      *os.File
	once   sync.Once
	inOnce sync.Once
	inErr  error // from closing w
}

func (p *pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipes) closeInput() {
	p.inOnce.Do(func() { p.inErr = p.w.Close() })
}

func (p *pipes) Close() error {
	var err error
	p.closeInput()
	p.once.Do(func() { err = errors.Join(p.inErr, p.r.Close()) })
	return err
}

// tail keeps the last lines written to it.
type tail struct {
	mu    sync.Mutex // guards lines
	lines []string
	max   int
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == t.max {
		t.lines = t.lines[1:]
	}
	t.lines = append(t.lines, line)
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
