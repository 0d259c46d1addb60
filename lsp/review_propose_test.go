package lsp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/tools"
)

// TestProposalOnlyIsNeverApplied: a call the permission gate let through
// only because its changes were proposals must not change anything once
// the workspace applies changes at once (its review setting changed while
// the call waited): the change was never approved.
func TestProposalOnlyIsNeverApplied(t *testing.T) {
	root := t.TempDir()
	s := New(Options{})
	if _, err := s.Initialize(t.Context(), &protocol.InitializeParams{}); err != nil {
		t.Fatal(err)
	}
	w := &workspace{root: root, review: reviewApply}
	s.review.setMode(root, reviewApply)
	f := &editorFS{s: s, w: w}
	if f.Proposes() {
		t.Fatal("a workspace in apply mode proposes")
	}
	path := filepath.Join(root, "a.go")
	err := f.Apply(tools.WithProposalOnly(t.Context()), []tools.Change{{Kind: tools.Write, Path: path, Content: []byte("package a\n")}})
	if !errors.Is(err, tools.ErrNotPermitted) {
		t.Fatalf("Apply = %v, want a refusal wrapping ErrNotPermitted", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a.go was written (stat: %v)", err)
	}
}
