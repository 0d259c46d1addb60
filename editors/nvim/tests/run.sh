#!/bin/sh
# Runs every spec of reasonix.nvim in its own headless Neovim, on each
# Neovim the plugin is tested with, and prints a summary; exits non-zero if
# any failed.
#
#   editors/nvim/tests/run.sh [SPEC...]
#
# The specs start the real `reasonix lsp` and the scripted model server:
# $REASONIX_BIN and $SCRIPTED_MODEL_BIN, else the repository's bin/
# (`make build`). Each spec gets $SPEC_TIMEOUT seconds (default 60).
# The Neovims are the system's `nvim` (Debian's 0.7) and 0.10, which
# install-nvim-0.10.sh installs into the test cache when it is missing;
# $NVIM names one binary to run on instead (inside a Neovim terminal $NVIM
# is that Neovim's socket, which is ignored).
set -u

here=$(cd "$(dirname "$0")" && pwd)
plugin=$(cd "$here/.." && pwd)
repo=$(cd "$plugin/../.." && pwd)
timeout=${SPEC_TIMEOUT:-60}

REASONIX_BIN=${REASONIX_BIN:-$repo/bin/reasonix}
SCRIPTED_MODEL_BIN=${SCRIPTED_MODEL_BIN:-$repo/bin/scripted-model}
export REASONIX_BIN SCRIPTED_MODEL_BIN

for b in "$REASONIX_BIN" "$SCRIPTED_MODEL_BIN"; do
	if [ ! -x "$b" ]; then
		echo "run.sh: $b is missing; run 'make build' first" >&2
		exit 2
	fi
done
if [ -n "${NVIM:-}" ] && [ ! -S "$NVIM" ]; then
	nvims=$NVIM
else
	nvim010=$(sh "$here/install-nvim-0.10.sh") || {
		echo "run.sh: Neovim 0.10 is missing and could not be installed" >&2
		exit 2
	}
	nvims="nvim $nvim010"
fi
for nvim in $nvims; do
	if ! command -v "$nvim" >/dev/null 2>&1; then
		echo "run.sh: $nvim is not installed" >&2
		exit 2
	fi
done

if [ $# -gt 0 ]; then
	specs="$*"
else
	specs=$(ls "$here"/specs/*_spec.lua)
fi

# Neovim's own state (shada, swap, logs) goes to a directory removed at
# exit; Go keeps its build cache, which XDG_CACHE_HOME would otherwise move.
if command -v go >/dev/null 2>&1; then
	GOCACHE=${GOCACHE:-$(go env GOCACHE)}
	export GOCACHE
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reasonix-nvim-tests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/config"
export NVIM_LOG_FILE="$tmp/nvim.log"

# Milliseconds since the epoch (GNU date), else seconds × 1000.
now_ms() {
	t=$(date +%s%N 2>/dev/null)
	case $t in
	*N | '') echo $(( $(date +%s) * 1000 )) ;;
	*) echo $(( t / 1000000 )) ;;
	esac
}

pass=0
fail=0
summary=
for nvim in $nvims; do
	# A spec that starts a second Neovim starts this one.
	REASONIX_TEST_NVIM=$(command -v "$nvim")
	export REASONIX_TEST_NVIM
	version=$("$nvim" --version | sed -n '1s/^NVIM //p')
	summary="$summary
  Neovim $version"
	for spec in $specs; do
		name=$(basename "$spec" .lua)
		start=$(now_ms)
		echo "== $name (Neovim $version)"
		timeout "$timeout" "$nvim" --headless -u NONE -i NONE -n \
			--cmd "set rtp^=$plugin" \
			-c "luafile $here/run_spec.lua" -- "$spec" </dev/null
		rc=$?
		ms=$(( $(now_ms) - start ))
		if [ $rc -eq 0 ]; then
			pass=$((pass + 1))
			summary="$summary
  ok    $(printf '%6d' "$ms") ms  $name"
		else
			[ $rc -eq 124 ] && echo "  (timed out after ${timeout}s)"
			fail=$((fail + 1))
			summary="$summary
  FAIL  $(printf '%6d' "$ms") ms  $name (exit $rc)"
		fi
	done
done

echo
echo "== summary$summary"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
