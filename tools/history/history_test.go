package history

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/reasonix/reasonix/tools"
)

// writeSession writes a session file as the agent's Store does: a meta
// record, then one record per message (role: text).
func writeSession(t testing.TB, dir, id, root string, msgs ...string) {
	t.Helper()
	var b strings.Builder
	line := func(v any) {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	line(map[string]any{"type": "meta", "meta": map[string]any{"id": id, "root": root, "created": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}})
	for _, m := range msgs {
		role, text, _ := strings.Cut(m, ": ")
		line(map[string]any{"type": "message", "message": map[string]any{"role": role, "content": text}})
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+sessionSuffix), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func rank(t *testing.T, x *Index, q tools.HistoryQuery) []string {
	t.Helper()
	hits, err := x.Rank(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Session+"#"+strconv.Itoa(h.Index))
	}
	return out
}

// corpus is a fixed store: two sessions in /p, one in /q.
func corpus(t *testing.T) (*Index, string) {
	dir := t.TempDir()
	writeSession(t, dir, "20261101-000000-aaaaaa", "/p",
		"user: how do we deploy the staging server",
		"assistant: run make deploy with STAGE=staging; the deploy token lives in vault",
		"user: and the database migrations",
		"assistant: migrations run from cmd/migrate before deploy")
	writeSession(t, dir, "20261102-000000-bbbbbb", "/p",
		"user: the flaky test in lsp is TestCodeActionRace",
		"assistant: it races on the overlay map; a mutex fixes it",
		"user: thanks")
	writeSession(t, dir, "20261103-000000-cccccc", "/q",
		"user: deploy token rotation for the billing service",
		"assistant: rotate the token in vault every 90 days")
	return New(dir, nil), dir
}

func TestRankBM25(t *testing.T) {
	x, _ := corpus(t)
	got := rank(t, x, tools.HistoryQuery{Query: "deploy token", Root: "/p"})
	// The message holding both words, once each in a short text, beats
	// the ones holding only "deploy".
	if len(got) == 0 || got[0] != "20261101-000000-aaaaaa#1" {
		t.Fatalf("project hits %v, want aaaaaa#1 first", got)
	}
	for _, h := range got {
		if strings.HasPrefix(h, "20261103") {
			t.Errorf("project scope returned %s from another workspace", h)
		}
	}
	got = rank(t, x, tools.HistoryQuery{Query: "token rotation", Global: true})
	if len(got) == 0 || got[0] != "20261103-000000-cccccc#0" {
		t.Fatalf("global hits %v, want cccccc#0 first", got)
	}
	got = rank(t, x, tools.HistoryQuery{Query: "TestCodeActionRace overlay mutex", Root: "/p"})
	if strings.Join(got, " ") != "20261102-000000-bbbbbb#1 20261102-000000-bbbbbb#0" {
		t.Errorf("hits %v", got)
	}
}

func TestScoreFloor(t *testing.T) {
	dir := t.TempDir()
	msgs := []string{"user: the quasar flux capacitor broke the build"}
	// Many messages that share only the common word "build".
	for range 30 {
		msgs = append(msgs, "assistant: the build is green again after a rebuild of the build cache build")
	}
	writeSession(t, dir, "20261101-000000-aaaaaa", "/p", msgs...)
	x := New(dir, nil)
	got := rank(t, x, tools.HistoryQuery{Query: "quasar build", Root: "/p", Limit: 20})
	if len(got) != 1 || got[0] != "20261101-000000-aaaaaa#0" {
		t.Errorf("hits %v, want only the one with the rare word", got)
	}
}

func TestSearchTextAndZeroHits(t *testing.T) {
	x, _ := corpus(t)
	out, err := x.Search(t.Context(), tools.HistoryQuery{Query: "deploy token", Root: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"session 20261101-000000-aaaaaa index 1 (assistant, 2026-11-01", "deploy token lives in vault", `operation "around"`} {
		if !strings.Contains(out, want) {
			t.Errorf("search answer lacks %q:\n%s", want, out)
		}
	}
	out, err = x.Search(t.Context(), tools.HistoryQuery{Query: "billing", Root: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"No message in this workspace's saved sessions matches", "fewer or other words", `scope "global"`} {
		if !strings.Contains(out, want) {
			t.Errorf("zero-hit answer lacks %q:\n%s", want, out)
		}
	}
}

func TestAround(t *testing.T) {
	x, _ := corpus(t)
	out, err := x.Around(t.Context(), "20261101-000000-aaaaaa", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"messages 1 to 3 of 4", "[1 assistant]", "[2 user] <- the hit\nand the database migrations", "[3 assistant]"} {
		if !strings.Contains(out, want) {
			t.Errorf("around lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[0 user]") {
		t.Errorf("around reaches past its radius:\n%s", out)
	}
	for _, c := range []struct {
		session string
		index   int
		want    string
	}{
		{"20261101-000000-aaaaaa", 9, "index 9 is outside"},
		{"../etc", 0, "no saved session"},
		{"20991231-000000-ffffff", 0, "no saved session"},
	} {
		if _, err := x.Around(t.Context(), c.session, c.index, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Around(%s, %d) = %v, want %q", c.session, c.index, err, c.want)
		}
	}
}

func TestCurrentTurnAndArchive(t *testing.T) {
	dir := t.TempDir()
	id := "20261101-000000-aaaaaa"
	writeSession(t, dir, id, "/p",
		"user: summary of earlier work",
		"user: where is the zebra config",
		"assistant: looking for zebra")
	// An archive whose first block was cut short and repeated: the
	// message of the first attempt counts once.
	archive := `{"type":"compaction","compaction":{"seq":1}}
{"type":"message","message":{"role":"assistant","content":"zebra lives in conf/zebra.toml"}}
{"type":"compaction","compaction":{"seq":1}}
{"type":"message","message":{"role":"assistant","content":"zebra lives in conf/zebra.toml"}}
{"type":"message","message":{"role":"user","content":"ok"}}
`
	if err := os.WriteFile(filepath.Join(dir, id+archiveSuffix), []byte(archive), 0o600); err != nil {
		t.Fatal(err)
	}
	x := New(dir, nil)
	got := rank(t, x, tools.HistoryQuery{Query: "zebra", Root: "/p", Current: id, Limit: 20})
	// Archive messages come first: 0 and 1, then the session's 2..4.
	// The last turn (4 on) is the asking session's own.
	if strings.Join(got, " ") != id+"#0" {
		t.Errorf("hits %v, want only the archived message", got)
	}
	got = rank(t, x, tools.HistoryQuery{Query: "zebra", Root: "/p", Limit: 20})
	if len(got) != 3 {
		t.Errorf("from another session: hits %v, want 3", got)
	}
}

func TestCacheFollowsChanges(t *testing.T) {
	x, dir := corpus(t)
	rank(t, x, tools.HistoryQuery{Query: "deploy", Root: "/p"})
	first := x.files["20261102-000000-bbbbbb"]
	rank(t, x, tools.HistoryQuery{Query: "deploy", Root: "/p"})
	if x.files["20261102-000000-bbbbbb"] != first {
		t.Error("an unchanged session was indexed again")
	}
	writeSession(t, dir, "20261102-000000-bbbbbb", "/p", "user: the walrus deploy", "assistant: done")
	if got := rank(t, x, tools.HistoryQuery{Query: "walrus", Root: "/p"}); len(got) != 1 {
		t.Errorf("a changed session was not indexed again: %v", got)
	}
	os.Remove(filepath.Join(dir, "20261102-000000-bbbbbb"+sessionSuffix))
	if got := rank(t, x, tools.HistoryQuery{Query: "walrus", Root: "/p"}); len(got) != 0 {
		t.Errorf("a removed session is still found: %v", got)
	}
}

func TestForbiddenStore(t *testing.T) {
	x, _ := corpus(t)
	x.Check = func(string) error { return os.ErrPermission }
	if _, err := x.Search(t.Context(), tools.HistoryQuery{Query: "deploy", Root: "/p"}); err == nil {
		t.Error("a forbidden store was searched")
	}
}

func TestProjectSearchIndexesOnlyItsSessions(t *testing.T) {
	x, dir := corpus(t)
	const other = "20261103-000000-cccccc"
	if got := rank(t, x, tools.HistoryQuery{Query: "vault", Root: "/p"}); len(got) != 1 || got[0] != "20261101-000000-aaaaaa#1" {
		t.Errorf("project vault: %v", got)
	}
	if s := x.files[other]; s == nil || s.ready || len(s.msgs) != 0 || s.root != "/q" {
		t.Errorf("a project search indexed another workspace's session: %+v", s)
	}
	peeked := x.files[other]
	rank(t, x, tools.HistoryQuery{Query: "vault", Root: "/p"})
	if x.files[other] != peeked {
		t.Error("an unchanged session of another workspace was read again")
	}
	// The first global search indexes it.
	got := rank(t, x, tools.HistoryQuery{Query: "vault rotate", Global: true})
	if len(got) == 0 || got[0] != other+"#1" {
		t.Errorf("global after project: %v, want %s#1 first", got, other)
	}
	if s := x.files[other]; s == nil || !s.ready {
		t.Error("a global search left a session unindexed")
	}
	// A session changed since it was indexed, or peeked at, is read again.
	writeSession(t, dir, other, "/q", "user: the narwhal billing job", "assistant: fixed")
	if got := rank(t, x, tools.HistoryQuery{Query: "narwhal", Global: true}); len(got) != 1 || got[0] != other+"#0" {
		t.Errorf("changed after a global search: %v", got)
	}
	if got := rank(t, x, tools.HistoryQuery{Query: "vault rotate", Global: true}); slices.Contains(got, other+"#1") {
		t.Errorf("the old text of a changed session is still found: %v", got)
	}
	writeSession(t, dir, other, "/q", "user: the okapi billing job")
	rank(t, x, tools.HistoryQuery{Query: "okapi", Root: "/p"})
	if got := rank(t, x, tools.HistoryQuery{Query: "okapi", Global: true}); len(got) != 1 {
		t.Errorf("changed after a project search: %v", got)
	}
	// A session that moves into the project is indexed by its search.
	writeSession(t, dir, other, "/p", "user: the okapi moved")
	if got := rank(t, x, tools.HistoryQuery{Query: "okapi", Root: "/p"}); len(got) != 1 || got[0] != other+"#0" {
		t.Errorf("a session now in the project: %v", got)
	}
	// Around reads a peeked session whole.
	writeSession(t, dir, other, "/q", "user: first", "assistant: second")
	rank(t, x, tools.HistoryQuery{Query: "okapi", Root: "/p"})
	out, err := x.Around(t.Context(), other, 1, 1)
	if err != nil || !strings.Contains(out, "second") {
		t.Errorf("around a peeked session: %q, %v", out, err)
	}
	// A file that does not begin with its meta line is read whole to
	// find its workspace.
	writeSession(t, dir, other, "/q", "user: the quokka")
	path := filepath.Join(dir, other+sessionSuffix)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append([]byte("{torn\n"), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := rank(t, x, tools.HistoryQuery{Query: "quokka", Root: "/p"}); len(got) != 0 {
		t.Errorf("another workspace's session found by a project search: %v", got)
	}
	if got := rank(t, x, tools.HistoryQuery{Query: "quokka", Root: "/q"}); len(got) != 1 {
		t.Errorf("a session whose meta line is not first: %v", got)
	}
}

// TestTermsSplitsOnLettersAndDigits compares terms with the definition:
// runs of Unicode letters and digits, lower-cased, two bytes or more.
func TestTermsSplitsOnLettersAndDigits(t *testing.T) {
	want := func(text string) []string {
		var out []string
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len(w) >= 2 {
				out = append(out, strings.ToLower(w))
			}
		}
		return out
	}
	for _, text := range []string{
		"", "a", "ab", "Go's TestCodeActionRace, x_y z9 42",
		"naïve Ünïcode ÉCOLE é 日本語 ٣٤ x\u0301y",
		"bad \xff\xfe utf8\xffword \xc3",
		"tabs\tand\nnew-lines_under__scores",
	} {
		var got []string
		terms(text, func(w string) { got = append(got, w) })
		if !slices.Equal(got, want(text)) {
			t.Errorf("terms(%q) = %q, want %q", text, got, want(text))
		}
	}
}

// TestConcurrentScopes runs project and global searches side by side:
// whichever finishes last, every search sees what its scope holds.
func TestConcurrentScopes(t *testing.T) {
	x, _ := corpus(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := tools.HistoryQuery{Query: "deploy token", Root: "/p", Global: i%2 == 1}
			hits, err := x.Rank(t.Context(), q)
			if err != nil {
				t.Error(err)
				return
			}
			found := false
			for _, h := range hits {
				found = found || h.Session == "20261103-000000-cccccc"
			}
			if found != q.Global {
				t.Errorf("global %v: /q session found %v", q.Global, found)
			}
		}()
	}
	wg.Wait()
	if got := rank(t, x, tools.HistoryQuery{Query: "rotation", Global: true}); len(got) != 1 {
		t.Errorf("global after concurrent searches: %v", got)
	}
}
