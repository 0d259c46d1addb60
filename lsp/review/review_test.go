package review

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const calc = `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Sub returns a minus b.
func Sub(a, b int) int {
	return a + b
}
`

// fixed is calc with both bodies fixed and a comment added: three hunks.
var fixed = strings.NewReplacer(
	"\treturn a - b\n", "\treturn a + b\n",
	"\treturn a + b\n}\n", "\treturn a - b\n}\n",
	"// Sub returns a minus b.\n", "// Sub returns a minus b.\n// It is the inverse of Add.\n",
).Replace(calc)

func propose(t *testing.T, current, want string) (*Store, File) {
	t.Helper()
	s := NewStore()
	s.Propose("sess", "/w/calc.go", current, true, &want)
	f, ok := s.Pending("/w/calc.go", current)
	if !ok {
		t.Fatal("nothing pending")
	}
	return s, f
}

func TestSplitIntoHunks(t *testing.T) {
	want := strings.Replace(strings.Replace(calc, "\treturn a - b\n", "\treturn a + b\n", 1),
		"// Sub returns a minus b.\n", "// Sub returns a minus b.\n// It is the inverse of Add.\n", 1)
	_, f := propose(t, calc, want)
	if len(f.Hunks) != 2 {
		t.Fatalf("%d hunks, want 2: %+v", len(f.Hunks), f.Hunks)
	}
	h0, h1 := f.Hunks[0], f.Hunks[1]
	if h0.Old != "\treturn a - b\n" || h0.New != "\treturn a + b\n" || h0.Stale {
		t.Errorf("first hunk %+v", h0)
	}
	if h1.Old != "" || h1.New != "// It is the inverse of Add.\n" {
		t.Errorf("second hunk (an insertion) %+v", h1)
	}
	if Line(calc, h0.Start) != 4 || Line(calc, h1.Start) != 8 {
		t.Errorf("hunks at lines %d and %d, want 4 and 8", Line(calc, h0.Start), Line(calc, h1.Start))
	}
	if h0.ID == h1.ID || h0.ID == 0 {
		t.Errorf("ids %d, %d", h0.ID, h1.ID)
	}
}

func TestViewIsTheProposedText(t *testing.T) {
	s, _ := propose(t, calc, fixed)
	text, deleted, ok := s.View("/w/calc.go", calc)
	if !ok || deleted || text != fixed {
		t.Fatalf("view = %q, %v, %v; want the proposed text", text, deleted, ok)
	}
	if _, _, ok := s.View("/w/other.go", calc); ok {
		t.Error("a file without proposal has a view")
	}
}

// TestReanchor: text the user inserts above a hunk moves it; an edit to the
// lines a hunk replaces makes it stale, and it is left out of the view.
func TestReanchor(t *testing.T) {
	s, f := propose(t, calc, fixed)
	if len(f.Hunks) != 3 {
		t.Fatalf("%d hunks, want 3", len(f.Hunks))
	}
	user := "// Copyright the authors.\n\n" + calc
	f, _ = s.Pending("/w/calc.go", user)
	for _, h := range f.Hunks {
		if h.Stale {
			t.Errorf("hunk %d stale after an edit above it", h.ID)
		}
	}
	if got := Line(user, f.Hunks[0].Start); got != 6 {
		t.Errorf("first hunk at line %d after two lines were added above, want 6", got)
	}
	text, _, _ := s.View("/w/calc.go", user)
	if text != "// Copyright the authors.\n\n"+fixed {
		t.Errorf("view after the user's edit:\n%s", text)
	}

	user = strings.Replace(user, "\treturn a - b\n", "\treturn b - a\n", 1)
	f, _ = s.Pending("/w/calc.go", user)
	if !f.Hunks[0].Stale || f.Hunks[1].Stale || f.Hunks[2].Stale {
		t.Fatalf("after an edit inside the first hunk: stale %v %v %v, want only the first",
			f.Hunks[0].Stale, f.Hunks[1].Stale, f.Hunks[2].Stale)
	}
	text, _, _ = s.View("/w/calc.go", user)
	if !strings.Contains(text, "return b - a") || !strings.Contains(text, "It is the inverse") {
		t.Errorf("view keeps the user's line and the live hunks:\n%s", text)
	}
	if _, err := s.Take("/w/calc.go", user, f.Hunks[0].ID); !errors.Is(err, ErrStale) {
		t.Errorf("taking a stale hunk: %v, want ErrStale", err)
	}
}

