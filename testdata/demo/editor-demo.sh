#!/bin/sh
# The editor demo behind `make demo-editor`: writes the demo module (a Go
# package whose test fails) to a directory, starts the scripted model server
# that plays fix-failing-test.txtar, points the module's reasonix.toml at it,
# and waits. Open the module in an editor with Reasonix and fix the test;
# no API key is needed. Ctrl-C stops the server.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$here/../.." && pwd)/bin
scenario="$here/fix-failing-test.txtar"
dir=${1:-${REASONIX_DEMO_DIR:-$PWD/reasonix-demo}}
server=

cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null || true
	rm -f "$dir/.reasonix-demo-url"
}
trap cleanup EXIT INT TERM

mkdir -p "$dir"
"$bin/scripted-model" -script "$scenario" -extract "$dir"
"$bin/scripted-model" -script "$scenario" -url-file "$dir/.reasonix-demo-url" >/dev/null &
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

cat <<TEXT
The demo module is in $dir; its model is the scripted server at $(cat "$dir/.reasonix-demo-url").
Make sure $bin is on your PATH (the editor starts 'reasonix lsp'), then:

  Neovim (with editors/nvim on the runtimepath):
    cd $dir && nvim calc_test.go
    :set makeprg=go\\ test\\ ./...
    :make                      (the failing test becomes a quickfix entry)
    :Reasonix fix              (on the failing line; answer the prompts)

  VS Code (with the Reasonix extension): open $dir and ask in the Reasonix
  chat panel: "make the failing test pass".

The scripted model plays one fix; restart this command to play it again.
Ctrl-C stops the server.
TEXT
wait "$server"
