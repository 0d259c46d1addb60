package tools

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// JobKeepBytes bounds the output a background job keeps unread: past it
// the oldest unread bytes are let go, and counted, so a chatty server
// left unread does not grow Reasonix's memory.
const JobKeepBytes = 1 << 20

// Jobs are the background jobs of an agent's shell: commands the bash tool
// started with run_in_background, which run on while the conversation goes
// on. Each is a unit of the agent's ProcessHost, so it ends with the
// session as every unit does, or earlier by Stop. The zero value is ready.
type Jobs struct {
	mu    sync.Mutex      // guards next, jobs and order
	next  int             // the number of the last job started
	jobs  map[string]*Job // by ID
	order []string        // the IDs, in the order the jobs started
}

// A Job is one background command and the output it wrote that has not
// been read yet.
type Job struct {
	// ID names the job to bash_output and kill_shell ("bg1").
	ID      string
	Command string

	proc ShellProcess
	// exited is closed once the shell has ended; finished once, after
	// that, its output has been read to its end too (a process it left
	// behind may hold the output open longer).
	exited, finished chan struct{}

	mu      sync.Mutex // guards unread, dropped, ended, status and changed
	unread  []byte
	dropped int64 // unread bytes let go past JobKeepBytes
	ended   bool  // the shell has ended
	status  ExitStatus
	// changed is closed, and replaced, when output arrives or the job
	// ends; nil until someone asks for it.
	changed chan struct{}
}

// Add makes proc, started with its output going to out, a job, and reads
// out until it ends. The job's goroutines end when the unit does.
func (js *Jobs) Add(command string, proc ShellProcess, out io.ReadCloser) *Job {
	js.mu.Lock()
	js.next++
	j := &Job{ID: fmt.Sprintf("bg%d", js.next), Command: command, proc: proc,
		exited: make(chan struct{}), finished: make(chan struct{})}
	if js.jobs == nil {
		js.jobs = map[string]*Job{}
	}
	js.jobs[j.ID] = j
	js.order = append(js.order, j.ID)
	js.mu.Unlock()

	copied := make(chan struct{})
	go func() {
		defer close(copied)
		defer out.Close()
		// A read error ends the output as its end does.
		_, _ = io.Copy(jobWriter{j}, out)
	}()
	go func() {
		st := proc.Wait()
		j.mu.Lock()
		j.ended, j.status = true, st
		j.signal()
		j.mu.Unlock()
		close(j.exited)
		<-copied
		close(j.finished)
	}()
	return j
}

// Get returns the job named id, or nil.
func (js *Jobs) Get(id string) *Job {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.jobs[id]
}

// IDs lists the jobs' IDs in the order they started.
func (js *Jobs) IDs() []string {
	js.mu.Lock()
	defer js.mu.Unlock()
	return slices.Clone(js.order)
}

// StopAll stops every job still running and waits for them to end.
func (js *Jobs) StopAll() {
	js.mu.Lock()
	jobs := make([]*Job, 0, len(js.jobs))
	for _, j := range js.jobs {
		jobs = append(jobs, j)
	}
	js.mu.Unlock()
	for _, j := range jobs {
		j.Stop()
	}
}

// Close stops every job still running, as StopAll does; it makes Jobs a
// service a workspace's agents share.
func (js *Jobs) Close() error {
	js.StopAll()
	return nil
}

// Stop ends the job's shell and every process it started, politely
// first, and waits for the shell to end.
func (j *Job) Stop() {
	j.proc.Stop()
	<-j.exited
}

// Finished is closed once the job has ended and its output was read to
// its end.
func (j *Job) Finished() <-chan struct{} { return j.finished }

// JobOutput is what a read of a job gives.
type JobOutput struct {
	// Text is the output written since the last read; with a filter,
	// only its lines that match.
	Text string
	// Dropped counts unread bytes let go past JobKeepBytes since the last
	// read.
	Dropped int64
	// Running says the job's shell still runs; else Status is how it
	// ended.
	Running bool
	Status  ExitStatus
}

// Changed returns a channel closed when output arrives or the job ends,
// after the call: a caller that read and wants more waits on it instead
// of asking again and again.
func (j *Job) Changed() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		// Output may still come from a process the shell left, but
		// whoever waits should look now.
		done := make(chan struct{})
		close(done)
		return done
	}
	if j.changed == nil {
		j.changed = make(chan struct{})
	}
	return j.changed
}

// signal wakes those waiting on Changed. Callers hold mu.
func (j *Job) signal() {
	if j.changed != nil {
		close(j.changed)
		j.changed = nil
	}
}

// Peek says whether the job runs, or how it ended, and reads nothing.
func (j *Job) Peek() JobOutput {
	j.mu.Lock()
	defer j.mu.Unlock()
	return JobOutput{Running: !j.ended, Status: j.status}
}

// Read returns what the job wrote since the last read, and consumes it.
// With filter, only the whole lines that match are returned (the others
// are consumed all the same); a line still being written waits for its
// end, or the job's.
func (j *Job) Read(filter *regexp.Regexp) JobOutput {
	j.mu.Lock()
	defer j.mu.Unlock()
	// Whether the output was read to its end: only then is a last line
	// without its line break whole.
	finished := false
	select {
	case <-j.finished:
		finished = true
	default:
	}
	out := JobOutput{Dropped: j.dropped, Running: !j.ended, Status: j.status}
	j.dropped = 0
	if filter == nil {
		out.Text, j.unread = string(j.unread), nil
		return out
	}
	text := j.unread
	rest := []byte(nil)
	if i := strings.LastIndexByte(string(text), '\n'); !finished && i < len(text)-1 {
		text, rest = text[:i+1], slices.Clone(text[i+1:])
	}
	var b strings.Builder
	for line := range strings.Lines(string(text)) {
		if filter.MatchString(strings.TrimSuffix(line, "\n")) {
			b.WriteString(line)
		}
	}
	out.Text, j.unread = b.String(), rest
	return out
}

// jobWriter appends what the job writes to its unread output.
type jobWriter struct{ j *Job }

func (w jobWriter) Write(p []byte) (int, error) {
	j := w.j
	j.mu.Lock()
	defer j.mu.Unlock()
	j.unread = append(j.unread, p...)
	j.signal()
	if over := len(j.unread) - JobKeepBytes; over > 0 {
		j.dropped += int64(over)
		// The next append that outgrows the array copies what is
		// kept, and the dropped part goes with the old one.
		j.unread = j.unread[over:]
	}
	return len(p), nil
}
