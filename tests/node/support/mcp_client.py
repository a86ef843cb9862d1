# The official MCP Python SDK's client calling oda-tasks' tools over
# Streamable HTTP, each call naming its chat and turn in `_meta`; prints what
# each call answered as JSON, for tests/node/mcp-python.test.mjs to check.
import asyncio
import json
import os
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main() -> None:
    chat = os.environ["ODA_CHAT"]
    calls = json.loads(sys.argv[1])  # [[name, arguments, turn], ...]
    headers = {"Authorization": f"Bearer {os.environ['ODA_TASKS_TOKEN']}"}
    answers = []
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(streamable_http_client(os.environ["ODA_MCP_URL"], http_client=http)) as client:
            listed = await client.list_tools()
            for name, arguments, turn in calls:
                result = await client.call_tool(name, arguments, meta={"oda-tasks/chat": chat, "oda-tasks/turn": turn})
                answers.append(
                    {
                        "content": [block.model_dump(exclude_none=True) for block in result.content],
                        "isError": result.is_error,
                        "structured": result.structured_content,
                        "meta": result.meta,
                    }
                )
    print(json.dumps({"tools": [tool.name for tool in listed.tools], "answers": answers}))


asyncio.run(main())
