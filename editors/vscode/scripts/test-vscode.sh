#!/usr/bin/env bash
# Runs the extension in real VS Code (test/vscode/run.mjs): code-server
# with the packaged extension (make vsix's, the server inside) installed,
# and nothing else of Reasonix's on its PATH, driven in headless Chromium
# through playwright-core. Installs what is missing: code-server and its
# Node (scripts/install-code-server.sh, into ~/.cache/reasonix-test), the
# extension's npm packages, Debian's chromium. Screenshots go to
# $ARTIFACTS (default: a new temporary directory, printed at the end).
#
# Needs bin/reasonix, bin/scripted-model and bin/reasonix-plugin-example
# (make build), or REASONIX_LSP (and REASONIX_SCRIPTED_MODEL) pointing at
# them, the plugin beside REASONIX_LSP.
#
#   editors/vscode/scripts/test-vscode.sh        (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(cd ../.. && pwd)

bin=${REASONIX_LSP:-$repo/bin/reasonix}
model=${REASONIX_SCRIPTED_MODEL:-$(dirname "$bin")/scripted-model}
plugin=$(dirname "$bin")/reasonix-plugin-example
for b in "$bin" "$model" "$plugin"; do
  if [ ! -x "$b" ]; then
    echo "scripts/test-vscode.sh: $b is missing: run make build in $repo" >&2
    exit 1
  fi
done
# run.mjs finds them in one directory.
bindir=$(mktemp -d "${TMPDIR:-/tmp}/reasonix-vscode-bin.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
ln -s "$bin" "$bindir/reasonix"
ln -s "$model" "$bindir/scripted-model"
ln -s "$plugin" "$bindir/reasonix-plugin-example"

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  sh "$repo/.ci/peers.sh" apt chromium
fi
code_server=$(sh scripts/install-code-server.sh)

# The packaged extension for this machine, with its server inside, as a
# user installs it.
vsix=$(bash scripts/vsix.sh | tail -n 1)

# Another target's package (make vsix-all's, without building all six):
# vsix.sh checks that it holds a Windows arm64 server, and the check
# tells it from an x64 one.
other=$(bash scripts/vsix.sh win32-arm64 | tail -n 1)
if node scripts/check-vsix.mjs "$other" win32-x64 >/dev/null 2>&1; then
  echo "scripts/test-vscode.sh: check-vsix.mjs took $other for a win32-x64 package" >&2
  exit 1
fi
rm -f "$other"

artifacts=${ARTIFACTS:-$(mktemp -d "${TMPDIR:-/tmp}/reasonix-vscode-shots.XXXXXX")}
status=0
CODE_SERVER=$code_server VSIX=$vsix REASONIX_BIN=$bindir ARTIFACTS=$artifacts CHROMIUM=$chromium \
  node --test --test-reporter=spec --test-concurrency=1 test/vscode/run.mjs || status=$?
echo "screenshots: $artifacts"
exit $status
