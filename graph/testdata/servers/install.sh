#!/bin/sh
# Installs the language servers the graph tests drive, when they are
# missing: gopls with `go install` (into $(go env GOPATH)/bin, where
# package graph looks for it), and pyright, typescript-language-server and
# typescript with npm, into node_modules/ beside this script, pinned by
# package-lock.json. Safe to run again: what is there is left alone.
# With the argument `gopls`, only gopls is installed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

gopls_version=v0.23.0
gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin=$(go env GOPATH | cut -d: -f1)/bin
if command -v gopls >/dev/null 2>&1 || [ -x "$gobin/gopls" ]; then
	echo "gopls: present"
else
	echo "gopls: installing $gopls_version (about 90 s on a cold build cache)"
	# GOFLAGS is cleared so a project's -buildvcs or -mod setting cannot
	# break a build outside any module.
	GOFLAGS= go install "golang.org/x/tools/gopls@$gopls_version"
fi

if [ "${1:-}" = gopls ]; then
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "npm: missing; pyright and typescript-language-server are not installed (their tests skip)" >&2
	exit 0
fi
bin=$here/node_modules/.bin
if [ -x "$bin/pyright-langserver" ] && [ -x "$bin/typescript-language-server" ] && [ -x "$bin/tsserver" ]; then
	echo "pyright, typescript-language-server: present"
else
	echo "pyright, typescript-language-server: installing with npm ci"
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