// TestTakeOneThenRestore: a taken hunk leaves the others pending and found
// in the new text; Restore puts it back.
func TestTakeOneThenRestore(t *testing.T) {
	s, f := propose(t, calc, fixed)
	id := f.Hunks[1].ID
	tk, err := s.Take("/w/calc.go", calc, id)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(calc, "// Sub returns a minus b.\n", "// Sub returns a minus b.\n// It is the inverse of Add.\n", 1)
	if tk.Text != want {
		t.Fatalf("text with one hunk:\n%s", tk.Text)
	}
	f, _ = s.Pending("/w/calc.go", tk.Text)
	if len(f.Hunks) != 2 || f.Hunks[0].Stale || f.Hunks[1].Stale {
		t.Fatalf("after taking one: %+v", f.Hunks)
	}
	if text, _, _ := s.View("/w/calc.go", tk.Text); text != fixed {
		t.Errorf("view after accepting one hunk:\n%s", text)
	}
	tk.Restore()
	f, _ = s.Pending("/w/calc.go", calc)
	if len(f.Hunks) != 3 {
		t.Errorf("%d hunks after Restore, want 3", len(f.Hunks))
	}
	// All at once.
	tk, err = s.Take("/w/calc.go", calc, 0)
	if err != nil || tk.Text != fixed || s.Has("/w/calc.go") {
		t.Errorf("take all: %v, text ok %v, still pending %v", err, tk != nil && tk.Text == fixed, s.Has("/w/calc.go"))
	}
}

func TestRejectTellsTheSession(t *testing.T) {
	s, f := propose(t, calc, fixed)
	n, err := s.Reject("/w/calc.go", calc, f.Hunks[0].ID)
	if err != nil || n != 1 {
		t.Fatalf("reject: %d, %v", n, err)
	}
	text, _, _ := s.View("/w/calc.go", calc)
	if strings.Contains(text, "return a + b\n}\n\n// Sub") {
		t.Errorf("a rejected hunk is still in the view:\n%s", text)
	}
	rs := s.TakeRejections("sess")
	if len(rs) != 1 || rs[0].Hunk.Old != "\treturn a - b\n" || rs[0].Path != "/w/calc.go" {
		t.Fatalf("rejections %+v", rs)
	}
	if rs := s.TakeRejections("sess"); len(rs) != 0 {
		t.Errorf("rejections told twice: %+v", rs)
	}
	// A turn that asked the model nothing gives them back.
	s.ReturnRejections("sess", rs)
	if again := s.TakeRejections("sess"); len(again) != 1 || again[0].Hunk.ID != rs[0].Hunk.ID {
		t.Errorf("rejections given back: %+v", again)
	}
	if _, err := s.Reject("/w/calc.go", calc, 9999); !errors.Is(err, ErrNoProposal) {
		t.Errorf("rejecting an unknown hunk: %v", err)
	}
}

func TestCreateAndDelete(t *testing.T) {
	s := NewStore()
	body := "package calc\n\nconst Pi = 3\n"
	s.Propose("sess", "/w/pi.go", "", false, &body)
	f, ok := s.Pending("/w/pi.go", "")
	if !ok || f.Kind != Create || len(f.Hunks) != 1 || f.Hunks[0].New != body {
		t.Fatalf("create: %+v", f)
	}
	if text, deleted, ok := s.View("/w/pi.go", ""); !ok || deleted || text != body {
		t.Errorf("view of a created file: %q", text)
	}
	s.Propose("sess", "/w/calc.go", calc, true, nil)
	if _, deleted, _ := s.View("/w/calc.go", calc); !deleted {
		t.Error("a proposed deletion is not seen as one")
	}
	tk, err := s.Take("/w/calc.go", calc, 0)
	if err != nil || !tk.Delete {
		t.Errorf("taking a deletion: %+v, %v", tk, err)
	}
	// Deleting a file that is only proposed leaves nothing.
	s.Propose("sess", "/w/pi.go", "", false, nil)
	if s.Has("/w/pi.go") {
		t.Error("deleting a proposed new file left a proposal")
	}
}

