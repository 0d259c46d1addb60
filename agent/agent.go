// Package agent runs the coding agent: a Session holds the conversation,
// and Agent.Run drives one turn of it — ask the model, run the tools it
// calls, feed the results back, repeat — emitting events as it goes.
//
// The loop is cache-first. A session's prompt is an immutable prefix (the
// system message and the tool schemas, fixed when the session starts) and
// then an append-only log of messages. Nothing is reordered, rewritten or
// timestamped, so every request extends the previous one byte for byte and
// the provider's prefix cache serves almost all of it.
package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
	"github.com/reasonix/reasonix/agent/store"
	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/hooks"
	"github.com/reasonix/reasonix/tools/mcp"
	"github.com/reasonix/reasonix/tools/permission"
)

// Agent is the configured loop: which model, which tools, which limits.
// One Agent serves any number of sessions, concurrently.
type Agent struct {
	Provider provider.Provider
	// Model is the model name sent in requests; ModelRef is its
	// provider/model form for display and session files.
	Model    string
	ModelRef string
	// Price is the model's price; nil when unknown.
	Price *config.Price

	Tools *tools.Registry
	Env   *tools.Env
	// Disk is the local disk confined to the write roots, for front ends
	// that write on the agent's behalf (the editor bridge).
	Disk tools.DiskFS
	Gate permission.Gate
	// Plans approves plans made in plan mode; nil when no one can.
	Plans permission.PlanApprover

	// MaxSteps bounds the model requests of one turn; 0 means no limit.
	MaxSteps int
	// TokenBudget bounds a session's total tokens; 0 means no budget.
	TokenBudget int
	// Escalation is the stronger model of [agent] escalation_model; nil
	// when none is configured (escalate.go).
	Escalation *Escalation
	// CostBudget bounds a session's cost in USD; 0 means no budget. It
	// applies only when the model has a Price.
	CostBudget float64
	// TaskMaxSteps bounds the model requests of a sub-task (task.go); 0
	// means MaxSteps. TaskTokenBudget bounds a sub-task's tokens; 0 means
	// no budget.
	TaskMaxSteps    int
	TaskTokenBudget int
	// Planner is the agent the planner runs on ([agent] planner_model):
	// before each turn it plans in a session of its own, and the plan
	// joins the turn's user message (planner.go). Nil means no planner.
	// PlannerMaxSteps bounds its model requests; 0 means MaxSteps.
	Planner         *Agent
	PlannerMaxSteps int
	// Subagent is the agent task helpers run on ([agent]
	// subagent_model) unless a custom agent names its model; nil means
	// the session's.
	Subagent *Agent
	// NoRepair turns the tool-call repair passes off (repair.go).
	NoRepair bool
	// ParallelMax bounds how many read-only calls run at once.
	ParallelMax int
	Temperature *float64
	MaxTokens   int
	// ReasoningEffort is [agent] reasoning_effort: the effort a
	// session's requests ask for until /effort changes it; "" asks none.
	ReasoningEffort string

	// ContextWindow is the model's context window in tokens; 0 turns
	// automatic compaction off. CompactRatio is the share of it at which
	// a session is compacted (0 means 0.8). Summarizer writes the
	// summaries; nil means the session's own model.
	ContextWindow int
	CompactRatio  float64
	Summarizer    *Summarizer

	// Sink receives every event; nil discards them. It may be called from
	// several goroutines, but never concurrently for the same session.
	Sink func(Event)
	// Store persists sessions; nil keeps them in memory only.
	Store *Store

	// SystemPrompt is the base prompt for new sessions; empty means the
	// built-in one.
	SystemPrompt string

	// VerifyAfterEdit appends a changed file's diagnostics (from
	// Env.Graph) to the result of the tool that changed it.
	VerifyAfterEdit bool
	ownsGraph       bool // Close closes Env.Graph
	// CheckEdits checks a turn's edits with the project graph before the
	// turn ends, and gives new errors to the model for one repair round
	// (check.go). CheckTimeout bounds each check (0 means
	// DefaultCheckTimeout); CheckRepairSteps bounds the round's model
	// requests (0 means DefaultCheckRepairSteps).
	CheckEdits       bool
	CheckTimeout     time.Duration
	CheckRepairSteps int
	// TestEdits runs the Go and Python tests that reach a turn's changes
	// on their text before the turn ends, and gives failures to the model
	// for a repair round (check_tests.go); TestTimeout bounds each
	// runner's run (0 means gotest.DefaultTimeout).
	TestEdits   bool
	TestTimeout time.Duration

	// Plugins are the MCP servers; nil when none is configured.
	Plugins     *mcp.Manager
	ownsPlugins bool // Close closes Plugins
	ownsProcs   bool // Close closes Env.Procs, ending what commands left running
	ownsJobs    bool // Close stops Env.Jobs, the background jobs of its shell
	ownsJail    bool // Close closes Env.Jail, removing its private caches
	ownsShells  bool // Close closes shells
	// shells tracks the files shell commands change, for the agent's
	// life; nil makes each turn track them for itself.
	shells *shellTracking

	// Secrets are values that must not reach the model, the session
	// files or the events: they are replaced wherever they appear.
	Secrets []Secret

	// Hooks runs the user's hooks (hooks.go); nil when none is in force.
	Hooks *hooks.Runner

	// CommandDirs are the directories of custom slash commands, highest
	// precedence first (CommandDirs).
	CommandDirs []CommandDir
	// AgentDirs are the directories of custom agents, highest
	// precedence first (AgentDirs).
	AgentDirs []CommandDir
	// config resolves the model references of /model and of commands
	// that name a model; models holds the agents made for them.
	config *config.Config
	models *models
}

