#!/usr/bin/env bash
# CPU of a following server at rest: a project with one root (a real
# repository), ingested once, then `lore mcp serve` (HTTP, loopback) left
# alone for $SECS seconds; CPU from /proc/<pid>/stat (utime+stime).
# Usage: scripts/follow-at-rest.sh <lore binary> <mirror git dir> <inotify|walk> [secs]
set -euo pipefail
lore=$1 mirror=$2 mode=$3 secs=${4:-60}
dir=$(mktemp -d /tmp/watchrest.XXXX)
mkdir -p "$dir/repo" "$dir/proj"
git --git-dir="$mirror" archive HEAD | tar -x -C "$dir/repo"
cd "$dir/proj"
"$lore" init >/dev/null 2>&1 || true
"$lore" gateway ingest ../repo >/dev/null
if [ "$mode" = walk ]; then
  python3 - <<'P'
import re
s=open('lore.yaml').read()
s=s.replace('gateway:\n','gateway:\n  follow:\n    watch: walk\n',1)
open('lore.yaml','w').write(s)
P
fi
files=$(find ../repo -type f | wc -l)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$lore" mcp serve --port "$port" >/tmp/watchrest.log 2>&1 &
pid=$!
sleep 10   # start-up and the first look at the roots
tick=$(getconf CLK_TCK)
read -r u1 s1 < <(awk '{print $14, $15}' /proc/$pid/stat)
sleep "$secs"
read -r u2 s2 < <(awk '{print $14, $15}' /proc/$pid/stat)
rss=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
kill $pid; wait $pid 2>/dev/null || true
cpu_ms=$(( (u2 + s2 - u1 - s1) * 1000 / tick ))
echo "mode=$mode files=$files secs=$secs cpu_ms=$cpu_ms ($(python3 -c "print(f'{$cpu_ms/($secs*10):.3f}')") % of a core) rss_kib=$rss"
grep -i "follow" "$dir/proj/lore.yaml" || true
rm -rf "$dir"
