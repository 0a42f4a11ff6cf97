#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against `lore mcp start` on a fresh demo project. Node >= 22 comes from
# the npm registry as the `node` package; nothing is installed globally.
#
#   scripts/conformance.sh            # results in target/conformance/
#   CONFORMANCE_VERSION=0.1.16 scripts/conformance.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version="${CONFORMANCE_VERSION:-0.1.16}"
tools="${CONFORMANCE_HOME:-$HOME/.cache/lore-conformance}"
out="${CONFORMANCE_OUT:-target/conformance}"
mkdir -p "$tools" "$out"
if [ ! -x "$tools/node_modules/.bin/conformance" ]; then
  npm install --prefix "$tools" --no-audit --no-fund "node@22" "@modelcontextprotocol/conformance@$version" >/dev/null
fi
export PATH="$tools/node_modules/.bin:$PATH"
cargo build --release --locked -p lore >/dev/null
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
lore="$target_dir/release/lore"
work="$(mktemp -d)"
trap '"$lore" --project-dir "$work/demo" mcp stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$lore" demo "$work/demo" --no-serve >/dev/null 2>&1
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$lore" --project-dir "$work/demo" mcp start --port "$port"
echo "node $(node --version), conformance $(conformance --version)"
status=0
conformance server --url "http://127.0.0.1:$port/mcp" -o "$out" | tee "$out/summary.txt" || status=$?
echo "results: $out (exit $status)"
exit "$status"
