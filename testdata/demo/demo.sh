#!/bin/sh
# The demo behind `make demo`: copy a small Go module with a failing test to
# a temporary directory, let `reasonix run` fix it, then run `go test` there.
# Without DEEPSEEK_API_KEY, or with REASONIX_DEMO_SCRIPTED=1, the model is
# the project's scripted model server playing fix-failing-test.txtar; with
# the key it is the real DeepSeek. The first line says which.
set -eu

if [ -n "${REASONIX_DEMO_SCRIPTED:-}" ]; then
	real=
	echo "== model: the scripted model server (REASONIX_DEMO_SCRIPTED is set)"
elif [ -n "${DEEPSEEK_API_KEY:-}" ]; then
	real=yes
	echo "== model: DeepSeek, since DEEPSEEK_API_KEY is set (REASONIX_DEMO_SCRIPTED=1 make demo uses the scripted model server)"
else
	real=
	echo "== model: the scripted model server (set DEEPSEEK_API_KEY to use DeepSeek)"
fi

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
if [ -n "$real" ]; then
	echo "== reasonix run --approval auto \"$prompt\"   (model: DeepSeek)"
	status=0
	(cd "$work" && "$bin/reasonix" run --approval auto "$prompt") || status=$?
	if [ "$status" = 1 ]; then
		# Offline or with a wrong key the run ends here, after its
		# retries: say what to check, and how to see the demo anyway.
		echo "== the run against DeepSeek failed: check that this machine reaches the model and that DEEPSEEK_API_KEY is valid; offline, REASONIX_DEMO_SCRIPTED=1 make demo runs the demo against the scripted model server" >&2
	fi
	[ "$status" = 0 ] || exit "$status"
else
	echo "== reasonix run --approval auto \"$prompt\"   (model: the scripted server)"
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
