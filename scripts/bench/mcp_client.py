"""What the bench scripts share: a `lore mcp serve` on a free loopback port,
and one tool call to it (timed, with the answer read from JSON or SSE)."""
import json
import os
import socket
import subprocess
import time
import urllib.request

PROTOCOL = "2026-07-28"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """`lore --project-dir PROJECT mcp serve` on a free port, without a token."""

    def __init__(self, lore, project):
        self.port = free_port()
        env = dict(os.environ)
        env.pop("LORE_MCP_TOKEN", None)
        self.process = subprocess.Popen(
            [lore, "--project-dir", project, "mcp", "serve", "--port", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def call(self, tool, args):
        """(milliseconds, the JSON-RPC answer) of one `tools/call`."""
        meta = {"io.modelcontextprotocol/protocolVersion": PROTOCOL,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": tool, "arguments": args, "_meta": meta}}
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL, "Mcp-Method": "tools/call", "Mcp-Name": tool})
        started = time.perf_counter()
        text = urllib.request.urlopen(request, timeout=120).read().decode()
        elapsed = (time.perf_counter() - started) * 1000
        return elapsed, parse(text)

    def wait_ready(self, tries=200):
        for _ in range(tries):
            try:
                self.call("km-help", {})
                return
            except Exception:
                time.sleep(0.1)
        raise SystemExit("the server did not answer")

    def stop(self):
        self.process.terminate()
        self.process.wait()


def parse(text):
    """The JSON-RPC answer of a plain JSON or an SSE response."""
    try:
        return json.loads(text)
    except ValueError:
        for line in text.splitlines():
            if line.startswith("data:"):
                value = json.loads(line[5:])
                if "id" in value:
                    return value
    return None