// Errors that end a turn without a failure of the system.
var (
	ErrMaxSteps       = errors.New("the turn reached max_steps")
	ErrBudgetExceeded = errors.New("the session exceeded its budget")
	ErrBusy           = errors.New("the session is already running a turn")
)

// ParallelFromEnv reads REASONIX_PARALLEL_MAX: default 3, at most 16.
func ParallelFromEnv() int {
	n, err := strconv.Atoi(os.Getenv("REASONIX_PARALLEL_MAX"))
	switch {
	case err != nil || n < 1:
		return 3
	case n > 16:
		return 16
	}
	return n
}

// Session is one conversation.
type Session struct {
	ID      string
	Created time.Time

	// tools are the tools the session offers, fixed when it starts so the
	// cached prompt prefix holds: the agent's, and the MCP servers' as
	// they were then.
	tools *tools.Registry

	mu       sync.Mutex // guards the fields below
	messages []provider.Message
	// marks holds each message's turn and number, parallel to messages
	// (provider.Message stays what providers send); seq is the number
	// of the latest message. A rewind cuts the conversation by them
	// (rewind.go).
	marks []store.Mark
	seq   int
	// archived holds, for a session not stored, what its compactions
	// and rewinds dropped, with their marks: a stored session's archive
	// file holds them.
	archived      []provider.Message
	archivedMarks []store.Mark
	// checkpoints records what each turn changed (checkpoint.go).
	checkpoints *checkpointLog
	usage       provider.Usage
	cost        float64
	// helperTokens and helperCost are what the session's running
	// children (tasks, the planner) have spent and not yet been charged
	// with: the session's budget counts them as they are spent.
	helperTokens int
	helperCost   float64
	// heldTokens and heldCost are what the requests in flight against
	// the session's budget hold (budget.go), its children's included;
	// settled, when a request waits for some of that to be let go, is
	// closed when some is, and waited says a request has waited before.
	// estimated and estimatedCost are what the budget counts for
	// responses that reported no usage.
	heldTokens    int
	heldCost      float64
	settled       chan struct{}
	waited        bool
	estimated     int
	estimatedCost float64
	turns         int
	running       bool
	plan          bool
	file          *store.File
	// What the session knows of its prompt's size (see estimate): the
	// length of the history the last request sent and the prompt tokens
	// it counted, and the provider's tokens per byte.
	sentLen    int
	sentTokens int
	perByte    float64
	// lastPrompt is the prompt tokens the provider reported for the
	// session's last request, a stored session's included (/context).
	lastPrompt int
	// compactions counts the session's compactions; foldBlocked is the
	// length of a history found to hold nothing to fold.
	compactions int
	foldBlocked int
	// windows holds, by model reference, a context window smaller than
	// the configured one that the model's provider named when it refused
	// a request as too long.
	windows map[string]int
	// redact scrubs secrets from everything appended.
	redact *redactor
	// model is the model reference /model switched the session to.
	model string
	// effort is the reasoning effort /effort set for the session.
	effort string
	// nested holds the memory files of subdirectories attached so far.
	nested nestedMemory
	// todos is the todo list the model last wrote (todo.go).
	todos []Todo
	// steps records each model request attempt and tool call (steps.go);
	// nil when the session is not stored.
	steps *stepLog
	// up is, for a child's session, the session it spends from, and
	// upBy the agent whose budgets hold there.
	up   *Session
	upBy *Agent
	// hooksStarted is set once the session's SessionStart hooks ran in
	// this process (hooks.go).
	hooksStarted bool
}

