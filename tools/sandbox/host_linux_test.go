package sandbox

import (
	"bytes"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox/sandboxtest"
)

// hostRun starts command with bash -c in dir through h, confined or not,
// and returns its output and how it ended.
func hostRun(t *testing.T, h *Host, dir, command string, confine bool) (string, tools.ExitStatus) {
	t.Helper()
	bash, _ := exec.LookPath("bash")
	cmd := exec.Command(bash, "-c", command)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := h.Start(cmd, confine)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	st := p.Wait()
	// The output is complete once the supervisor is gone or the shell's
	// background children close it; neither is waited for here, so
	// read what the shell wrote by the time it exited.
	waitFor(t, func() bool {
		select {
		case <-p.(unit).done():
			return true
		default:
			return false
		}
	})
	return out.String(), st
}

// waitFor polls cond for a few seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out waiting")
}

// newTestHost returns a host whose jail writes only in a fresh root.
func newTestHost(t *testing.T, network bool) (*Host, string) {
	t.Helper()
	needLandlock(t)
	root := realTempDir(t)
	h := NewHost(&Jail{Policy: New([]string{root}, nil), Network: network})
	t.Cleanup(func() { h.Close() })
	return h, root
}

// namespaced skips a test that needs the unit's namespaces when the
// system refuses them (the host says so in a note).
func namespaced(t *testing.T, h *Host, st tools.ExitStatus) {
	t.Helper()
	for _, n := range st.Notes {
		if strings.Contains(n, "namespace") || strings.Contains(n, "private /proc") {
			t.Skipf("no namespaces here: %s", n)
		}
	}
}

func TestHostConfinedSeesOnlyItsOwnProcesses(t *testing.T) {
	h, root := newTestHost(t, false)
	out, st := hostRun(t, h, root, `echo $$; ls /proc | grep -c '^[0-9]'; test -e /proc/`+strconv.Itoa(os.Getpid())+` && echo visible; kill -0 `+strconv.Itoa(os.Getpid())+` 2>/dev/null && echo signalled; true`, true)
	namespaced(t, h, st)
	lines := strings.Fields(out)
	if st.Code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, output %q", st.Code, out)
	}
	// The supervisor is 1 (its threads take the next few numbers): the
	// processes are the supervisor, the shell, ls and grep.
	pid, _ := strconv.Atoi(lines[0])
	if n, _ := strconv.Atoi(lines[1]); pid > 64 || n > 5 {
		t.Errorf("shell pid %s, %s processes visible; want a small pid and a handful", lines[0], lines[1])
	}
}

func TestHostNetworkNamespace(t *testing.T) {
	addr := outboundAddr(t)
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network=%v", network), func(t *testing.T) {
			h, root := newTestHost(t, network)
			// bash's /dev/udp sends a datagram; without a route it fails.
			out, st := hostRun(t, h, root, "grep -c : /proc/net/dev; echo x > /dev/udp/"+addr+"/9 && echo sent", true)
			namespaced(t, h, st)
			ifaces := strings.Fields(out)[0]
			if !network && (ifaces != "1" || strings.Contains(out, "sent") || !strings.Contains(out, "unreachable")) {
				t.Errorf("network off: %q; want only lo and the datagram refused", out)
			}
			if network && !strings.Contains(out, "sent") {
				t.Errorf("network on: %q; want the datagram sent", out)
			}
		})
	}
}

// outboundAddr returns an address of this machine other than loopback.
func outboundAddr(t *testing.T) string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() {
			return ip.IP.String()
		}
	}
	t.Skip("no IPv4 address other than loopback")
	return ""
}

