#!/usr/bin/env bash
# Installs a current Node (24) from the npm registry into .tmp/node-lts for the
# no-uWS test leg. The registry's `node` package only runs an install script that
# fetches the platform package below; we take that package directly (it ships the
# binary; nothing is downloaded at install time), so npm 11's install-script
# policy does not matter.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${ORCH_NODE_LTS_VERSION:-24}"
prefix=".tmp/node-lts"
arch=$(node -p 'process.arch')
bin="$prefix/node_modules/node-linux-$arch/bin/node"
if [ -x "$bin" ] && "$bin" -p 'process.versions.node' | grep -q "^$version\."; then
  echo "$bin"
  exit 0
fi
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "node-linux-$arch@$version" >&2
echo "$bin"