// NewSession starts a session with a fresh system message built from the
// workspace and persists its header.
func (a *Agent) NewSession() (*Session, error) {
	now := time.Now()
	r := newRedactor(a.Secrets)
	s := &Session{ID: store.NewID(now), Created: now, redact: &r, tools: a.sessionTools()}
	system := a.systemMessage()
	s.messages = []provider.Message{{Role: provider.RoleSystem, Content: system}}
	s.marks, s.seq = []store.Mark{{Seq: 1}}, 1
	s.checkpoints = a.newCheckpointLog(s.ID)
	if a.Store != nil {
		f, err := a.Store.Create(Meta{
			ID: s.ID, Created: now, Root: a.Env.Root, Model: a.ModelRef,
			PrefixHash: PrefixHash(system, toolSchemas(s.tools)),
		})
		if err != nil {
			return nil, err
		}
		s.file = f
		s.steps = newStepLog(a.Store.StepsPath(s.ID))
		if err := f.AppendMarked(&s.messages[0], s.marks[0]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Adopt moves s, a session another agent of the same workspace started
// (one built before the editor's settings or the workspace's trust
// changed), to a: its next turn runs with a's permissions, model,
// hooks, budgets and tools. What the session holds stays: the
// conversation with the system message it started with (so the cached
// prefix holds when the tools are the same), /model, /effort, plan mode
// and the todo list. If the tools differ, the next request misses the
// prompt cache once, and a notice says so. The secrets of both agents
// stay redacted: a value that was a secret when the session wrote it is
// not let through later. s must not be running a turn.
func (a *Agent) Adopt(s *Session) error {
	reg := a.sessionTools()
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrBusy
	}
	changed := PrefixHash("", toolSchemas(s.tools)) != PrefixHash("", toolSchemas(reg))
	s.tools = reg
	var kept []Secret
	if s.redact != nil {
		kept = slices.Clone(s.redact.secrets)
	}
	r := newRedactor(append(kept, a.Secrets...))
	s.redact = &r
	s.mu.Unlock()
	if changed {
		a.emit(Event{Kind: EventNotice, SessionID: s.ID,
			Text: "the tool set changed with the settings; the next request will miss the prompt cache"})
	}
	return nil
}

// Resume reopens a stored session. Its stored system message is kept as
// is, so the cached prefix survives; if the tools changed since, the first
// request misses the cache once, and a notice says so.
func (a *Agent) Resume(idOrPrefix string) (*Session, error) {
	if a.Store == nil {
		return nil, errors.New("no session store")
	}
	id, err := a.Store.Resolve(idOrPrefix)
	if err != nil {
		return nil, err
	}
	l, err := a.Store.Load(id)
	if err != nil {
		return nil, err
	}
	if len(l.Messages) == 0 || l.Messages[0].Role != provider.RoleSystem {
		return nil, fmt.Errorf("session %s has no system message", id)
	}
	f, err := a.Store.Reopen(l.Meta)
	if err != nil {
		return nil, err
	}
	r := newRedactor(a.Secrets)
	msgs, marks := repairHistory(l.Messages, l.Marks)
	s := &Session{ID: id, Created: l.Meta.Created, messages: msgs, marks: marks,
		usage: l.Usage, cost: l.Cost, turns: l.Turns, file: f, redact: &r, tools: a.sessionTools(),
		perByte: l.TokensPerByte, lastPrompt: l.PromptTokens, compactions: l.Meta.Compactions, steps: newStepLog(a.Store.StepsPath(id)),
		checkpoints: a.newCheckpointLog(id)}
	for _, m := range marks {
		s.seq = max(s.seq, m.Seq)
	}
	// Turn numbers are never reused: a turn rewound, or one that ended
	// before the model answered, still counts.
	if hi, seq, err := s.checkpoints.highest(); err == nil {
		s.turns, s.seq = max(s.turns, hi), max(s.seq, seq)
	} else {
		a.emit(Event{Kind: EventNotice, SessionID: id, Text: err.Error()})
	}
	s.nested.resume(a.Env, s.messages)
	s.todos = lastTodos(s.messages)
	if l.Meta.Root != "" && l.Meta.Root != a.Env.Root {
		a.emit(Event{Kind: EventNotice, SessionID: id,
			Text: fmt.Sprintf("this session started in %s; its tools now work in %s", l.Meta.Root, a.Env.Root)})
	}
	if PrefixHash(l.Messages[0].Content, toolSchemas(s.tools)) != l.Meta.PrefixHash {
		a.emit(Event{Kind: EventNotice, SessionID: id,
			Text: "the tool set changed since this session started; the first request will miss the prompt cache"})
	}
	return s, nil
}

// Close releases what the agent holds beyond its sessions: the language
// servers of its project graph and its MCP servers, unless they belong to
// Options.Services.
func (a *Agent) Close() error {
	var err error
	if a.ownsGraph && a.Env != nil && a.Env.Graph != nil {
		err = a.Env.Graph.Close()
	}
	if a.ownsPlugins && a.Plugins != nil {
		err = cmp.Or(err, a.Plugins.Close())
	}
	if a.ownsJobs && a.Env != nil && a.Env.Jobs != nil {
		// The agent's background jobs end with it, also where the host
		// they run under is shared and lives on.
		a.Env.Jobs.StopAll()
	}
	if a.ownsProcs && a.Env != nil && a.Env.Procs != nil {
		err = cmp.Or(err, a.Env.Procs.Close())
		// The processes commands left running are gone now: undo what
		// they changed among the control files meanwhile.
		if _, notice := a.Env.Control.Settle(context.Background(), false, a.Env.Rel); notice != "" && a.Sink != nil {
			a.Sink(Event{Kind: EventNotice, Text: "bash: " + notice})
		}
	}
	if a.ownsShells && a.shells != nil {
		err = cmp.Or(err, a.shells.close())
	}
	if j, ok := a.Env.Jail.(io.Closer); a.ownsJail && ok {
		err = cmp.Or(err, j.Close())
	}
	return err
}

// Messages returns a copy of the conversation.
func (s *Session) Messages() []provider.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]provider.Message(nil), s.messages...)
}

