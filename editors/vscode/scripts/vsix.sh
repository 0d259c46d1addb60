#!/usr/bin/env bash
# Packages the extension with its server inside, one .vsix per VS Code
# target, offline: the production esbuild bundle (dependencies are inside
# dist/extension.js, hence --no-dependencies), then for each target the
# server cross-compiled into server/ and `vsce package --target`. With no
# argument, the target is this machine's. Writes
# editors/vscode/reasonix-<target>-<version>.vsix and prints each path.
#
#   editors/vscode/scripts/vsix.sh                      (this machine's target)
#   editors/vscode/scripts/vsix.sh linux-x64 win32-arm64
#
# The server is stamped with package.json's version, so the extension and
# the server it carries report the same one. GO names the go command.
# Installs npm deps if missing.
set -euo pipefail

cd "$(dirname "$0")/.."
ext=$PWD
repo=$(cd ../.. && pwd)
go=${GO:-go}

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

version=$(node -p "require('./package.json').version")
if [ "$#" -eq 0 ]; then
  set -- "$(node -p "process.platform + '-' + process.arch")"
fi

node scripts/build.mjs --production
for f in dist/extension.js media/panel.js media/panel.css; do
  if [ ! -s "$f" ]; then
    echo "scripts/vsix.sh: $f is missing after the build" >&2
    exit 1
  fi
done

# server/ holds one target's binary at a time, and none once packaged, so
# the extension run from this folder (the tests) never finds a stale one.
# The repository's LICENSE goes into the package as well (vsce looks for
# it beside package.json), copied for the packaging only.
trap 'rm -rf "$ext/server" "$ext/LICENSE"' EXIT
cp "$repo/LICENSE" LICENSE
for target in "$@"; do
  case $target in
    linux-x64) goos=linux goarch=amd64 ;;
    linux-arm64) goos=linux goarch=arm64 ;;
    darwin-x64) goos=darwin goarch=amd64 ;;
    darwin-arm64) goos=darwin goarch=arm64 ;;
    win32-x64) goos=windows goarch=amd64 ;;
    win32-arm64) goos=windows goarch=arm64 ;;
    *)
      echo "scripts/vsix.sh: unknown target $target (want linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64 or win32-arm64)" >&2
      exit 2
      ;;
  esac
  exe=reasonix
  [ "$goos" = windows ] && exe=reasonix.exe
  rm -rf server
  mkdir server
  (cd "$repo" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$go" build -trimpath \
    -ldflags "-s -w -X main.version=$version" -o "$ext/server/$exe" ./cmd/reasonix)
  chmod 755 "server/$exe"

  out="reasonix-$target-$version.vsix"
  npx --no-install vsce package --no-dependencies --target "$target" --out "$out" </dev/null >&2
  node scripts/check-vsix.mjs "$out" "$target" >&2
  echo "$ext/$out"
done
