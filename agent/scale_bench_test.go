package agent_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/tools/walk/walktest"
)

// scaleCommands is how many shell commands a measured turn runs.
const scaleCommands = 10

// scaleSizes are the repository sizes of BenchmarkShellScale, in files;
// REASONIX_BENCH_MAX_FILES leaves out those above it.
var scaleSizes = []int{1, 10_000, 100_000, 1_000_000}

// scaleRow is what one repository size measured.
type scaleRow struct {
	files          int
	build          time.Duration // creating the tree, for the record
	perCommand     time.Duration // mean of a turn's commands after the first
	first          time.Duration // the first command of the turn
	warmUp         time.Duration // the tracking's warm-up, from the agent's start
	firstEver      time.Duration // the agent's first command, once warm
	heapMB         float64       // Go heap in use at the turn's last command, after a collection
	modified       bool          // the change turn reported each of the three changes
	created        bool
	deleted        bool
	processStart   time.Duration // /bin/true through os/exec
	rgFiles        time.Duration // rg --files over the tree
	rgFilesSkipped bool
}

// BenchmarkShellScale measures what a shell command costs as the
// repository grows, on the path the agent takes: a scripted model asks
// for `echo` commands through the real bash tool, with the turn's shell
// watcher tracking what each command changes, kept for the agent's life
// as Build keeps it. For 1, 10k, 100k and 1M
// files (walktest.Build: a synthetic git repository with a .gitignore
// and ignored directories) it prints, per command, the mean time of a
// turn's commands after the first, the first command's time, the time
// the tracking's warm-up takes in the background from the agent's
// start, the agent's very first command once it is done (as when the
// model takes longer to answer the first prompt than the warm-up), the Go
// heap in use while the turn holds its tracking state, and whether a
// command that modifies, creates and deletes a file deep in the tree
// has all three reported as the turn's changes; beside them, a bare
// process start (/bin/true) and `rg --files` over the same tree. Times
// are absolute: nothing is subtracted.
//
//	go test ./agent -run '^$' -bench ShellScale -benchtime 1x -timeout 30m
//
// REASONIX_BENCH_MAX_FILES=100000 leaves out the sizes above 100,000.
func BenchmarkShellScale(b *testing.B) {
	maxFiles := scaleSizes[len(scaleSizes)-1]
	if v := os.Getenv("REASONIX_BENCH_MAX_FILES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("REASONIX_BENCH_MAX_FILES=%q: %v", v, err)
		}
		maxFiles = n
	}
	var rows []scaleRow
	for b.Loop() {
		rows = rows[:0]
		for _, n := range scaleSizes {
			if n > maxFiles {
				continue
			}
			rows = append(rows, measureScale(b, n))
		}
	}
	printScale(os.Stdout, rows)
}

