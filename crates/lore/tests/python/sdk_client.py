"""An agent on the official MCP Python SDK (2.x), for Lore's interop test
(`crates/lore/tests/mcp_python_sdk.rs`).

    python sdk_client.py MODE TARGET PROJECT LORE_BINARY

MODE is the SDK's `mode` ("auto" negotiates 2026-07-28 through
`server/discover`; "legacy" forces the initialize handshake). TARGET is an
HTTP URL, or `stdio` to launch `LORE_BINARY --project-dir PROJECT mcp
stdio` over stdio. It lists and calls, waits for a change made
by another process (`lore memory store` run by this script) on
`subscriptions/listen` (modern) or `resources/subscribe` (legacy), and
prints what it saw as one JSON object.
"""

import asyncio
import json
import subprocess
import sys
import warnings

import anyio
from mcp import Client, StdioServerParameters

warnings.simplefilter("ignore")

ENTRIES = "knowledge://entries"


def hints(result):
    return {
        "ttlMs": getattr(result, "ttl_ms", None),
        "cacheScope": getattr(result, "cache_scope", None),
    }


async def main(mode, target, project, binary):
    if target == "stdio":
        server = StdioServerParameters(
            command=binary, args=["--project-dir", project, "mcp", "stdio"]
        )
    else:
        server = target
    out = {}
    updates = []

    async def on_message(message):
        # Handshake-era resource updates arrive as plain notifications.
        root = getattr(message, "root", message)
        method = getattr(root, "method", None)
        if method == "notifications/resources/updated":
            updates.append(root.params.uri)

    async with Client(server, mode=mode, message_handler=on_message) as client:
        out["protocol"] = client.protocol_version
        out["server"] = client.server_info.name if client.server_info else None
        tools = await client.list_tools()
        out["tools"] = sorted(t.name for t in tools.tools)
        out["tools_hints"] = hints(tools)
        resources = await client.list_resources()
        out["resources"] = sorted(str(r.uri) for r in resources.resources)
        out["resources_hints"] = hints(resources)
        prompts = await client.list_prompts()
        out["prompts_hints"] = hints(prompts)
        stored = await client.call_tool(
            "store", {"topic": "interop", "content": f"stored over {mode}"}
        )
        out["store_error"] = stored.is_error
        out["store"] = stored.structured_content
        read = await client.read_resource(ENTRIES)
        out["read_hints"] = hints(read)
        out["read_mentions_store"] = any(
            f"stored over {mode}" in getattr(c, "text", "") for c in read.contents
        )

        def write_elsewhere():
            # Another process writes: the CLI on the same project.
            subprocess.run(
                [binary, "--project-dir", project, "memory", "store",
                 "--topic", "interop", "--content", f"written by the CLI ({mode})"],
                check=True, capture_output=True,
            )

        if out["protocol"] >= "2026-07-28":
            async with client.listen(resource_subscriptions=[ENTRIES]) as sub:
                out["listen_honored"] = sorted(sub.honored.resource_subscriptions or [])
                await anyio.to_thread.run_sync(write_elsewhere)
                with anyio.fail_after(20):
                    async for event in sub:
                        out["listen_event"] = type(event).__name__
                        out["listen_uri"] = str(getattr(event, "uri", ""))
                        break
        else:
            await client.subscribe_resource(ENTRIES)
            await anyio.to_thread.run_sync(write_elsewhere)
            with anyio.fail_after(20):
                while not updates:
                    await anyio.sleep(0.05)
            out["legacy_update"] = str(updates[0])
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    asyncio.run(main(*sys.argv[1:]))