func TestHostControlPathsReadOnly(t *testing.T) {
	needLandlock(t)
	root := realTempDir(t)
	toml := filepath.Join(root, "reasonix.toml")
	hooks := filepath.Join(root, ".git", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(toml, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	policy := New([]string{root}, nil)
	policy.Protect(toml, hooks, filepath.Join(root, ".mcp.json"))
	h := NewHost(&Jail{Policy: policy})
	t.Cleanup(func() { h.Close() })
	for _, command := range []string{
		`printf '[sandbox]\nbash = "off"\n' >> reasonix.toml`,
		`rm -f reasonix.toml`,
		`mv reasonix.toml old.toml`,
		`echo evil > .git/hooks/pre-commit`,
		`rm -rf .git/hooks`,
		`mv .git/hooks .git/h`,
	} {
		out, st := hostRun(t, h, root, command, true)
		namespaced(t, h, st)
		if st.Code == 0 {
			t.Errorf("%s: succeeded: %q", command, out)
		}
	}
	if b, _ := os.ReadFile(toml); string(b) != "# mine\n" {
		t.Errorf("reasonix.toml is now %q", b)
	}
	if ents, _ := os.ReadDir(hooks); len(ents) != 0 {
		t.Errorf("hooks: %v", ents)
	}
	// The rest of the workspace stays writable, top level included.
	if out, st := hostRun(t, h, root, "echo hi > new.txt && cat new.txt && echo x > .git/HEAD.lock && rm .git/HEAD.lock", true); st.Code != 0 {
		t.Errorf("ordinary writes: exit %d: %q", st.Code, out)
	}
	// The jailed shell cannot undo the protection.
	if out, st := hostRun(t, h, root, "umount .git/hooks || umount -l reasonix.toml", true); st.Code == 0 {
		t.Errorf("umount succeeded: %q", out)
	}
}

// In a repository, what git takes configuration and hooks from is
// read-only to a command — a submodule's and a linked work tree's too —
// while commits, which write the rest of .git, go on working.
func TestHostGitControlReadOnly(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := realTempDir(t)
	git := "git -c user.name=t -c user.email=t@t -c protocol.file.allow=always"
	setup := strings.Join([]string{
		"set -e",
		git + " init -q lib", "echo a > lib/a", git + " -C lib add a", git + " -C lib commit -qm a",
		git + " init -q .", "echo a > a", git + " add a", git + " commit -qm a",
		git + " submodule add -q ./lib sub", git + " commit -qm sub",
		git + " worktree add -q wt",
		"echo '[core]' > .git/worktrees/wt/config.worktree",
	}, " && ")
	if out, err := exec.Command("bash", "-c", "cd "+root+" && "+setup).CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	policy := New([]string{root}, nil)
	policy.ProtectGit(filepath.Join(root, ".git"))
	h := NewHost(&Jail{Policy: policy})
	t.Cleanup(func() { h.Close() })
	protected := snapshotFiles(t, filepath.Join(root, ".git", "config"), filepath.Join(root, ".git", "modules", "sub", "config"),
		filepath.Join(root, ".git", "worktrees", "wt", "config.worktree"), filepath.Join(root, ".git", "worktrees", "wt", "commondir"))
	mustFailUnchanged(t, h, root, protected, []string{
		`git config core.fsmonitor 'touch PWNED'`,
		`echo '[core] fsmonitor = touch PWNED' >> .git/config`,
		`echo '[core] fsmonitor = touch PWNED' >> .git/modules/sub/config`,
		`git -C sub config core.fsmonitor 'touch PWNED'`,
		`echo '[core] fsmonitor = touch PWNED' >> .git/worktrees/wt/config.worktree`,
		`echo /elsewhere > .git/worktrees/wt/commondir`,
		`echo x > .git/modules/sub/hooks/post-checkout`,
		`rm -rf .git/modules/sub/hooks`,
	})
	// Commits, in the repository and in its submodule, still work.
	for command, commits := range map[string]string{
		"echo b > a && " + git + " commit -qam b && " + git + " log --oneline | wc -l":                   "3",
		"echo b > sub/a && " + git + " -C sub commit -qam b && " + git + " -C sub log --oneline | wc -l": "2",
	} {
		if out, st := hostRun(t, h, root, command, true); st.Code != 0 || strings.TrimSpace(out) != commits {
			t.Errorf("%s: exit %d: %q", command, st.Code, out)
		}
	}
}

// Control paths found in subdirectories are read-only to the commands
// that start after ProtectNested, a nested repository's configuration
// too, while its commits go on working.
func TestHostNestedControlReadOnly(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := realTempDir(t)
	git := "git -c user.name=t -c user.email=t@t"
	setup := "set -e; mkdir -p pkg/.vscode && echo '# mine' > pkg/reasonix.toml && echo '{}' > pkg/.vscode/tasks.json && " +
		git + " init -q lib && echo a > lib/a && " + git + " -C lib add a && " + git + " -C lib commit -qm a"
	if out, err := exec.Command("bash", "-c", "cd "+root+" && "+setup).CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	j := &Jail{Policy: New([]string{root}, nil)}
	j.ProtectNested(filepath.Join(root, "pkg", "reasonix.toml"), filepath.Join(root, "pkg", ".vscode"), filepath.Join(root, "lib", ".git"), filepath.Join(root, "gone", ".mcp.json"))
	h := NewHost(j)
	t.Cleanup(func() { h.Close() })
	protected := snapshotFiles(t, filepath.Join(root, "pkg", "reasonix.toml"), filepath.Join(root, "pkg", ".vscode", "tasks.json"), filepath.Join(root, "lib", ".git", "config"))
	mustFailUnchanged(t, h, root, protected, []string{
		`printf '[sandbox]\nbash = "off"\n' >> pkg/reasonix.toml`,
		`echo evil > pkg/.vscode/tasks.json`,
		`git -C lib config core.fsmonitor 'touch PWNED'`,
		`echo evil > lib/.git/hooks/post-checkout`,
	})
	if out, st := hostRun(t, h, root, "echo b > lib/a && "+git+" -C lib commit -qam b && echo ok > pkg/main.txt", true); st.Code != 0 {
		t.Errorf("ordinary writes: exit %d: %q", st.Code, out)
	}
}

// BenchmarkHostStartNested is what mounting the control paths found in
// subdirectories read-only adds to a command's start: none, and the
// most ProtectNested keeps, each a reasonix.toml.
func BenchmarkHostStartNested(b *testing.B) {
	if _, err := landlockABI(); err != nil {
		b.Skip(err)
	}
	for _, n := range []int{0, maxNested} {
		b.Run(fmt.Sprintf("nested=%d", n), func(b *testing.B) {
			root := b.TempDir()
			j := &Jail{Policy: New([]string{root}, nil)}
			for i := range n {
				p := filepath.Join(root, fmt.Sprint(i), "reasonix.toml")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					b.Fatal(err)
				}
				j.ProtectNested(p)
			}
			h := NewHost(j)
			defer h.Close()
			for b.Loop() {
				cmd := exec.Command("bash", "-c", "true")
				cmd.Dir = root
				p, err := h.Start(cmd, true)
				if err != nil {
					b.Fatal(err)
				}
				if st := p.Wait(); st.Code != 0 {
					b.Fatalf("exit %d", st.Code)
				}
			}
		})
	}
}

// mustFailUnchanged runs each command, confined, in root, and fails the
// test if one succeeds or the protected files are not as they were.
func mustFailUnchanged(t *testing.T, h *Host, root string, protected map[string]string, commands []string) {
	t.Helper()
	for _, command := range commands {
		out, st := hostRun(t, h, root, command, true)
		namespaced(t, h, st)
		if st.Code == 0 {
			t.Errorf("%s: succeeded: %q", command, out)
		}
	}
	if got := snapshotFiles(t, keys(protected)...); !maps.Equal(got, protected) {
		t.Errorf("changed: %v, was %v", got, protected)
	}
}

// snapshotFiles maps each path to its content, or the error reading it.
func snapshotFiles(t *testing.T, paths ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			out[p] = err.Error()
			continue
		}
		out[p] = string(b)
	}
	return out
}

