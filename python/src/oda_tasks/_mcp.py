"""The tools at `serve`'s `/mcp`, through the official MCP SDK's client
(Streamable HTTP). Each use is one short session: `serve` is stateless, so
nothing is kept between calls. A call names its chat in `_meta`; what the model
reads is the result's text, as the server wrote it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, TypeVar, cast

import httpx2
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import RequestParamsMeta

from ._types import OdaError, ToolDefinition, ToolResult, card_of, suggestion_of

T = TypeVar("T")

CHAT_META = "oda-tasks/chat"
"""The `_meta` key naming a call's chat."""
CARD_META = "oda-tasks/card"
"""The `_meta` key of a result carrying the recorded update's card."""
OFFER_META = "oda-tasks/offer"
"""The `_meta` key of a result carrying the recorded offer."""


class Endpoint:
    """`serve`'s MCP endpoint at `url`, reached with `headers` (the bearer token)."""

    def __init__(self, url: str, headers: Mapping[str, str], timeout: float) -> None:
        self.url = url
        self.headers = dict(headers)
        self.timeout = timeout

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[Client]:
        # A failure answered at the HTTP level (401, 403, 503) is the server's: kept to raise as an OdaError.
        refused: list[httpx2.Response] = []

        async def keep(response: httpx2.Response) -> None:
            if response.status_code >= 400:
                await response.aread()
                refused.append(response)

        async with httpx2.AsyncClient(
            headers=self.headers, timeout=self.timeout, event_hooks={"response": [keep]}
        ) as http:
            try:
                async with Client(streamable_http_client(self.url, http_client=http)) as client:
                    yield client
            except Exception as e:
                if refused:
                    raise _refusal(refused[0]) from e
                error = _found(e, MCPError)
                if error is not None:
                    raise OdaError(f"mcp/{error.code}", error.message, status=200, payload=error.data) from e
                # The MCP SDK's task group wraps a connection's failure: raised as itself.
                unreachable = _found(e, httpx2.TransportError)
                if unreachable is not None:
                    raise unreachable from e
                raise

    async def list_tools(self) -> list[ToolDefinition]:
        async with self._session() as client:
            listed = await client.list_tools()
        return [ToolDefinition(t.name, t.description or "", dict(t.input_schema)) for t in listed.tools]

    async def call_tool(self, chat_id: str, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        async with self._session() as client:
            meta = cast("RequestParamsMeta", {CHAT_META: chat_id})
            result = await client.call_tool(name, dict(arguments), meta=meta)
        text = "".join(block.text for block in result.content if block.type == "text")
        ui = result.meta or {}
        card = ui.get(CARD_META)
        offer = ui.get(OFFER_META)
        return ToolResult(
            text=text,
            is_error=bool(result.is_error),
            card=None if card is None else card_of(card),
            offer=None if offer is None else suggestion_of(offer),
        )


def _refusal(response: httpx2.Response) -> OdaError:
    try:
        error = response.json()["error"]
        return OdaError(str(error["code"]), str(error["message"]), status=response.status_code)
    except (ValueError, KeyError, TypeError):
        return OdaError(
            "oda-tasks/bad-answer", f"serve answered {response.status_code} at /mcp", status=response.status_code
        )


def _found(error: BaseException, kind: type[T]) -> T | None:
    """`error` if it is a `kind`, else the first `kind` in it (an exception group's members, depth first)."""
    if isinstance(error, kind):
        return error
    for member in getattr(error, "exceptions", ()):
        found = _found(member, kind)
        if found is not None:
            return found
    return None


def blocking(run: Callable[[], Awaitable[T]]) -> T:
    """Runs the coroutine `run()` makes to its end and returns its result, from blocking code:
    on an event loop of its own in a thread of its own, so it works whether or not the
    calling thread runs a loop."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    async def main() -> None:
        outcome.append(await run())

    def thread() -> None:
        try:
            asyncio.run(main())
        except BaseException as e:
            failure.append(e)

    worker = threading.Thread(target=thread, name="oda-tasks-mcp")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome[0]
