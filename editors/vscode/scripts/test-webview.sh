#!/usr/bin/env bash
# Builds the chat panel (media/panel.js, media/panel.css), type-checks it,
# and runs its browser tests in headless Chromium (test/webview/).
# Installs what is missing: the extension's npm packages, the tests' own
# (playwright-core), and Debian's chromium.
#
#   bash scripts/test-webview.sh            # from editors/vscode
#   CHROMIUM=/path/to/chrome bash scripts/test-webview.sh
set -euo pipefail
cd "$(dirname "$0")/.."

need_ci() { [ -d "$1/node_modules/$2" ] || (cd "$1" && npm ci --no-audit --no-fund --loglevel=error); }
need_ci . esbuild
need_ci . typescript
# playwright-core: from editors/vscode's own devDependencies once it is
# there, else from the tests' scratch package.
if ! node -e "require.resolve('playwright-core', {paths: ['test/webview']})" 2>/dev/null; then
  need_ci test/webview playwright-core
fi

chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "installing chromium (Debian's) for the webview tests"
  if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
  $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium >/dev/null
fi

node_modules/.bin/tsc -p src/webview/tsconfig.json
node scripts/build-webview.mjs
node --test --test-reporter=spec test/webview/panel.test.mjs