func TestUnified(t *testing.T) {
	s, _ := propose(t, calc, fixed)
	f, _ := s.Pending("/w/calc.go", calc)
	got := Unified("calc.go", calc, f)
	want := `--- a/calc.go
+++ b/calc.go
@@ -5,1 +5,1 @@
-	return a - b
+	return a + b
@@ -8,0 +9,1 @@
+// It is the inverse of Add.
@@ -10,1 +11,1 @@
-	return a + b
+	return a - b
`
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
}

// BenchmarkRelocate finds 100 hunks of a 10,000-line file again after the
// user added a line above them all, as each keystroke's diagnostics do.
func BenchmarkRelocate(b *testing.B) {
	var old, want strings.Builder
	for i := range 10000 {
		line := fmt.Sprintf("\tx%d := f(%d)\n", i, i)
		old.WriteString(line)
		if i%100 == 50 {
			line = fmt.Sprintf("\tx%d := g(%d)\n", i, i)
		}
		want.WriteString(line)
	}
	s := NewStore()
	w := want.String()
	s.Propose("", "/w/big.go", old.String(), true, &w)
	user := "// edited\n" + old.String()
	b.ReportAllocs()
	for b.Loop() {
		f, _ := s.Pending("/w/big.go", user)
		if len(f.Hunks) != 100 || f.Hunks[0].Stale {
			b.Fatalf("%d hunks", len(f.Hunks))
		}
	}
}

// shelled is calc after a command fixed both bodies on disk.
var shelled = strings.NewReplacer(
	"\treturn a - b\n", "\treturn a + b\n",
	"\treturn a + b\n}\n", "\treturn a - b\n}\n",
).Replace(calc)

