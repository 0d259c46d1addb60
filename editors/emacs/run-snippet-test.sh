#!/bin/sh
# Tests the eglot snippet of docs/editors.md (reasonix-eglot.el) in batch
# Emacs against the real `reasonix lsp` and the scripted model server: a
# quick fix through M-x reasonix-fix, its permission questions answered
# through eglot's dialog, the fix saved by reasonix/saveDocuments before
# the agent's `go test`, and `go test` passing afterwards; the question
# whether to trust the project's reasonix.toml, kept off by an empty
# answer, and trusted through M-x reasonix-trust.
#
#   editors/emacs/run-snippet-test.sh
#
# Needs emacs (with Debian's elpa-eglot, or eglot on the load path), go,
# and `make build` (or $REASONIX_BIN and $SCRIPTED_MODEL_BIN).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
reasonix=${REASONIX_BIN:-$repo/bin/reasonix}
model=${SCRIPTED_MODEL_BIN:-$repo/bin/scripted-model}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reasonix-eglot.XXXXXX")
server=

cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# `reasonix` on PATH, as the snippet names it.
mkdir -p "$tmp/bin" "$tmp/calc" "$tmp/home"
ln -s "$reasonix" "$tmp/bin/reasonix"

cat > "$tmp/script.txt" <<'SCRIPT'
expect user TestAdd fails: Add(2, 3) = -1, want 5
expect user >    5 | 	return a - b
call read_file {"path": "calc.go"}
---
expect tool return a - b
call edit_file {"path": "calc.go", "old_string": "func Add(a, b int) int {\n\treturn a - b", "new_string": "func Add(a, b int) int {\n\treturn a + b"}
---
expect tool Edited calc.go
call bash {"command": "go test ./..."}
---
# Saved through reasonix/saveDocuments: the test passes.
expect tool ok  	example.com/calc
expect tool Exit code: 0
text Add subtracted its arguments; it adds them now and the tests pass.
SCRIPT

"$model" -script "$tmp/script.txt" -url-file "$tmp/url" >/dev/null &
server=$!
i=0
while [ ! -s "$tmp/url" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { echo "the scripted model server did not start" >&2; exit 1; }
	sleep 0.1
done

cd "$tmp/calc"
printf 'module example.com/calc\n\ngo 1.21\n' > go.mod
cat > calc.go <<'GO'
package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Sub returns a minus b.
func Sub(a, b int) int {
	return a - b
}
GO
sed 's/return a - b/return a + b/; 8,$s/return a + b/return a - b/' calc.go > "$tmp/want.go"
cat > calc_test.go <<'GO'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestSub(t *testing.T) {
	if got := Sub(5, 3); got != 2 {
		t.Errorf("Sub(5, 3) = %d, want 2", got)
	}
}
GO
# The model is the user's own (their config.toml needs no trust); the
# project's reasonix.toml brings an allow rule, which stays off until the
# user trusts it: eglot's dialog asks, and M-x reasonix-trust asks again.
cat > "$tmp/home/config.toml" <<TOML
default_model = "scripted"

[[providers]]
name = "scripted"
base_url = "$(cat "$tmp/url")"
model = "deepseek-flash"
TOML
cat > reasonix.toml <<'TOML'
review = "apply"

[permissions]
allow = ["Bash(go vet:*)"]
TOML

PATH="$tmp/bin:$PATH" REASONIX_HOME="$tmp/home" DEEPSEEK_API_KEY= \
REASONIX_SNIPPET="$here/reasonix-eglot.el" REASONIX_DOC="$repo/docs/editors.md" \
REASONIX_TEST_ROOT="$tmp/calc" REASONIX_TEST_WANT="$tmp/want.go" \
	emacs --batch -l "$here/snippet-test.el"

go test -count=1 ./... >/dev/null
echo "eglot snippet: ok (go test passes)"
