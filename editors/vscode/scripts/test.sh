#!/usr/bin/env bash
# Checks and tests the VS Code extension: npm ci (only when node_modules is
# missing), tsc --noEmit, eslint, the esbuild bundle, then the Node tests,
# which run the built extension against a mocked `vscode` module, the real
# vscode-languageclient, the real `reasonix lsp` and the scripted model.
#
#   editors/vscode/scripts/test.sh        (from anywhere)
#
# Needs bin/reasonix, bin/scripted-model and bin/reasonix-plugin-example
# (make build), or REASONIX_LSP (and REASONIX_SCRIPTED_MODEL) pointing at
# them, the plugin beside REASONIX_LSP; and Go for `go test`.
# Exits non-zero on the first failure.
set -euo pipefail

cd "$(dirname "$0")/.."
ext=$PWD
repo=$(cd ../.. && pwd)

step() { printf '\n== %s\n' "$*"; }

if [ ! -d node_modules ]; then
  step "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

bin=${REASONIX_LSP:-$repo/bin/reasonix}
model=${REASONIX_SCRIPTED_MODEL:-$(dirname "$bin")/scripted-model}
plugin=$(dirname "$bin")/reasonix-plugin-example
for b in "$bin" "$model" "$plugin"; do
  if [ ! -x "$b" ]; then
    echo "scripts/test.sh: $b is missing: run make build in $repo" >&2
    exit 1
  fi
done

step "tsc --noEmit"
npx --no-install tsc --noEmit -p .

step "eslint"
npx --no-install eslint .

# The chat panel's sources carry their own checks, when they define them.
if [ -f src/webview/tsconfig.json ]; then
  step "tsc --noEmit (webview)"
  npx --no-install tsc --noEmit -p src/webview
fi

step "esbuild"
node scripts/build.mjs

step "node --test"
out=$ext/out/test
rm -rf "$ext/out"
# Each file compiled alone: the tests load dist/extension.js as VS Code
# would, and unit tests require src/ modules from out/src.
npx --no-install esbuild src/*.ts test/*.ts --outdir="$ext/out" --outbase=. --format=cjs --platform=node --target=node20 --log-level=warning
# --test-force-exit: vscode-languageclient leaves its shutdown timer
# running after a stop, which would hold each test process for 5 s.
node --test --test-force-exit --test-reporter=spec "$out"/*.test.js
