package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// needLandlock skips a test on a kernel without a usable Landlock.
func needLandlock(t *testing.T) int {
	t.Helper()
	abi, err := landlockABI()
	if err != nil {
		t.Skipf("Landlock is unavailable, so commands cannot be confined: %v", err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not in PATH")
	}
	return abi
}

// jailed runs command with bash -c in dir, confined by j, and returns its
// combined output and exit code. The command runs through this test
// binary, whose copy of the package's init sets up the jail.
func jailed(t *testing.T, j *Jail, dir, command string) (string, int) {
	t.Helper()
	bash, _ := exec.LookPath("bash")
	cmd := exec.CommandContext(t.Context(), bash, "-c", command)
	cmd.Dir = dir
	confined, note, err := j.Confine(cmd)
	if err != nil || !confined {
		t.Fatalf("Confine = %v, %q, %v", confined, note, err)
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", command, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

func TestJailFilesystem(t *testing.T) {
	needLandlock(t)
	root := realTempDir(t)
	outside := realTempDir(t)
	private := realTempDir(t)
	tree(t, private, "secret/key", "public/notes")
	if err := os.WriteFile(filepath.Join(private, "secret", "key"), []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(private, "public", "notes"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	// No scratch directories: t.TempDir is below /tmp, which would
	// otherwise be writable and hide every refusal here.
	j := &Jail{Policy: New([]string{root}, []string{filepath.Join(private, "secret")})}
	tests := []struct {
		name, command string
		ok            bool
	}{
		{"write inside the root", "echo hi > new.txt && mkdir -p a/b && mv new.txt a/b/ && cat a/b/new.txt && rm -r a", true},
		{"write outside", "echo hi > " + outside + "/x", false},
		{"write under /etc", "echo hi > /etc/reasonix-jail-test", false},
		{"write through a link in the root", "echo hi > escape/x", false},
		{"remove outside", "rm -f " + private + "/public/notes", false},
		{"read a forbidden file", "cat " + private + "/secret/key", false},
		{"copy a forbidden file in", "cp " + private + "/secret/key .", false},
		{"read next to a forbidden path", "cat " + private + "/public/notes", true},
		{"list the directory holding a forbidden path", "ls " + private, true},
		{"read elsewhere", "head -c 10 /etc/passwd >/dev/null && ls / >/dev/null", true},
		{"/dev/null and /dev/zero", "head -c 4 /dev/zero > /dev/null && echo ok >/dev/null", true},
		{"nested shells stay confined", `bash -c 'bash -c "echo x > ` + outside + `/nested"'`, false},
		{"setsid and nohup stay confined", "setsid sh -c 'echo x > " + outside + "/s'; nohup sh -c 'echo x > " + outside + "/n' 2>&1; test ! -e " + outside + "/s -a ! -e " + outside + "/n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := jailed(t, j, root, tt.command)
			if (code == 0) != tt.ok {
				t.Errorf("exit %d, want success=%v; output:\n%s", code, tt.ok, out)
			}
			if !tt.ok && !strings.Contains(out, "Permission denied") {
				t.Errorf("no Permission denied in the output:\n%s", out)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(private, "public", "notes")); err != nil || string(b) != "hello" {
		t.Errorf("a file outside the roots changed: %q, %v", b, err)
	}
}

func TestJailScratch(t *testing.T) {
	needLandlock(t)
	root := realTempDir(t)
	j := &Jail{Policy: New([]string{root}, nil), Scratch: []string{os.TempDir()}}
	out, code := jailed(t, j, root, `f=$(mktemp) && echo hi > "$f" && cat "$f" && rm "$f"`)
	if code != 0 || out != "hi\n" {
		t.Errorf("temp file: exit %d, %q", code, out)
	}
}

func TestJailNetwork(t *testing.T) {
	needLandlock(t)
	if abi, _ := landlockABI(); abi < 4 {
		t.Skipf("Landlock ABI %d cannot restrict TCP (ABI 4 can)", abi)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"
	root := realTempDir(t)
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network=%v", network), func(t *testing.T) {
			j := &Jail{Policy: New([]string{root}, nil), Network: network}
			out, code := jailed(t, j, root, connect)
			if network && (code != 0 || out != "connected\n") {
				t.Errorf("connect failed with the network allowed: exit %d, %q", code, out)
			}
			if !network && (code == 0 || !strings.Contains(out, "Permission denied")) {
				t.Errorf("connect was not refused with the network off: exit %d, %q", code, out)
			}
		})
	}
}

func TestJailProcess(t *testing.T) {
	abi := needLandlock(t)
	root := realTempDir(t)
	j := &Jail{Policy: New([]string{root}, nil)}
	t.Run("the shell replaces the launcher", func(t *testing.T) {
		// The pid Reasonix started, which leads the process group it
		// kills on a timeout, is the shell's.
		bash, _ := exec.LookPath("bash")
		cmd := exec.Command(bash, "-c", "echo $$")
		cmd.Dir = root
		if ok, _, _ := j.Confine(cmd); !ok {
			t.Fatal("not confined")
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != strconv.Itoa(cmd.Process.Pid) {
			t.Errorf("shell pid %s, started pid %d", got, cmd.Process.Pid)
		}
	})
	t.Run("marker removed, no_new_privs set", func(t *testing.T) {
		out, code := jailed(t, j, root, `echo "${REASONIX_JAIL-unset}"; grep NoNewPrivs /proc/self/status`)
		if code != 0 || !strings.HasPrefix(out, "unset\n") || !strings.Contains(out, "NoNewPrivs:\t1") {
			t.Errorf("exit %d, %q", code, out)
		}
	})
	t.Run("kills its own children", func(t *testing.T) {
		out, code := jailed(t, j, root, "sleep 100 & kill $! && wait $!; echo status $?")
		if code != 0 || out != "status 143\n" {
			t.Errorf("exit %d, %q", code, out)
		}
	})
	t.Run("cannot signal outside its domain", func(t *testing.T) {
		if abi < 6 {
			t.Skipf("Landlock ABI %d has no signal scoping (ABI 6 has)", abi)
		}
		// Its parent is this test process.
		out, code := jailed(t, j, root, "kill -0 $PPID")
		if code == 0 || !strings.Contains(out, "Operation not permitted") {
			t.Errorf("exit %d, %q", code, out)
		}
	})
}

func TestJailFailsClosed(t *testing.T) {
	needLandlock(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, jailArg, "/bin/sh", "sh", "-c", "echo ran")
	cmd.Env = append(os.Environ(), jailEnv+"={not json")
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 126 || strings.Contains(string(out), "ran") ||
		!strings.Contains(string(out), "cannot confine the command") {
		t.Errorf("exit %d, %q", code, out)
	}
}

func TestConfineLeavesAFailingCommandAlone(t *testing.T) {
	needLandlock(t)
	cmd := exec.Command("no-such-shell-anywhere", "-c", "true")
	if ok, _, err := (&Jail{}).Confine(cmd); ok || err != nil {
		t.Errorf("Confine = %v, %v; want the command left alone", ok, err)
	}
	if cmd.Err == nil || cmd.Args[0] != "no-such-shell-anywhere" {
		t.Errorf("command rewritten: %v", cmd.Args)
	}
}

// A command run as root loses the capabilities that reach past the jail.
func TestJailDropsCapabilities(t *testing.T) {
	needLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("only root has capabilities to lose")
	}
	root := realTempDir(t)
	j := &Jail{Policy: New([]string{root}, nil)}
	out, code := jailed(t, j, root, "grep CapBnd /proc/self/status")
	var bnd uint64
	if _, err := fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(out, "CapBnd:")), "%x", &bnd); code != 0 || err != nil {
		t.Fatalf("exit %d, %q, %v", code, out, err)
	}
	for _, c := range []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_DAC_READ_SEARCH, unix.CAP_SYS_PTRACE} {
		if bnd&(1<<c) != 0 {
			t.Errorf("capability %d kept: %s", c, out)
		}
	}
	if bnd&(1<<unix.CAP_CHOWN) == 0 {
		t.Errorf("CAP_CHOWN lost: %s", out)
	}
}

// TestConfineExternal: a command for another program to start names this
// executable by its path on disk, and the jail itself removes the hidden
// variables, which that program's environment may bring back.
func TestConfineExternal(t *testing.T) {
	needLandlock(t)
	root := realTempDir(t)
	outside := realTempDir(t)
	j := &Jail{Policy: New([]string{root}, nil)}
	bash, _ := exec.LookPath("bash")
	cmd := exec.Command(bash, "-c", `echo "[$REASONIX_TEST_SECRET]"; echo x > `+outside+`/x`)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if err := j.ConfineExternal(cmd, []string{"REASONIX_TEST_SECRET"}); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Path != self || cmd.Args[0] != self || cmd.Args[1] != jailArg || cmd.Args[2] != bash {
		t.Fatalf("ConfineExternal made %s %q", cmd.Path, cmd.Args)
	}
	// Started as another program would: its own environment first.
	cmd.Env = append([]string{"REASONIX_TEST_SECRET=hunter2"}, cmd.Env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.HasPrefix(string(out), "[]\n") || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("got %v, %q; want the variable gone and the write refused", err, out)
	}
}

// A command another program starts, without the unit's namespaces, finds
// the shared caches read-only, and private ones in their variables over
// whatever that program's environment says; Close removes them.
func TestConfineExternalCaches(t *testing.T) {
	needLandlock(t)
	root := realTempDir(t)
	cache := filepath.Join(realTempDir(t), "gocache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	layers := filepath.Join(realTempDir(t), "layers")
	j := &Jail{Policy: New([]string{root}, nil), Caches: []Cache{{Path: cache, Var: "GOCACHE"}}, Layers: layers}
	bash, _ := exec.LookPath("bash")
	cmd := exec.Command(bash, "-c", `exec 2>/dev/null; echo x > `+cache+`/x || echo refused; echo y > "$GOCACHE/y" && echo "$GOCACHE"`)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if err := j.ConfineExternal(cmd, nil); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append([]string{"GOCACHE=" + cache}, cmd.Env...)
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 2 || lines[0] != "refused" || !within(lines[1], layers) {
		t.Fatalf("got %v, %q; want the cache refused and a private one", err, out)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(layers); len(ents) != 0 {
		t.Errorf("after Close: %v", ents)
	}
}