func keys(m map[string]string) []string {
	return slices.Collect(maps.Keys(m))
}

// A command's processes end with its unit, even those that left its
// process group and session.
func TestHostCloseEndsEveryProcess(t *testing.T) {
	for _, confine := range []bool{true, false} {
		t.Run(fmt.Sprintf("confine=%v", confine), func(t *testing.T) {
			h, root := newTestHost(t, false)
			tag := sandboxtest.Tag()
			out, st := hostRunBackground(t, h, root, "setsid sleep "+tag+" >/dev/null 2>&1 < /dev/null & nohup sleep "+tag+" >/dev/null 2>&1 & echo started", confine)
			if st.Code != 0 || !strings.Contains(out, "started") {
				t.Fatalf("exit %d: %q", st.Code, out)
			}
			waitFor(t, func() bool { return len(sandboxtest.Running("sleep", tag)) == 2 })
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, func() bool { return len(sandboxtest.Running("sleep", tag)) == 0 })
		})
	}
}

// hostRunBackground is hostRun for a command that leaves processes
// running: it waits for the shell only.
func hostRunBackground(t *testing.T, h *Host, dir, command string, confine bool) (string, tools.ExitStatus) {
	t.Helper()
	bash, _ := exec.LookPath("bash")
	cmd := exec.Command(bash, "-c", command)
	cmd.Dir = dir
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	p, err := h.Start(cmd, confine)
	if err != nil {
		t.Fatal(err)
	}
	st := p.Wait()
	b, _ := os.ReadFile(f.Name())
	return string(b), st
}

