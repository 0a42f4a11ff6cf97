# Usage: python3 scripts/bench/gateway_first_search.py LORE_BINARY PROJECT_DIR FOLDER_OF_ONE_ROOT
# (the project should set gateway.follow.enabled: false, so only the
# script ingests). See BENCHMARKS.md.
# Times km-search on a running `lore mcp serve` before and after a
# one-file ingest, in a project with many roots (loopback only).
import os
import sys

from mcp_client import Server

lore, project = sys.argv[1], sys.argv[2]
edit_root = sys.argv[3]  # a root folder of the project; a file in it is edited
server = Server(lore, project)
server.wait_ready()
queries = ["parse config file error", "timeout while reading response", "render table columns width"]


def searches(label):
    times = [server.call("km-search", {"query": q, "limit": 10})[0] for q in queries]
    print(f"{label}: " + ", ".join(f"{t:.0f} ms" for t in times), flush=True)


searches("first searches")
searches("warm searches")
# Edit one file of one root and ingest it by path, three times.
target = None
for dirpath, _, files in os.walk(edit_root):
    for f in files:
        if f.endswith(".py") and "test" not in dirpath:
            target = os.path.join(dirpath, f)
            break
    if target:
        break
for i in range(3):
    with open(target, "a") as fh:
        fh.write(f"\n# bench edit {i}\n")
    elapsed, _ = server.call("km-ingest-trigger", {"paths": [target]})
    print(f"ingest of one file: {elapsed:.0f} ms", flush=True)
    searches(f"after ingest {i+1}")
server.stop()
