#!/usr/bin/env bash
# Packages the extension as editors/vscode/reasonix-<version>.vsix, offline:
# the production esbuild bundle (dependencies are inside dist/extension.js,
# hence --no-dependencies), then vsce. Installs npm deps if missing.
#
#   editors/vscode/scripts/vsix.sh        (from anywhere)
set -euo pipefail

cd "$(dirname "$0")/.."

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

node scripts/build.mjs --production
for f in dist/extension.js media/panel.js media/panel.css; do
  if [ ! -s "$f" ]; then
    echo "scripts/vsix.sh: $f is missing after the build" >&2
    exit 1
  fi
done

version=$(node -p "require('./package.json').version")
out="reasonix-$version.vsix"
# No LICENSE file in the repository yet: --skip-license keeps vsce from
# asking about it (the question would hang a non-interactive run).
npx --no-install vsce package --no-dependencies --skip-license --out "$out" </dev/null
node scripts/check-vsix.mjs "$out"
echo "$PWD/$out"