func TestHostStopEndsTheUnit(t *testing.T) {
	for _, confine := range []bool{true, false} {
		t.Run(fmt.Sprintf("confine=%v", confine), func(t *testing.T) {
			h, root := newTestHost(t, false)
			tag := sandboxtest.Tag()
			bash, _ := exec.LookPath("bash")
			cmd := exec.Command(bash, "-c", "setsid sleep "+tag+" & sleep "+tag)
			cmd.Dir = root
			p, err := h.Start(cmd, confine)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, func() bool { return len(sandboxtest.Running("sleep", tag)) == 2 })
			p.Stop()
			st := p.Wait()
			if st.Signal == 0 {
				t.Errorf("the shell ended by itself: %+v", st)
			}
			waitFor(t, func() bool { return len(sandboxtest.Running("sleep", tag)) == 0 })
		})
	}
}

func TestHostExitStatus(t *testing.T) {
	h, root := newTestHost(t, false)
	for _, confine := range []bool{true, false} {
		if _, st := hostRun(t, h, root, "exit 3", confine); st.Code != 3 {
			t.Errorf("confine=%v: %+v", confine, st)
		}
		if _, st := hostRun(t, h, root, "kill -TERM $$", confine); st.Signal != int(syscall.SIGTERM) || st.Code != -1 {
			t.Errorf("confine=%v: %+v", confine, st)
		}
	}
}

