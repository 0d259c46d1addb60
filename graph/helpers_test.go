package graph

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonix/reasonix/tools"
)

// serversDir holds the npm-installed servers; install.sh there installs
// every server the tests use.
var serversDir = filepath.Join("testdata", "servers")

// requireServer returns the configuration of a built-in server with its
// program found: gopls on PATH or in $(go env GOPATH)/bin, the npm servers
// in testdata/servers/node_modules or on PATH. A missing server skips the
// test, or fails it when REASONIX_REQUIRE_PEERS=1.
func requireServer(t testing.TB, name string) ServerSpec {
	t.Helper()
	var cfg ServerSpec
	for _, s := range DefaultServers() {
		if s.Name == name {
			cfg = s
		}
	}
	if cfg.Name == "" {
		t.Fatalf("no built-in server %q", name)
	}
	local, _ := filepath.Abs(filepath.Join(serversDir, "node_modules", ".bin", cfg.Command[0]))
	if _, err := os.Stat(local); err == nil {
		cfg.Command = append([]string{local}, cfg.Command[1:]...)
		return cfg
	}
	prog, err := lookCommand(cfg)
	if err != nil {
		msg := err.Error() + "; graph/testdata/servers/install.sh installs it"
		if os.Getenv("REASONIX_REQUIRE_PEERS") == "1" {
			t.Fatal(msg + ", and REASONIX_REQUIRE_PEERS=1 requires it")
		}
		t.Skip(msg)
	}
	cfg.Command = append([]string{prog}, cfg.Command[1:]...)
	return cfg
}

// newManager returns a Manager for root that the test closes. Its log goes
// to stderr with -v.
func newManager(t testing.TB, root string, fsys tools.FS, docs tools.DocumentSource, servers ...ServerSpec) *Manager {
	t.Helper()
	var w io.Writer = io.Discard
	if testing.Verbose() {
		w = os.Stderr
	}
	m := New(Options{
		Root:    root,
		FS:      fsys,
		Docs:    docs,
		Servers: servers,
		Logger:  slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	t.Cleanup(func() { m.Close() })
	return m
}

// overlayFS is an editor's view of the workspace: unsaved buffers over
// the disk.
type overlayFS struct {
	tools.DiskFS
	docs map[string]string
}

func (o *overlayFS) ReadFile(name string) ([]byte, error) {
	if t, ok := o.docs[name]; ok {
		return []byte(t), nil
	}
	return o.DiskFS.ReadFile(name)
}

func (o *overlayFS) OpenDocuments() []tools.OpenDocument {
	var out []tools.OpenDocument
	for p, t := range o.docs {
		out = append(out, tools.OpenDocument{Path: p, Text: t, Version: 1})
	}
	return out
}
