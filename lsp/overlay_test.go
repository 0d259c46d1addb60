package lsp

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
)

func partialChange(sl, sc, el, ec uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{Range: protocol.Range{
		Start: protocol.Position{Line: sl, Character: sc},
		End:   protocol.Position{Line: el, Character: ec},
	}, Text: text}
}

func wholeChange(text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangeWholeDocument{Text: text}
}

func TestOverlayChange(t *testing.T) {
	const initial = "package a\n\nfunc f() {\n\treturn // 😀 here\n}\n"
	tests := []struct {
		name    string
		changes []protocol.TextDocumentContentChangeEvent
		enc     wire.Encoding
		want    string // the text after, or initial on error
		wantErr bool
	}{
		{"none", nil, wire.UTF16, initial, false},
		{"whole", []protocol.TextDocumentContentChangeEvent{wholeChange("x\n")}, wire.UTF16, "x\n", false},
		{"insert", []protocol.TextDocumentContentChangeEvent{partialChange(0, 9, 0, 9, "_test")}, wire.UTF16,
			"package a_test\n\nfunc f() {\n\treturn // 😀 here\n}\n", false},
		{"delete a line", []protocol.TextDocumentContentChangeEvent{partialChange(1, 0, 2, 0, "")}, wire.UTF16,
			"package a\nfunc f() {\n\treturn // 😀 here\n}\n", false},
		{"after an emoji, utf-16", []protocol.TextDocumentContentChangeEvent{partialChange(3, 14, 3, 18, "there")}, wire.UTF16,
			"package a\n\nfunc f() {\n\treturn // 😀 there\n}\n", false},
		{"after an emoji, utf-8", []protocol.TextDocumentContentChangeEvent{partialChange(3, 16, 3, 20, "there")}, wire.UTF8,
			"package a\n\nfunc f() {\n\treturn // 😀 there\n}\n", false},
		{"after an emoji, utf-32", []protocol.TextDocumentContentChangeEvent{partialChange(3, 13, 3, 17, "there")}, wire.UTF32,
			"package a\n\nfunc f() {\n\treturn // 😀 there\n}\n", false},
		{"append at the end of the document", []protocol.TextDocumentContentChangeEvent{partialChange(5, 0, 5, 0, "// end\n")}, wire.UTF16,
			initial + "// end\n", false},
		{
			// Each change applies to the text the one before it left.
			"several in order",
			[]protocol.TextDocumentContentChangeEvent{
				partialChange(0, 8, 0, 9, "b"),
				partialChange(0, 9, 0, 9, "c"),
				wholeChange("one\ntwo\n"),
				partialChange(1, 0, 1, 3, "2"),
				partialChange(0, 0, 0, 0, "zero\n"),
			},
			wire.UTF16, "zero\none\n2\n", false,
		},
		{"line past the end", []protocol.TextDocumentContentChangeEvent{partialChange(7, 0, 7, 0, "x")}, wire.UTF16, initial, true},
		{"end before start", []protocol.TextDocumentContentChangeEvent{partialChange(2, 0, 1, 0, "x")}, wire.UTF16, initial, true},
		{
			// A bad change after good ones: none of them sticks.
			"bad after good",
			[]protocol.TextDocumentContentChangeEvent{wholeChange("a\n"), partialChange(0, 0, 0, 1, "b"), partialChange(9, 0, 9, 0, "x")},
			wire.UTF16, initial, true,
		},
		{"nil change", []protocol.TextDocumentContentChangeEvent{nil}, wire.UTF16, initial, true},
		{"nil partial", []protocol.TextDocumentContentChangeEvent{(*protocol.TextDocumentContentChangePartial)(nil)}, wire.UTF16, initial, true},
	}
	u := uri.File(filepath.Join(t.TempDir(), "a.go"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newOverlay()
			o.open(u, "go", 1, initial)
			before, _ := o.get(u)
			err := o.change(u, 2, tt.changes, tt.enc)
			if (err != nil) != tt.wantErr {
				t.Fatalf("change: err = %v, want error %v", err, tt.wantErr)
			}
			got, ok := o.get(u)
			if !ok {
				t.Fatal("document is gone")
			}
			if got.Text != tt.want {
				t.Errorf("text = %q, want %q", got.Text, tt.want)
			}
			wantVersion := int32(2)
			if tt.wantErr {
				wantVersion = 1
			}
			if got.Version != wantVersion {
				t.Errorf("version = %d, want %d", got.Version, wantVersion)
			}
			if before.Text != initial || before.Version != 1 {
				t.Errorf("a snapshot taken before the change sees it: %+v", before)
			}
		})
	}
}

