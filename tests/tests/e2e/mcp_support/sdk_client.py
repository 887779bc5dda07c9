"""An MCP client nobody at Waymark wrote: the official Python SDK (`mcp`, pinned by
`cargo xtask setup`), starting `waymark-host mcp` as it starts any stdio server, with its
default environment (HOME, PATH, USER and a few more; no WAYMARK_* variable, no
XDG_RUNTIME_DIR). It negotiates as the SDK does by default (the newest protocol when the
server offers it).

Usage: sdk_client.py HOST_BINARY CLIENT_NAME. Reads one JSON command per line on stdin and
answers each with one JSON line on stdout:

    {"op": "tools"}                         -> {"tools": [names]}
    {"op": "call", "name": N, "args": {…}}  -> {"error": bool, "text": str, "progress": [{…}]}

The first line out says the client is connected: {"ready": true, "protocol": VERSION}.
"""

import asyncio
import json
import sys

from mcp import Implementation, StdioServerParameters
from mcp.client.client import Client


def out(value):
    print(json.dumps(value), flush=True)


async def main(host, name):
    # env=None: the SDK's own default environment, as every client built on it passes.
    server = StdioServerParameters(command=host, args=["mcp"])
    info = Implementation(name=name, version="1.0")
    async with Client(server, client_info=info) as client:
        out({"ready": True, "protocol": client.protocol_version})
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return
            command = json.loads(line)
            if command["op"] == "tools":
                listed = await client.list_tools()
                out({"tools": [t.name for t in listed.tools]})
            elif command["op"] == "call":
                progress = []

                async def on_progress(value, total, message):
                    progress.append({"progress": value, "message": message})

                result = await client.call_tool(
                    command["name"], command.get("args", {}), progress_callback=on_progress
                )
                texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
                out({"error": bool(result.is_error), "text": "\n".join(texts), "progress": progress})
            else:
                out({"unknown": command["op"]})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