// measureScale builds a repository of n files and measures it.
func measureScale(b *testing.B, n int) scaleRow {
	row := scaleRow{files: n}
	root := b.TempDir()
	start := time.Now()
	tree, err := walktest.Build(root, n)
	if err != nil {
		b.Fatal(err)
	}
	row.build = time.Since(start)
	deep := filepath.Join(root, filepath.FromSlash(tree.Deep))
	if err := os.WriteFile(filepath.Join(deep, "doomed.txt"), nil, 0o644); err != nil {
		b.Fatal(err)
	}

	// A first turn, then the measured one, then the change turn.
	var script strings.Builder
	for turn := range 2 {
		for i := range scaleCommands {
			fmt.Fprintf(&script, "call bash {\"command\": \"echo %d.%d\"}\n---\n", turn, i)
		}
		script.WriteString("text done\n---\n")
	}
	rel := path.Join(tree.Deep, tree.DeepFile)
	fmt.Fprintf(&script, "call bash {\"command\": \"echo more >> %s && echo new > %s/new.txt && rm %s/doomed.txt\"}\n---\ntext changed\n",
		rel, tree.Deep, tree.Deep)

	a, _ := newScriptedAgent(b, script.String())
	a.Env.Root = root
	// As Build's agent: tracking lives as long as the agent, and the
	// workspace is listed once, by the warm-up the agent starts.
	start = time.Now()
	agent.TrackShellsForLife(a, 0)
	defer a.Close()
	agent.WaitShellsWarm(a)
	row.warmUp = time.Since(start)
	times := &toolTimes{}
	a.Sink = times.observe
	s, err := a.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for turn := range 2 {
		times.reset(turn == 1)
		if _, err := a.Run(context.Background(), s, "run the commands"); err != nil {
			b.Fatal(err)
		}
		if turn == 0 {
			row.firstEver = times.first()
		}
	}
	row.first, row.perCommand, row.heapMB = times.summary(b)

	res, err := a.Run(context.Background(), s, "change the files")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range res.Changes {
		switch {
		case c.Path == rel && c.Status == agent.FileModified:
			row.modified = true
		case c.Path == tree.Deep+"/new.txt" && c.Status == agent.FileCreated:
			row.created = true
		case c.Path == tree.Deep+"/doomed.txt" && c.Status == agent.FileDeleted:
			row.deleted = true
		}
	}

	row.processStart = meanTime(b, scaleCommands, func() error { return exec.Command("/bin/true").Run() })
	if rg, err := exec.LookPath("rg"); err == nil {
		row.rgFiles = meanTime(b, 3, func() error {
			return exec.Command(rg, "--no-config", "--hidden", "--no-require-git", "--files", "-g", "!.git", root).Run()
		})
	} else {
		row.rgFilesSkipped = true
	}
	return row
}

// toolTimes times the bash calls of a turn from the agent's events: from
// the call's start to its result, on the clock of the process.
type toolTimes struct {
	mu      sync.Mutex // guards the fields below
	measure bool
	started map[string]time.Time
	took    []time.Duration
	heap    uint64
}

func (t *toolTimes) reset(measure bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.measure = measure
	t.started = map[string]time.Time{}
	t.took = nil
}

func (t *toolTimes) observe(e agent.Event) {
	now := time.Now()
	if e.Tool == nil || e.Tool.Name != "bash" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e.Kind {
	case agent.EventToolStart:
		t.started[e.Tool.CallID] = now
	case agent.EventToolResult:
		t.took = append(t.took, now.Sub(t.started[e.Tool.CallID]))
		if t.measure && len(t.took) == scaleCommands {
			// The turn still holds what tracking keeps for it.
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			t.heap = m.HeapInuse
		}
	}
}

// first returns the time of the turn's first command.
func (t *toolTimes) first() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.took[0]
}

// summary returns the measured turn's first command, the mean of the
// others, and the heap in use in megabytes.
func (t *toolTimes) summary(b *testing.B) (first, rest time.Duration, heapMB float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.took) != scaleCommands {
		b.Fatalf("%d bash calls timed, want %d", len(t.took), scaleCommands)
	}
	var sum time.Duration
	for _, d := range t.took[1:] {
		sum += d
	}
	return t.took[0], sum / time.Duration(len(t.took)-1), float64(t.heap) / (1 << 20)
}

// meanTime runs f n times and returns its mean wall time.
func meanTime(b *testing.B, n int, f func() error) time.Duration {
	start := time.Now()
	for range n {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start) / time.Duration(n)
}

// printScale prints the rows as an aligned table.
func printScale(w *os.File, rows []scaleRow) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()*1000) }
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(w, "\nA shell command through the bash tool with shell tracking, by repository size (times in ms)\n")
	fmt.Fprintf(w, "%10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n",
		"files", "command", "first", "warm-up", "1st ever", "heap MB", "modified", "created", "deleted", "/bin/true", "rg --files", "built in")
	for _, r := range rows {
		rg := ms(r.rgFiles)
		if r.rgFilesSkipped {
			rg = "no rg"
		}
		fmt.Fprintf(w, "%10d %10s %10s %10s %10s %10.1f %10s %10s %10s %10s %10s %10s\n",
			r.files, ms(r.perCommand), ms(r.first), ms(r.warmUp), ms(r.firstEver), r.heapMB, yes(r.modified), yes(r.created), yes(r.deleted),
			ms(r.processStart), rg, r.build.Round(time.Millisecond*100))
	}
	fmt.Fprintln(w)
}