// Usage returns the session's token totals and cost.
func (s *Session) Usage() (provider.Usage, float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage, s.cost
}

// Close releases the session file.
func (s *Session) Close() error {
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.steps.close(s.file.Removed())
	return err
}

// append adds messages to the log and persists them.
func (s *Session) append(msgs ...provider.Message) error {
	if s.redact != nil {
		for i := range msgs {
			msgs[i] = s.redact.message(msgs[i])
		}
	}
	s.mu.Lock()
	for len(s.marks) < len(s.messages) {
		s.marks = append(s.marks, store.Mark{}) // a session made without marks
	}
	s.messages = append(s.messages, msgs...)
	marks := make([]store.Mark, len(msgs))
	for i := range msgs {
		s.seq++
		marks[i] = store.Mark{Turn: s.turns, Seq: s.seq}
	}
	s.marks = append(s.marks, marks...)
	s.mu.Unlock()
	if s.file == nil {
		return nil
	}
	for i := range msgs {
		if err := s.file.AppendMarked(&msgs[i], marks[i]); err != nil {
			return err
		}
	}
	return nil
}

// repairHistory makes a loaded history valid to send: every tool call
// must have a result, or the provider rejects the request. A process killed
// between a call and its result leaves such a gap. marks are the
// messages' (parallel, or shorter for an old session); a result put in
// takes the mark of its call, whose turn it belongs to.
func repairHistory(msgs []provider.Message, marks []store.Mark) ([]provider.Message, []store.Mark) {
	var out []provider.Message
	var outMarks []store.Mark
	markOf := func(i int) store.Mark {
		if i < len(marks) {
			return marks[i]
		}
		return store.Mark{}
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		out, outMarks = append(out, m), append(outMarks, markOf(i))
		if m.Role != provider.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		have := map[string]bool{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == provider.RoleTool; j++ {
			have[msgs[j].ToolCallID] = true
			out, outMarks = append(out, msgs[j]), append(outMarks, markOf(j))
		}
		for _, tc := range m.ToolCalls {
			if !have[tc.ID] {
				out = append(out, provider.Message{Role: provider.RoleTool, ToolCallID: tc.ID, Name: tc.Name,
					Content: "Error: this call never completed (the previous run was interrupted)."})
				outMarks = append(outMarks, markOf(i))
			}
		}
		i = j - 1
	}
	return out, outMarks
}

func (a *Agent) emit(e Event) {
	if a.Sink != nil {
		a.Sink(e)
	}
}
