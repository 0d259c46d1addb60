package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent/agenttest"
	"github.com/reasonix/reasonix/agent/provider/scripted"
)

// The caps: what a hostile model can make Reasonix hold, and spend, is
// bounded. Each test drives the real binary with a model that asks for
// too much — a command printing 200 MB, a response of 1,000 calls, an
// argument of 40 MB, three tasks at once that together would pass the
// session's token budget — and checks what Reasonix held to.

// capsRun is one `reasonix run` of an attack on the caps.
type capsRun struct {
	exit   int
	stderr string
	took   time.Duration
	maxRSS int64 // KiB
}

// runCaps runs `reasonix run` on h's stage with cfg and flags, giving
// each line of stderr to line as it comes when line is set.
func (h *hostile) runCaps(t *testing.T, cfg string, flags []string, line func(string)) capsRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	args := append([]string{"run", "--config", cfg}, flags...)
	cmd := h.command(ctx, append(args, "do as you are told")...)
	cmd.Stdout = io.Discard
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sc := bufio.NewScanner(errPipe)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if line != nil {
			line(sc.Text())
		}
	}
	err = cmd.Wait()
	r := capsRun{stderr: stderr.String(), took: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("reasonix run: %v\nstderr:\n%s", err, r.stderr)
	}
	return r
}

// maxSavedOutput is the most saved of one call's output: its first 16
// MiB and its last 4 MiB (docs/SPEC.md, "One cap on results"), and the
// line between them.
const maxSavedOutput = 20<<20 + 1<<10

