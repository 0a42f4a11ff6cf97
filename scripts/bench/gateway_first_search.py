# Usage: python3 scripts/bench/gateway_first_search.py LORE_BINARY PROJECT_DIR FOLDER_OF_ONE_ROOT
# (the project should set gateway.follow.enabled: false, so only the
# script ingests). See BENCHMARKS.md.
# Times km-search on a running `lore mcp serve` before and after a
# one-file ingest, in a project with many roots (loopback only).
import json, os, subprocess, sys, time, urllib.request, socket, re

lore, project = sys.argv[1], sys.argv[2]
edit_root = sys.argv[3]  # a root folder of the project; a file in it is edited
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
port = free_port()
env = dict(os.environ); env.pop("LORE_MCP_TOKEN", None)
server = subprocess.Popen([lore, "--project-dir", project, "mcp", "serve", "--port", str(port)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
url = f"http://127.0.0.1:{port}/mcp"
def call(tool, args):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {},
                      "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}}}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool})
    t = time.perf_counter()
    text = urllib.request.urlopen(req, timeout=120).read().decode()
    dt = (time.perf_counter() - t) * 1000
    return dt, text
for _ in range(200):
    try:
        call("km-help", {}); break
    except Exception:
        time.sleep(0.1)
queries = ["parse config file error", "timeout while reading response", "render table columns width"]
def searches(label):
    out = []
    for q in queries:
        dt, text = call("km-search", {"query": q, "limit": 10})
        out.append(dt)
    print(f"{label}: " + ", ".join(f"{d:.0f} ms" for d in out), flush=True)
searches("first searches")
searches("warm searches")
# Edit one file of one root and ingest it by path, three times.
target = None
for dirpath, _, files in os.walk(edit_root):
    for f in files:
        if f.endswith(".py") and "test" not in dirpath:
            target = os.path.join(dirpath, f); break
    if target: break
for i in range(3):
    with open(target, "a") as fh:
        fh.write(f"\n# bench edit {i}\n")
    dt, text = call("km-ingest-trigger", {"paths": [target]})
    print(f"ingest of one file: {dt:.0f} ms", flush=True)
    searches(f"after ingest {i+1}")
server.terminate(); server.wait()
