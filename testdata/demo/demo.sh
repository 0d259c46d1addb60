#!/bin/sh
# The demo behind `make demo`: copy a small Go module with a failing test to
# a temporary directory, let `reasonix run` fix it, then run `go test` there.
# Without DEEPSEEK_API_KEY the model is the project's scripted model server
# playing fix-failing-test.txtar; with the key it is the real DeepSeek.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$here/../.." && pwd)/bin
scenario="$here/fix-failing-test.txtar"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reasonix-demo.XXXXXX")
work="$tmp/calc"
server=
home=

cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

mkdir -p "$work"
"$bin/scripted-model" -script "$scenario" -extract "$work"
prompt=$("$bin/scripted-model" -script "$scenario" -section prompt)

echo "== the project: $work"
(cd "$work" && go test ./... 2>&1 | sed 's/^/   /') || true
echo

# In a terminal, reasonix run asks before it edits a file or runs a
# command; where no one can answer (a script, CI) such calls are refused,
# unless the run allows them: --approval auto lets the agent edit files and
# run commands that no [permissions] rule asks about or denies.
if [ -n "${DEEPSEEK_API_KEY:-}" ]; then
	echo "== reasonix run --approval auto \"$prompt\"   (model: DeepSeek)"
	(cd "$work" && "$bin/reasonix" run --approval auto "$prompt")
else
	echo "== reasonix run --approval auto \"$prompt\"   (model: the scripted server; set DEEPSEEK_API_KEY for the real one)"
	"$bin/scripted-model" -script "$scenario" -url-file "$tmp/url" >/dev/null &
	server=$!
	i=0
	while [ ! -s "$tmp/url" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && { echo "the scripted model server did not start" >&2; exit 1; }
		sleep 0.1
	done
	cat > "$tmp/demo.toml" <<TOML
default_model = "scripted"

[[providers]]
name     = "scripted"
kind     = "openai"
base_url = "$(cat "$tmp/url")"
model    = "deepseek-flash"
TOML
	home="$tmp/home"
	(cd "$work" && REASONIX_HOME="$home" "$bin/reasonix" run --config "$tmp/demo.toml" --approval auto "$prompt")
fi

echo
echo "== reasonix trace: the run, step by step"
(cd "$work" && env ${home:+REASONIX_HOME="$home"} "$bin/reasonix" trace)

echo
echo "== go test ./... after the run"
(cd "$work" && go test -count=1 ./...)