// TestAttackSavedOutputCap: a command prints 200 MB. What is saved of it
// beside the session stays within the cap, as root and as another user,
// and the model is told what was left out.
func TestAttackSavedOutputCap(t *testing.T) {
	asRootAndUser(t, func(t *testing.T, asUser bool) {
		h := newHostile(t)
		if asUser {
			h.asNobody(t)
		}
		h.attack(t, "", []string{"--approval", "auto"}, []attackCall{
			{tool: "bash", args: map[string]any{"command": `head -c 200000000 /dev/zero | tr '\0' x`}, want: "bytes omitted"},
		})
		var saved int64
		err := filepath.WalkDir(h.rhome, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(p, ".outputs") {
				return err
			}
			fi, err := d.Info()
			if err == nil {
				saved = max(saved, fi.Size())
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if saved == 0 || saved > maxSavedOutput {
			t.Errorf("%d bytes of the command's output saved under REASONIX_HOME, want some and at most %d", saved, maxSavedOutput)
		}
	})
}

// TestAttackCallsPerResponse: one response asks for 1,000 calls. At most
// 64 run; every call still gets a result, the others one that says why
// they did not run.
func TestAttackCallsPerResponse(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	const n = 1000
	var lines, script strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
		fmt.Fprintf(&script, "call read_file {\"path\": \"lines.txt\", \"offset\": %d, \"limit\": 1}\n", i)
	}
	mustWrite(t, filepath.Join(h.work, "lines.txt"), lines.String())
	script.WriteString("---\ntext done\n")
	srv, url := startServer(t, script.String())
	r := h.runCaps(t, h.config(t, url, ""), nil, nil)
	if r.exit != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	ran, refused := 0, 0
	for _, m := range reqs[1].Messages {
		switch {
		case m.Role != "tool":
		case strings.Contains(m.Content, "\tline "):
			ran++
		case strings.Contains(m.Content, "at most 64 run per response"):
			refused++
		}
	}
	if ran > 64 || ran+refused != n {
		t.Errorf("%d calls ran and %d were refused of %d", ran, refused, n)
	}
}

// argumentServer is a model endpoint whose first answer is a write_file
// call with size bytes of arguments, streamed in pieces of 1 to 12 bytes
// as a model streams them; its next answer is "done". It records how
// much of the arguments it could send before the client hung up, and the
// bodies of the requests after the first.
type argumentServer struct {
	size  int
	sent  chan int
	later chan string
}

func (s *argumentServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	if strings.Contains(string(body), `"role":"tool"`) {
		s.later <- string(body)
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
		return
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	event := func(v string) error {
		_, err := fmt.Fprintf(bw, "data: %s\n\n", v)
		return err
	}
	event(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_big","type":"function","function":{"name":"write_file","arguments":""}}]}}]}`)
	const head, tail = `{"path":"big.txt","content":"`, `"}`
	args := head + strings.Repeat("x", s.size-len(head)-len(tail)) + tail
	sent := 0
	defer func() { s.sent <- sent }()
	for n := 1; sent < len(args); n = n%12 + 1 {
		piece, _ := json.Marshal(args[sent:min(sent+n, len(args))])
		if event(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}}]}`, piece)) != nil {
			return // the client hung up
		}
		sent = min(sent+n, len(args))
	}
	event(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	event(`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":10000000}}`)
	event("[DONE]")
	bw.Flush()
}

// TestAttackArgumentSize: the model streams a write_file call with 40 MB
// of arguments. Reasonix stops reading at the cap, so it neither holds
// nor waits for the rest; the call is refused with a note to the model,
// and nothing is written.
func TestAttackArgumentSize(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	const size = 40_000_000
	as := &argumentServer{size: size, sent: make(chan int, 1), later: make(chan string, 4)}
	srv := httptest.NewServer(as)
	t.Cleanup(srv.Close)
	r := h.runCaps(t, h.config(t, srv.URL, ""), []string{"--approval", "auto"}, nil)
	t.Logf("a %d-byte argument: the run took %v, at most %d MiB resident", size, r.took.Round(time.Millisecond), r.maxRSS>>10)
	if r.exit != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", r.exit, r.stderr)
	}
	// What the connection buffers aside, the server could send no more
	// than Reasonix read.
	if sent := <-as.sent; sent > size/2 {
		t.Errorf("the server sent %d bytes of the arguments: Reasonix read on past the cap", sent)
	}
	var next string
	select {
	case next = <-as.later:
	default:
		t.Fatal("no request after the call")
	}
	if !strings.Contains(next, "Not run: Reasonix stopped reading this response at this write_file call") || len(next) > 1<<20 {
		t.Errorf("the call's result, in a request of %d bytes: %.400s", len(next), next[strings.LastIndex(next, `"role":"tool"`):])
	}
	if _, err := os.Stat(filepath.Join(h.work, "big.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("big.txt was written (%v)", err)
	}
}

// TestAttackParallelTaskBudget: the model starts three tasks at once
// under a token budget that holds two of their requests, not three. The
// gate holds the children's requests until either all three are in
// flight or one waits for the others, so they go together however fast
// the server answers; what the session spends never passes its budget,
// and the run ends with exit 2.
func TestAttackParallelTaskBudget(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	const maxTokens, answer = 1000, 990
	var b strings.Builder
	b.WriteString("match do as you are told\n")
	for i := range 3 {
		fmt.Fprintf(&b, "call task {\"description\": \"d%d\", \"prompt\": \"gamma: look at part %d\"}\n", i, i)
	}
	// "abcd " is two tokens to the scripted server.
	b.WriteString("---\n" + strings.Repeat("match gamma:\ntext Found it. "+strings.Repeat("abcd ", answer/2)+"\n---\n", 3))
	b.WriteString("match do as you are told\ntext All done.\n")
	script := b.String()
	agentCfg := fmt.Sprintf("[agent]\nmax_tokens = %d\n", maxTokens)

	// A run without a budget, to learn what the requests cost.
	srv, url := startServer(t, script)
	if r := h.runCaps(t, h.config(t, url, agentCfg), nil, nil); r.exit != exitOK || len(srv.Requests()) != 5 {
		t.Fatalf("without a budget: exit %d, %d requests\nstderr:\n%s", r.exit, len(srv.Requests()), r.stderr)
	}
	first, child := *srv.Requests()[0].Usage, *srv.Requests()[1].Usage
	// Room for the parent's first request and two children's
	// reservations, not three; after two children's answers, not even
	// for the third's prompt.
	budget := first.PromptTokens + first.CompletionTokens + 2*(child.PromptTokens+maxTokens) + child.PromptTokens/2

	srv, _ = startServer(t, script)
	gate := agenttest.NewGate(srv, func(body string) bool { return strings.Contains(body, `"content":"gamma:`) })
	url = gate.Start(t)
	ran := make(chan struct{})
	go func() {
		for {
			select {
			case n := <-gate.Arrived():
				if n == 3 {
					gate.Open()
				}
			case <-ran:
				return
			}
		}
	}()
	defer close(ran)
	r := h.runCaps(t, h.config(t, url, agentCfg+fmt.Sprintf("token_budget = %d\n", budget)), nil, func(line string) {
		if strings.Contains(line, "waits for requests in flight") {
			gate.Open()
		}
	})
	if r.exit != exitBudget {
		t.Errorf("exit %d, want %d\nstderr:\n%s", r.exit, exitBudget, r.stderr)
	}
	if n := gate.Held(); n > 2 {
		t.Errorf("%d children's requests in flight at once, want at most 2", n)
	}
	if spent := spentBy(srv.Requests()); spent > budget {
		t.Errorf("%d tokens spent with a budget of %d", spent, budget)
	}
}

// spentBy sums the tokens the answered requests used.
func spentBy(reqs []scripted.Request) int {
	spent := 0
	for _, r := range reqs {
		if r.Usage != nil {
			spent += r.Usage.PromptTokens + r.Usage.CompletionTokens
		}
	}
	return spent
}
