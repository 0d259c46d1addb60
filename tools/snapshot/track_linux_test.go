//go:build linux

package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTrackerLargeTree: past the files a snapshot may list, a command's
// changes deep in the tree are reported, the first command's included.
func TestTrackerLargeTree(t *testing.T) {
	if testing.Short() {
		t.Skip("makes over 100,000 files")
	}
	root := t.TempDir()
	deep := bigTree(t, root, DefaultMaxFiles+5_000)
	if _, err := Take(t.Context(), root, Options{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a snapshot of the tree: %v, want ErrTooLarge", err)
	}
	tr := NewTracker(root, Options{Control: isControl})
	defer tr.Close()
	dir := filepath.Dir(deep)
	rel := func(p string) string { r, _ := filepath.Rel(root, p); return filepath.ToSlash(r) }
	for i, step := range []struct {
		command string
		want    []string
	}{
		{"echo x > " + deep, []string{"~" + rel(deep)}},
		{"echo new > " + filepath.Join(dir, "new"), []string{"+" + rel(filepath.Join(dir, "new"))}},
		{"rm " + deep, []string{"-" + rel(deep)}},
	} {
		// Before the command: the first Sync is the baseline.
		if got, c := syncNames(t, tr); len(got) > 0 || c.Notice != "" {
			t.Fatalf("%d: before the command: %q, %q", i, got, c.Notice)
		}
		sh(t, root, step.command)
		got, c := syncNames(t, tr)
		if !slices.Equal(got, step.want) || c.Notice != "" {
			t.Errorf("%s: got %q, %q; want %q", step.command, got, c.Notice, step.want)
		}
	}
}

// TestTrackerFallback: when the events cannot be trusted, or a watch
// cannot be added, the changes are found by a full listing all the same,
// and the notice says so.
func TestTrackerFallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(tr *Tracker)
		// want is in the notice of the command that falls back; later
		// says whether later commands are watched again.
		want    string
		watched bool
	}{
		{"overflow", func(tr *Tracker) { tr.ev.overflow = true }, "overflowed", true},
		{"watch", func(tr *Tracker) {
			tr.ev.addErr = func(string) error { return unix.ENOSPC }
		}, "around every command", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, map[string]string{"a.txt": "a", "sub/b.txt": "b"})
			tr := NewTracker(root, Options{Control: isControl})
			defer tr.Close()
			if _, err := tr.Sync(t.Context()); err != nil {
				t.Fatal(err)
			}
			tc.fail(tr)
			sh(t, root, "echo x >> sub/b.txt && mkdir n && echo n > n/c.txt && rm a.txt")
			got, c := syncNames(t, tr)
			if want := []string{"+n/c.txt", "-a.txt", "~sub/b.txt"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
			if !strings.Contains(c.Notice, "listing the whole workspace") || !strings.Contains(c.Notice, tc.want) {
				t.Errorf("notice %q, want one about a full listing (%s)", c.Notice, tc.want)
			}
			sameAsTake(t, tr)
			if (tr.ev != nil) != tc.watched {
				t.Errorf("watching after the fallback: %v, want %v", tr.ev != nil, tc.watched)
			}
			// Later commands are reported still, quietly.
			sh(t, root, "echo y > n/d.txt")
			got, c = syncNames(t, tr)
			if want := []string{"+n/d.txt"}; !slices.Equal(got, want) || c.Notice != "" {
				t.Errorf("the next command: got %q, %q; want %q", got, c.Notice, want)
			}
		})
	}
}

// TestTrackerOff: a first listing that cannot be made turns tracking
// off, with an error that says so.
func TestTrackerOff(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a": "", "b": "", "c": ""})
	tr := NewTracker(root, Options{MaxFiles: 2})
	defer tr.Close()
	if _, err := tr.Sync(t.Context()); !errors.Is(err, ErrOff) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Sync: %v, want ErrOff and ErrTooLarge", err)
	}
	if _, err := tr.Sync(t.Context()); !errors.Is(err, ErrOff) {
		t.Errorf("the next Sync: %v, want ErrOff", err)
	}
}

// TestTrackerOverflow: a command that makes more events than the
// kernel queues has its changes found by a full listing, and said so.
func TestTrackerOverflow(t *testing.T) {
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || n > 200_000 {
		t.Skipf("max_queued_events %q", data)
	}
	root := t.TempDir()
	write(t, root, map[string]string{"sub/a.txt": "a"})
	tr := NewTracker(root, Options{Control: isControl})
	defer tr.Close()
	if _, err := tr.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Each file makes at least its creation's event.
	sh(t, filepath.Join(root, "sub"), fmt.Sprintf("seq 1 %d | xargs touch", n+1))
	c, err := tr.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Diffs) != n+1 || !strings.Contains(c.Notice, "overflowed") {
		t.Errorf("%d changes, notice %q; want %d and one about the overflow", len(c.Diffs), c.Notice, n+1)
	}
	sameAsTake(t, tr)
}