// BenchmarkShellCommand measures starting `true` and waiting for it: as a
// plain process group, jailed without a supervisor, and as a unit,
// unconfined and confined (with its namespaces), and confined with
// private layers over the shared caches.
func BenchmarkShellCommand(b *testing.B) {
	if _, err := landlockABI(); err != nil {
		b.Skip(err)
	}
	root, _ := filepath.EvalSymlinks(b.TempDir())
	j := &Jail{Policy: New([]string{root}, nil)}
	sh, _ := exec.LookPath("sh")
	run := func(b *testing.B, start func(*exec.Cmd) (tools.ShellProcess, error)) {
		for b.Loop() {
			cmd := exec.Command(sh, "-c", "true")
			cmd.Dir = root
			p, err := start(cmd)
			if err != nil {
				b.Fatal(err)
			}
			if st := p.Wait(); st.Code != 0 {
				b.Fatal(st)
			}
			<-p.(unit).done()
		}
	}
	b.Run("group", func(b *testing.B) {
		run(b, func(cmd *exec.Cmd) (tools.ShellProcess, error) { return startGroup(cmd, false, nil) })
	})
	b.Run("group-jailed", func(b *testing.B) {
		run(b, func(cmd *exec.Cmd) (tools.ShellProcess, error) {
			if _, _, err := j.Confine(cmd); err != nil {
				return nil, err
			}
			return startGroup(cmd, true, nil)
		})
	})
	h := NewHost(j)
	defer h.Close()
	b.Run("unit", func(b *testing.B) {
		run(b, func(cmd *exec.Cmd) (tools.ShellProcess, error) { return h.Start(cmd, false) })
	})
	b.Run("unit-confined", func(b *testing.B) {
		run(b, func(cmd *exec.Cmd) (tools.ShellProcess, error) { return h.Start(cmd, true) })
	})
	net := NewHost(&Jail{Policy: j.Policy, Network: true})
	defer net.Close()
	b.Run("unit-confined-network", func(b *testing.B) {
		run(b, func(cmd *exec.Cmd) (tools.ShellProcess, error) { return net.Start(cmd, true) })
	})
	// The caches of a usual setup, each with a private layer: the user
	// cache directory holding GOCACHE, the module cache, npm's.
	home, _ := filepath.EvalSymlinks(b.TempDir())
	caches := []Cache{
		{Path: filepath.Join(home, ".cache"), Var: "XDG_CACHE_HOME"},
		{Path: filepath.Join(home, ".cache", "go-build"), Var: "GOCACHE"},
		{Path: filepath.Join(home, "go", "pkg", "mod"), Var: "GOMODCACHE"},
		{Path: filepath.Join(home, ".npm"), Var: "npm_config_cache"},
	}
	for _, c := range caches {
		if err := os.MkdirAll(c.Path, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	layered := NewHost(&Jail{Policy: j.Policy, Caches: caches, Layers: filepath.Join(home, "layers")})
	defer layered.Close()
	b.Run("unit-confined-caches", func(b *testing.B) {
		run(b, func(cmd *exec.Cmd) (tools.ShellProcess, error) { return layered.Start(cmd, true) })
	})
}

// TestHostDiesWithReasonix: when the process that started the units dies
// outright (SIGKILL: no Close), their processes die too, whether the unit
// is a PID namespace or a subreaper's process tree.
func TestHostDiesWithReasonix(t *testing.T) {
	needLandlock(t)
	for _, confine := range []bool{true, false} {
		t.Run(fmt.Sprintf("confine=%v", confine), func(t *testing.T) {
			tag := sandboxtest.Tag()
			helper := exec.Command(os.Args[0], "-test.run=^TestHostHelperProcess$")
			helper.Env = append(os.Environ(), "REASONIX_HOST_HELPER="+tag, fmt.Sprintf("REASONIX_HOST_HELPER_CONFINE=%v", confine))
			helper.Dir = realTempDir(t)
			if err := helper.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, func() bool { return len(sandboxtest.Running("sleep", tag)) == 2 })
			helper.Process.Kill()
			helper.Wait()
			waitFor(t, func() bool { return len(sandboxtest.Running("sleep", tag)) == 0 })
		})
	}
}

// TestHostHelperProcess is the process TestHostDiesWithReasonix kills: it
// starts a command that leaves two sleeps behind, one in a session of its
// own, and waits to be killed.
func TestHostHelperProcess(t *testing.T) {
	tag := os.Getenv("REASONIX_HOST_HELPER")
	if tag == "" {
		t.Skip("run by TestHostDiesWithReasonix")
	}
	dir, _ := os.Getwd()
	h := NewHost(&Jail{Policy: New([]string{dir}, nil)})
	bash, _ := exec.LookPath("bash")
	cmd := exec.Command(bash, "-c", "setsid sleep "+tag+" & sleep "+tag)
	cmd.Dir = dir
	if _, err := h.Start(cmd, os.Getenv("REASONIX_HOST_HELPER_CONFINE") == "true"); err != nil {
		t.Fatal(err)
	}
	select {}
}
