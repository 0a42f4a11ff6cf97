# Usage: python3 scripts/bench/gateway_team_catchup.py LORE_BINARY PROJECT_DIR ROOT_COUNT
# (PROJECT_DIR: a project with store.url set and no roots; ROOT_COUNT: how
# many roots another project ingested into that store). See BENCHMARKS.md.
# A server with no roots of its own, on the store another project ingested
# into, catches up with the store's file log: time until km-ingest-status
# reports every root fresh (loopback only).
import json, os, subprocess, sys, time, urllib.request, socket
lore, project = sys.argv[1], sys.argv[2]
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
port = free_port()
env = dict(os.environ); env.pop("LORE_MCP_TOKEN", None)
t0 = time.perf_counter()
server = subprocess.Popen([lore, "--project-dir", project, "mcp", "serve", "--port", str(port)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
url = f"http://127.0.0.1:{port}/mcp"
def call(tool, args):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {},
                      "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}}}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool})
    text = urllib.request.urlopen(req, timeout=120).read().decode()
    try:
        return json.loads(text)
    except Exception:
        for line in text.splitlines():
            if line.startswith("data:"):
                v = json.loads(line[5:])
                if "id" in v: return v
want = int(sys.argv[3])
while True:
    try:
        r = call("km-ingest-status", {})["result"].get("structuredContent", {})
        fresh = [f for f in r.get("freshness", []) if f.get("follow") == "store" and f.get("fresh")]
        if len(fresh) >= want:
            print(f"all {want} roots fresh after {time.perf_counter()-t0:.1f} s (server start included)")
            print(json.dumps(r["freshness"][0]))
            break
    except Exception as e:
        pass
    if time.perf_counter() - t0 > 600:
        print("not fresh in 600 s"); break
    time.sleep(0.5)
server.terminate(); server.wait()
