package config

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/reasonix/reasonix/tools"
)

// Reasonix keeps records per workspace in its directory: what the user
// trusted of a workspace's configuration (trust/), the security settings
// of its last session (security/). Each is a JSON file named after a
// digest of the workspace's canonical path.

// Canonical makes p absolute and free of symbolic links, as far as it
// exists, so that a workspace has one record however it is reached.
func Canonical(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p
}

// RecordPath is the path of the record of kind (a directory under Home)
// for the workspace dir, given canonical.
func RecordPath(kind, dir string) (string, error) {
	home, err := Home()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(home, kind, hex.EncodeToString(sum[:8])+".json"), nil
}

// WriteRecord replaces the record at path with v as indented JSON,
// unless it already says the same, through a temporary file so that a
// crash leaves the old one. Only the user may read it.
func WriteRecord(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return tools.DiskFS{}.Apply(context.Background(), []tools.Change{{Kind: tools.Write, Path: path, Content: b, Mode: 0o600}})
}