func TestRecordAppliedChange(t *testing.T) {
	s := NewStore()
	const path = "/w/calc.go"
	s.Record("sess", path, calc, shelled)
	if s.Proposes(path) || !s.Has(path) {
		t.Fatalf("Proposes %v, Has %v: want an applied change only", s.Proposes(path), s.Has(path))
	}
	if view, _, _ := s.View(path, shelled); view != shelled {
		t.Errorf("the agent's view of an applied change is not the disk:\n%s", view)
	}
	f, _ := s.Pending(path, shelled)
	if len(f.Hunks) != 2 {
		t.Fatalf("%d hunks, want 2", len(f.Hunks))
	}
	h0, h1 := f.Hunks[0], f.Hunks[1]
	if !h1.Applied || h1.Old != "\treturn a + b\n" {
		t.Errorf("second hunk %+v", h1)
	}
	if !h0.Applied || h0.Old != "\treturn a - b\n" || h0.New != "\treturn a + b\n" || h0.Stale {
		t.Errorf("first hunk %+v", h0)
	}
	if got := shelled[h0.Start:h0.End]; got != h0.New {
		t.Errorf("first hunk found at %q, want its new text", got)
	}

	// The same command's change reported again (the text before is the
	// turn's) replaces, not doubles, the hunks.
	s.Record("sess", path, calc, shelled)
	if f, _ = s.Pending(path, shelled); len(f.Hunks) != 2 {
		t.Fatalf("%d hunks after recording again, want 2", len(f.Hunks))
	}
	h0 = f.Hunks[0]

	// Reject the first: it is reverted, the second stays.
	r, err := s.Revert(path, shelled, h0.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantText := strings.Replace(shelled, "\treturn a + b\n", "\treturn a - b\n", 1)
	if r.Text != wantText {
		t.Fatalf("reverted text:\n%s", r.Text)
	}
	r.Reverted()
	if rs := s.TakeRejections("sess"); len(rs) != 1 || !rs[0].Hunk.Applied {
		t.Errorf("rejections %+v", rs)
	}
	// Accept the second: the text is unchanged, nothing stays pending.
	a, err := s.Take(path, r.Text, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Changes() || a.Text != r.Text {
		t.Errorf("accepting an applied change changes the text: %v", a.Changes())
	}
	if s.Has(path) {
		t.Error("still pending")
	}
}

func TestRevertRefusesProposals(t *testing.T) {
	s, f := propose(t, calc, fixed)
	if _, err := s.Revert("/w/calc.go", calc, f.Hunks[0].ID); !errors.Is(err, ErrNotApplied) {
		t.Errorf("Revert of a proposal: %v, want ErrNotApplied", err)
	}
}

func TestProposalKeepsAppliedChanges(t *testing.T) {
	s := NewStore()
	const path = "/w/calc.go"
	s.Record("sess", path, calc, shelled)
	// The agent then proposes a comment elsewhere: its view is the disk.
	want := strings.Replace(shelled, "// Sub returns a minus b.\n", "// Sub returns a minus b.\n// Inverse of Add.\n", 1)
	s.Propose("sess", path, shelled, true, &want)
	f, _ := s.Pending(path, shelled)
	applied := 0
	for _, h := range f.Hunks {
		if h.Applied {
			applied++
		}
	}
	if len(f.Hunks) != 3 || applied != 2 || !s.Proposes(path) {
		t.Fatalf("hunks %+v", f.Hunks)
	}
	if view, _, _ := s.View(path, shelled); view != want {
		t.Errorf("view:\n%s", view)
	}
}

func TestUnifiedMarksAppliedChanges(t *testing.T) {
	s := NewStore()
	s.Record("sess", "/w/calc.go", calc, shelled)
	f, _ := s.Pending("/w/calc.go", shelled)
	d := Unified("calc.go", shelled, f)
	for _, want := range []string{
		fmt.Sprintf("# made by a shell command, already on disk: change %d (line 5)\n", f.Hunks[0].ID),
		"-\treturn a - b\n+\treturn a + b\n",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
}

func TestRecordCreatedAndDeleted(t *testing.T) {
	s := NewStore()
	const made, gone = "/w/new.txt", "/w/old.txt"
	s.RecordCreated("sess", made, "x\n")
	s.RecordDeleted("sess", gone, calc)
	if s.Proposes(made) || s.Proposes(gone) {
		t.Fatal("a file a command created or deleted is not proposed: it is made already")
	}
	if view, deleted, _ := s.View(gone, ""); !deleted || view != "" {
		t.Errorf("the agent sees the deleted file: %q, deleted %v", view, deleted)
	}
	f, _ := s.Pending(made, "x\n")
	if f.Kind != Create || len(f.Hunks) != 1 || !f.Hunks[0].Created || f.Hunks[0].Stale {
		t.Fatalf("created file %+v", f)
	}
	f, _ = s.Pending(gone, "")
	if f.Kind != Delete || len(f.Hunks) != 1 || !f.Hunks[0].Delete || !f.Hunks[0].Applied || f.Hunks[0].Stale {
		t.Fatalf("deleted file %+v", f)
	}

	// Rejecting the created file removes it; a failed removal leaves it
	// to review as it was.
	r, err := s.Revert(made, "x\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Delete || r.Create || r.Text != "" || s.Has(made) {
		t.Fatalf("revert of a created file: %+v, still pending %v", r, s.Has(made))
	}
	r.Restore()
	if f, _ = s.Pending(made, "x\n"); f.Kind != Create || len(f.Hunks) != 1 {
		t.Fatalf("restored %+v", f)
	}

	// Rejecting the deleted file creates it again with its text, and
	// tells the session.
	r, err = s.Revert(gone, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Create || r.Delete || r.Text != calc {
		t.Fatalf("revert of a deleted file: %+v", r)
	}
	r.Reverted()
	if rs := s.TakeRejections("sess"); len(rs) != 1 || !rs[0].Hunk.Delete || rs[0].Hunk.Old != calc {
		t.Fatalf("rejections %+v", rs)
	}

	// Accepting changes nothing.
	a, err := s.Take(made, "x\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Changes() || s.Has(made) {
		t.Fatalf("accepting a created file: changes %v, pending %v", a.Changes(), s.Has(made))
	}

	// A user who edits the created file makes the change stale: it is
	// forgotten, never reverted.
	s.RecordCreated("sess", made, "x\n")
	if _, err := s.Revert(made, "y\n", 0); err == nil {
		t.Fatal("reverted a created file the user edited since")
	}

	// A later command that writes the deleted file back leaves an edit
	// to review.
	s.RecordDeleted("sess", gone, calc)
	s.Record("sess", gone, calc, shelled)
	if f, _ = s.Pending(gone, shelled); f.Kind != Edit || len(f.Hunks) != 2 {
		t.Fatalf("deleted then written again: %+v", f)
	}
}

// TestWithdraw drops one session's proposals on the files named, and its
// untold rejections there, and leaves everything else pending.
func TestWithdraw(t *testing.T) {
	s := NewStore()
	want := fixed
	s.Propose("a", "/w/calc.go", calc, true, &want)
	s.Propose("a", "/w/rejected.go", calc, true, &want)
	s.Propose("a", "/w/other.go", calc, true, &want)
	s.Propose("b", "/w/theirs.go", calc, true, &want)
	f, _ := s.Pending("/w/rejected.go", calc)
	if _, err := s.Reject("/w/rejected.go", calc, f.Hunks[0].ID); err != nil {
		t.Fatal(err)
	}
	gen := s.Generation()

	got := s.Withdraw("a", []string{"/w/theirs.go", "/w/calc.go", "/w/rejected.go", "/w/calc.go", "/w/none.go"})
	if strings.Join(got, ",") != "/w/calc.go,/w/rejected.go" {
		t.Errorf("withdrawn %v, want calc.go and rejected.go", got)
	}
	if strings.Join(s.Paths(), ",") != "/w/other.go,/w/theirs.go" {
		t.Errorf("pending after: %v", s.Paths())
	}
	if rs := s.TakeRejections("a"); len(rs) != 0 {
		t.Errorf("rejections on a withdrawn file are still to be told: %+v", rs)
	}
	if s.Generation() == gen {
		t.Error("the generation did not change")
	}
	if got := s.Withdraw("a", []string{"/w/none.go"}); len(got) != 0 {
		t.Errorf("withdrew %v from a file with nothing pending", got)
	}
}

// TestTakeHunks: hunks taken together make one text with all of them,
// adjacent ones included; a set naming a hunk that is not pending takes
// none.
func TestTakeHunks(t *testing.T) {
	s, f := propose(t, calc, fixed)
	if _, err := s.TakeHunks("/w/calc.go", calc, []int{f.Hunks[1].ID, 999}); !errors.Is(err, ErrNoProposal) {
		t.Fatalf("TakeHunks with an unknown hunk: %v, want ErrNoProposal", err)
	}
	if got, _ := s.Pending("/w/calc.go", calc); len(got.Hunks) != 3 {
		t.Fatalf("%d hunks pending after a refused TakeHunks, want 3", len(got.Hunks))
	}
	tk, err := s.TakeHunks("/w/calc.go", calc, []int{f.Hunks[1].ID, f.Hunks[2].ID})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(fixed, "\treturn a + b\n}\n\n// Sub", "\treturn a - b\n}\n\n// Sub", 1)
	if tk.Text != want || len(tk.Hunks) != 2 {
		t.Fatalf("TakeHunks took %d hunks, text:\n%s", len(tk.Hunks), tk.Text)
	}
	rest, _ := s.Pending("/w/calc.go", tk.Text)
	if len(rest.Hunks) != 1 || rest.Hunks[0].ID != f.Hunks[0].ID || rest.Hunks[0].Stale {
		t.Errorf("left pending: %+v, want Add's hunk alone", rest.Hunks)
	}
}
