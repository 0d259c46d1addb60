// Package sandboxtest helps tests find the processes a command left
// behind. It is imported only from tests.
package sandboxtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Tag returns a number of seconds, unlikely to be used by anything else,
// for `sleep` to run: a test finds the sleeps it started by it, in any
// PID namespace.
func Tag() string {
	n := time.Now().UnixNano()
	return fmt.Sprintf("%d.%06d", 100+os.Getpid()%800, n%1000000)
}

// Running lists the live processes (not zombies) whose command line is
// exactly argv.
func Running(argv ...string) []int {
	want := strings.Join(argv, "\x00") + "\x00"
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || string(b) != want {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
			continue
		}
		out = append(out, pid)
	}
	return out
}
