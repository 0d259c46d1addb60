//go:build unix

package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
)

// jobEnv is testEnv with a process host, closed at the end, and jobs.
func jobEnv(t *testing.T) (*tools.Env, *sandbox.Host) {
	t.Helper()
	needProcessGroups(t)
	env := testEnv(t, nil)
	host := sandbox.NewHost(nil)
	t.Cleanup(func() { host.Close() })
	env.Procs, env.Jobs = host, &tools.Jobs{}
	return env, host
}

// feed makes a fifo named name in env's root for a job to read (`cat
// name`) and returns its writing end, held open so the job reads on.
func feed(t *testing.T, env *tools.Env, name string) *os.File {
	t.Helper()
	p := filepath.Join(env.Root, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	// Read and write: opening does not wait for the job to open it.
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// readJob reads job id with bash_output until the output it gave holds
// want, waiting for the job's output between reads, and returns the
// output (the status lines of the reads left out) and the last status.
func readJob(t *testing.T, env *tools.Env, id, filter, want string) (string, string) {
	t.Helper()
	j := env.Jobs.Get(id)
	if j == nil {
		t.Fatalf("no job %s", id)
	}
	var got strings.Builder
	deadline := time.After(10 * time.Second)
	for {
		changed := j.Changed()
		res := call(t, env, "bash_output", map[string]any{"id": id, "filter": filter})
		out, status := splitStatus(res.Content)
		if !strings.HasPrefix(out, "(no new output") {
			got.WriteString(out)
		}
		if strings.Contains(got.String(), want) {
			return got.String(), status
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("job %s never wrote %q; got %q", id, want, got.String())
		}
	}
}

// splitStatus cuts bash_output's last line, the job's status, off.
func splitStatus(content string) (string, string) {
	i := strings.LastIndexByte(content, '\n')
	return content[:i+1], content[i+1:]
}

// TestBashBackgroundJob: a job started with run_in_background returns at
// once; bash_output gives what it wrote since the last read, filtered
// when asked; kill_shell stops it and a read says how it ended.
func TestBashBackgroundJob(t *testing.T) {
	env, _ := jobEnv(t)
	in := feed(t, env, "in")
	res := call(t, env, "bash", map[string]any{"command": "cat in", "run_in_background": true})
	if res.IsError || !strings.HasPrefix(res.Content, "Started background job bg1.") {
		t.Fatalf("bash: %q", res.Content)
	}

	in.WriteString("one\n")
	if out, status := readJob(t, env, "bg1", "", "one"); out != "one\n" || status != "Still running." {
		t.Errorf("first read: %q, %q", out, status)
	}
	in.WriteString("two\n")
	if out, _ := readJob(t, env, "bg1", "", "two"); out != "two\n" {
		t.Errorf("second read: %q, want only what came since the first", out)
	}
	in.WriteString("keep 1\ndrop\nkeep 2\n")
	if out, _ := readJob(t, env, "bg1", "^keep", "keep 2"); out != "keep 1\nkeep 2\n" {
		t.Errorf("filtered read: %q", out)
	}

	res = call(t, env, "kill_shell", map[string]any{"id": "bg1"})
	if !strings.HasPrefix(res.Content, "Stopped job bg1") {
		t.Errorf("kill_shell: %q", res.Content)
	}
	res = call(t, env, "bash_output", map[string]any{"id": "bg1"})
	if !strings.HasPrefix(res.Content, "(no new output)\nKilled by signal") {
		t.Errorf("after kill_shell, bash_output: %q", res.Content)
	}
	res = call(t, env, "kill_shell", map[string]any{"id": "bg1"})
	if !strings.HasPrefix(res.Content, "Job bg1 had already ended.") {
		t.Errorf("kill_shell again: %q", res.Content)
	}
}

// TestBashBackgroundJobEnds: a job that ends by itself says its exit code
// after its last output.
func TestBashBackgroundJobEnds(t *testing.T) {
	env, _ := jobEnv(t)
	call(t, env, "bash", map[string]any{"command": "echo done; exit 3", "run_in_background": true})
	<-env.Jobs.Get("bg1").Finished()
	res := call(t, env, "bash_output", map[string]any{"id": "bg1"})
	if res.Content != "done\nExit code: 3" {
		t.Errorf("bash_output: %q", res.Content)
	}
}

// TestBashBackgroundJobsEndWithTheSession: closing the process host, as
// the end of the session does, stops the jobs still running.
func TestBashBackgroundJobsEndWithTheSession(t *testing.T) {
	env, host := jobEnv(t)
	feed(t, env, "in")
	call(t, env, "bash", map[string]any{"command": "cat in", "run_in_background": true})
	if out := env.Jobs.Get("bg1").Peek(); !out.Running {
		t.Fatalf("the job ended at once: %+v", out)
	}
	host.Close()
	<-env.Jobs.Get("bg1").Finished()
	if res := call(t, env, "bash_output", map[string]any{"id": "bg1"}); !strings.Contains(res.Content, "Killed by signal") {
		t.Errorf("after the session's end: %q", res.Content)
	}
}

func TestBashBackgroundJobRefusals(t *testing.T) {
	env := testEnv(t, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"bash", map[string]any{"command": "true", "run_in_background": true}, "run_in_background is not available here"},
		{"bash_output", map[string]any{"id": "bg1"}, "no background jobs here"},
		{"kill_shell", map[string]any{}, "id is required"},
	} {
		if res := call(t, env, tc.tool, tc.args); !res.IsError || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s %v: %q, want an error saying %q", tc.tool, tc.args, res.Content, tc.want)
		}
	}
	env.Jobs = &tools.Jobs{}
	if res := call(t, env, "bash_output", map[string]any{"id": "bg7"}); !strings.Contains(res.Content, `no background job "bg7": none was started`) {
		t.Errorf("bash_output of no job: %q", res.Content)
	}
}

// TestBashBackgroundJobChangesControlFiles: a job that changes a control
// file after its call returned is undone as any process a command left
// running: at the next command, which says so.
func TestBashBackgroundJobChangesControlFiles(t *testing.T) {
	env, _ := jobEnv(t)
	toml := filepath.Join(env.Root, "reasonix.toml")
	if err := os.WriteFile(toml, []byte("[agent]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Control = &tools.ControlWatch{Paths: []string{toml}, Disk: tools.DiskFS{Roots: []string{env.Root}}}
	in := feed(t, env, "in")
	call(t, env, "bash", map[string]any{"command": "read x < in; echo 'mode = \"yolo\"' >> reasonix.toml; echo wrote", "run_in_background": true})
	in.WriteString("go\n")
	readJob(t, env, "bg1", "", "wrote")
	<-env.Jobs.Get("bg1").Finished()
	res := call(t, env, "bash", map[string]any{"command": "true"})
	if !strings.Contains(res.Content, "a process left running by an earlier command") {
		t.Errorf("the next command did not say so: %q", res.Content)
	}
	if b, _ := os.ReadFile(toml); string(b) != "[agent]\n" {
		t.Errorf("reasonix.toml after the next command: %q", b)
	}
}

// TestBashBackgroundJobWording: the question about a background job says
// it goes on in the background.
func TestBashBackgroundJobWording(t *testing.T) {
	d := lookup(t, "bash").(tools.Describer)
	for args, want := range map[string]string{
		`{"command": "npm run dev", "run_in_background": true}`: "run the command `npm run dev` in the background",
		`{"command": "npm test"}`:                               "run the command `npm test`",
	} {
		if got := d.Describe(json.RawMessage(args)).Wording; got != want {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
}
