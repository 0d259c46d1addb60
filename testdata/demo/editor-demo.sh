#!/bin/sh
# The editor demo behind `make demo-editor`: writes the demo module (a Go
# package whose test fails) to a directory, starts the scripted model server
# that plays fix-failing-test.txtar, points the module's reasonix.toml at it,
# trusts that file for the person running it (reasonix trust --yes: a
# workspace's own provider is used only once the user trusts it), and
# waits. Open the module in an editor with Reasonix and fix the test; no
# API key is needed. Once the script has played, the server keeps
# answering with a note that the demo is over. Ctrl-C stops the server,
# removes the reasonix.toml it wrote, which would point at a dead port,
# and forgets the trust it recorded.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$here/../.." && pwd)/bin
scenario="$here/fix-failing-test.txtar"
dir=${1:-${REASONIX_DEMO_DIR:-$PWD/reasonix-demo}}
server=

cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null || true
	rm -f "$dir/.reasonix-demo-url"
	if head -n 1 "$dir/reasonix.toml" 2>/dev/null | grep -q '^# Written by make demo-editor'; then
		rm -f "$dir/reasonix.toml"
		"$bin/reasonix" trust --revoke "$dir" >/dev/null 2>&1 || true
	fi
}
# Ctrl-C is how the demo ends: it is not a failure.
stopped() {
	cleanup
	echo
	echo "The demo server stopped; $dir keeps the module (run make demo-editor again to play the fix again)."
	exit 0
}
trap cleanup EXIT
trap stopped INT TERM

mkdir -p "$dir"
"$bin/scripted-model" -script "$scenario" -extract "$dir"
over="The demo script has played to its end, so this is the scripted server's canned answer, not a model. Stop make demo-editor and run it again to play the fix again (it restores the failing test), or point reasonix.toml at a real model."
"$bin/scripted-model" -script "$scenario" -url-file "$dir/.reasonix-demo-url" -fallback "$over" >/dev/null &
server=$!
i=0
while [ ! -s "$dir/.reasonix-demo-url" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { echo "the scripted model server did not start" >&2; exit 1; }
	sleep 0.1
done
cat > "$dir/reasonix.toml" <<TOML
# Written by make demo-editor: the model is the project's scripted server.
default_model = "demo"
# The fix lands in the buffer at once. Outside VS Code the default is
# "propose": each change waits for you to accept or reject it.
review = "apply"

[[providers]]
name     = "demo"
kind     = "openai"
base_url = "$(cat "$dir/.reasonix-demo-url")"
model    = "deepseek-flash"

[permissions]
# The editor asks before each edit and command: Allow once, Allow for
# session, Always allow (saved here as an allow rule) or Deny.
approval = "ask"
TOML

# You wrote this file by running the demo: trust it, as its author would,
# so that the editor uses its provider without asking. It is shown first.
echo "== reasonix trust --yes $dir"
"$bin/reasonix" trust --yes "$dir"
echo

cat <<TEXT
The demo module is in $dir; its model is the scripted server at $(cat "$dir/.reasonix-demo-url"),
a provider of its reasonix.toml, which this script trusted for you (above);
Ctrl-C removes that file and forgets the trust.
Make sure $bin is on your PATH (the editor starts 'reasonix lsp'), then:

  Neovim (with editors/nvim on the runtimepath):
    cd $dir && nvim calc_test.go
    :set makeprg=go\\ test\\ ./...
    :make                      (the failing test becomes a quickfix entry)
    :cfirst                    (the cursor goes to the failing line)
    :Reasonix fix              (answer the four prompts with "Allow once":
                                go test, the edit of calc.go twice, go test)

  VS Code (with the Reasonix extension): open $dir and ask in the Reasonix
  chat panel: "make the failing test pass".

The scripted model plays one fix, then answers that the demo is over;
restart this command to play it again. Ctrl-C stops the server.
TEXT
wait "$server"