func TestOverlayChangeUnknown(t *testing.T) {
	o := newOverlay()
	u := uri.File(filepath.Join(t.TempDir(), "a.go"))
	if err := o.change(u, 2, []protocol.TextDocumentContentChangeEvent{wholeChange("x")}, wire.UTF16); err == nil {
		t.Error("change to a document that is not open succeeded")
	}
	if _, ok := o.get(u); ok {
		t.Error("change to a document that is not open opened it")
	}
}

func TestOverlayVersionNotIncreasing(t *testing.T) {
	o := newOverlay()
	u := uri.File(filepath.Join(t.TempDir(), "a.go"))
	o.open(u, "go", 5, "a")
	if err := o.change(u, 3, []protocol.TextDocumentContentChangeEvent{wholeChange("b")}, wire.UTF16); err != nil {
		t.Fatal(err)
	}
	if d, _ := o.get(u); d.Version != 3 || d.Text != "b" {
		t.Errorf("got version %d text %q, want 3 %q", d.Version, d.Text, "b")
	}
}

func TestOverlayOpenCloseLookup(t *testing.T) {
	dir := t.TempDir()
	aPath, bPath := filepath.Join(dir, "a.go"), filepath.Join(dir, "sub", "b.go")
	a, b := uri.File(aPath), uri.File(bPath)
	untitled, err := uri.Parse("untitled:Untitled-1")
	if err != nil {
		t.Fatal(err)
	}

	o := newOverlay()
	o.open(b, "go", 1, "package b\n")
	o.open(a, "go", 1, "package a\n")
	o.open(untitled, "markdown", 1, "# notes\n")

	d, ok := o.get(a)
	want := document{URI: a, Path: aPath, LanguageID: "go", Version: 1, Text: "package a\n"}
	if !ok || d != want {
		t.Errorf("get(a) = %+v, %v; want %+v", d, ok, want)
	}
	if d, ok := o.get(untitled); !ok || d.Path != "" || d.Text != "# notes\n" {
		t.Errorf("get(untitled) = %+v, %v", d, ok)
	}

	for _, p := range []string{bPath, filepath.Join(dir, "sub", ".", "b.go"), filepath.Join(dir, "x", "..", "sub", "b.go")} {
		if d, ok := o.byPath(p); !ok || d.URI != b {
			t.Errorf("byPath(%q) = %v, %v; want %v", p, d.URI, ok, b)
		}
	}
	for _, p := range []string{"", filepath.Join(dir, "c.go")} {
		if d, ok := o.byPath(p); ok {
			t.Errorf("byPath(%q) found %v", p, d.URI)
		}
	}

	var paths []string
	for _, d := range o.all() {
		paths = append(paths, d.Path)
	}
	if want := []string{"", aPath, bPath}; !slices.Equal(paths, want) {
		t.Errorf("all() paths = %q, want %q", paths, want)
	}

	// Opening again replaces.
	o.open(a, "go", 7, "package aa\n")
	if d, _ := o.get(a); d.Version != 7 || d.Text != "package aa\n" {
		t.Errorf("after reopening, get(a) = %+v", d)
	}

	o.close(a)
	o.close(a) // closing twice is harmless
	if _, ok := o.get(a); ok {
		t.Error("get(a) after close found it")
	}
	if _, ok := o.byPath(aPath); ok {
		t.Error("byPath(a) after close found it")
	}
	if n := len(o.all()); n != 2 {
		t.Errorf("all() after close has %d documents, want 2", n)
	}
}

// TestOverlayConcurrent is for the race detector: the server reads the
// overlay from request handlers while notifications change it.
func TestOverlayConcurrent(t *testing.T) {
	o := newOverlay()
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 4 {
		u := uri.File(filepath.Join(dir, fmt.Sprintf("%d.go", i)))
		wg.Go(func() {
			o.open(u, "go", 1, "")
			for v := range int32(100) {
				if err := o.change(u, v+2, []protocol.TextDocumentContentChangeEvent{partialChange(0, 0, 0, 0, "x")}, wire.UTF16); err != nil {
					t.Error(err)
					return
				}
				o.get(u)
				o.byPath(u.FsPath())
				o.all()
			}
		})
	}
	wg.Wait()
	for _, d := range o.all() {
		if d.Text != strings.Repeat("x", 100) {
			t.Errorf("%s: text %q, want 100 x", d.Path, d.Text)
		}
	}
}
