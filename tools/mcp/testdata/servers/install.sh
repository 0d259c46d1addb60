#!/bin/sh
# Installs the MCP reference servers the tools/mcp tests connect to,
# @modelcontextprotocol/server-everything and server-filesystem, into
# node_modules/ beside this script, pinned by package-lock.json. Nothing is
# done when they are already there, and nothing fails without npm: the
# tests that need the servers then skip.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/node_modules/.bin

if [ -x "$bin/mcp-server-everything" ] && [ -x "$bin/mcp-server-filesystem" ]; then
	echo "MCP test servers: present"
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "npm: missing; the MCP test servers are not installed (tests that need them skip)" >&2
	exit 0
fi
echo "MCP test servers: installing with npm ci"
cd "$here" && npm ci --no-audit --no-fund --loglevel=error
