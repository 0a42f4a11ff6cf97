# Usage: python3 scripts/bench/gateway_team_catchup.py LORE_BINARY PROJECT_DIR ROOT_COUNT
# (PROJECT_DIR: a project with store.url set and no roots; ROOT_COUNT: how
# many roots another project ingested into that store). See BENCHMARKS.md.
# A server with no roots of its own, on the store another project ingested
# into, catches up with the store's file log: time until km-ingest-status
# reports every root fresh (loopback only).
import json
import sys
import time

from mcp_client import Server

lore, project, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
started = time.perf_counter()
server = Server(lore, project)
while True:
    try:
        answer = server.call("km-ingest-status", {})[1]["result"].get("structuredContent", {})
        fresh = [f for f in answer.get("freshness", [])
                 if f.get("follow") == "store" and f.get("fresh")]
        if len(fresh) >= want:
            elapsed = time.perf_counter() - started
            print(f"all {want} roots fresh after {elapsed:.1f} s (server start included)")
            print(json.dumps(answer["freshness"][0]))
            break
    except Exception:
        pass  # not listening yet, or not caught up
    if time.perf_counter() - started > 600:
        print("not fresh in 600 s")
        break
    time.sleep(0.5)
server.stop()
