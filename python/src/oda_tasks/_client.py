"""The clients of `oda-tasks serve`: `OdaClient` (blocking) and `AsyncOdaClient`.

Each route is described once (`_Call`: method, path, query, body, and how its
answer is read); the two clients only send. The tools go over MCP (`_mcp`).
A failure the server answers becomes an `OdaError` with its code and message."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar, cast
from urllib.parse import quote

import httpx

from . import _mcp
from ._types import (
    CardPage,
    ChatPage,
    OdaError,
    Screen,
    Todo,
    ToolDefinition,
    ToolResult,
    _bool,
    _int,
    _optional_int,
    _optional_str,
    _str,
    _todos,
    card_page_of,
    chat_page_of,
    screen_of,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0
"""Seconds a request may take, by default."""


def _id(value: str) -> str:
    """A chat or suggestion id as a path segment (`encodeURIComponent`)."""
    return quote(value, safe="")


@dataclass(frozen=True)
class _Call(Generic[T]):
    """One request of a route, and how its answer's JSON is read."""

    method: str
    path: str
    read: Callable[[Any], T]
    query: Mapping[str, str] = field(default_factory=dict)
    body: Mapping[str, Any] | None = None


def _field(name: str, kind: Callable[[Any], T]) -> Callable[[Any], T]:
    """Reads member `name` of an answer, checked by `kind`."""
    return lambda answer: kind(answer[name])


class ChatSession(TypedDict, total=False):
    """A chat's session, as `create_chat` takes it (each field optional; `createChat`'s in TypeScript).

    Example::

        session: ChatSession = {"workspace": "/repos/app", "permission": "ask"}
        oda.create_chat("chat-1", **session)
    """

    title: str
    workspace: str
    permission: str
    model: str
    preset: str
    sandbox: Any
    approval: Any
    scheduled_task_folder: bool
    agent: str


# Where each field goes in the session `PUT /api/sessions/:id` takes: a member of it, or of its settings.
_SESSION = {
    "title": "title",
    "workspace": "workspace",
    "scheduled_task_folder": "scheduledTaskFolder",
    "agent": "agent",
}
_SETTINGS = ("preset", "model", "permission", "sandbox", "approval")


def _create_chat(chat_id: str, session: ChatSession) -> _Call[bool]:
    fields = cast("dict[str, Any]", session)
    unknown = sorted(set(fields) - set(_SESSION) - set(_SETTINGS))
    if unknown:
        raise TypeError(f"oda-tasks: create_chat has no field {unknown[0]!r}")
    body: dict[str, Any] = {_SESSION[name]: value for name, value in fields.items() if name in _SESSION}
    settings = {name: value for name, value in fields.items() if name in _SETTINGS}
    if settings:
        body["settings"] = settings
    return _Call("PUT", f"/api/sessions/{_id(chat_id)}", _field("created", _bool), body=body)


def _begin_turn(chat_id: str) -> _Call[int]:
    return _Call("POST", f"/api/turns/{_id(chat_id)}/begin", _field("turn", _int), body={})


def _end_turn(chat_id: str) -> _Call[bool]:
    return _Call("POST", f"/api/turns/{_id(chat_id)}/end", _field("ended", _bool), body={})


def _context(chat_id: str) -> _Call[str | None]:
    return _Call("POST", f"/api/turns/{_id(chat_id)}/context", _field("text", _optional_str), body={})


def _edit_todos(chat_id: str, todos: Sequence[Todo | Mapping[str, Any]], based_on: int) -> _Call[int]:
    items = [{"content": t.content, "status": t.status} if isinstance(t, Todo) else dict(t) for t in todos]
    body = {"todos": items, "basedOn": based_on}
    return _Call("POST", f"/api/oda/chats/{_id(chat_id)}/todos", _field("length", _int), body=body)


def _reminder(chat_id: str, always: bool, every_turns: int | None) -> _Call[str | None]:
    query = {"always": "true"} if always else {}
    if every_turns is not None:
        query["everyTurns"] = str(every_turns)
    return _Call("GET", f"/api/sessions/{_id(chat_id)}/reminder", _field("text", _optional_str), query=query)


def _screen(chat_id: str) -> _Call[Screen]:
    return _Call("GET", f"/api/oda/chats/{_id(chat_id)}", screen_of)


def _cards(chat_id: str, start: int | None, stop: int | None) -> _Call[CardPage]:
    query = {name: str(value) for name, value in (("from", start), ("to", stop)) if value is not None}
    return _Call("GET", f"/api/oda/chats/{_id(chat_id)}/cards", card_page_of, query=query)


def _start(chat_id: str, suggestion_id: str, model: str | None, permission: str | None) -> _Call[str]:
    body = {name: value for name, value in (("model", model), ("permission", permission)) if value is not None}
    path = f"/api/oda/chats/{_id(chat_id)}/suggestions/{_id(suggestion_id)}/start"
    return _Call("POST", path, _field("chatId", _str), body=body)


def _settle(chat_id: str, suggestion_id: str, action: str) -> _Call[None]:
    path = f"/api/oda/chats/{_id(chat_id)}/suggestions/{_id(suggestion_id)}/{action}"
    return _Call("POST", path, lambda _answer: None, body={})


def _list_chats(limit: int | None, cursor: str | None) -> _Call[ChatPage]:
    query = {name: str(value) for name, value in (("limit", limit), ("cursor", cursor)) if value is not None}
    return _Call("GET", "/api/sessions", chat_page_of, query=query)


def _delete_chat(chat_id: str) -> _Call[bool]:
    return _Call("DELETE", f"/api/sessions/{_id(chat_id)}", _field("deleted", _bool))


def _answer(call: _Call[T], response: httpx.Response) -> T:
    """The answer of `call`, read; or the server's failure as an `OdaError`."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    if response.is_success and body is not None:
        try:
            return call.read(body)
        except (KeyError, TypeError) as e:
            raise _bad_answer(response.status_code, f"{call.method} {call.path}: {e}") from e
    raise _failure(response.status_code, body)


def _failure(status: int, body: Any) -> OdaError:
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("message"), str):
        payload = error.get("payload")
        try:
            # A person's edit made on a list that changed since: the list as it stands, and the length it was read at.
            if error["code"] == "chat/changed":
                payload = _todos(payload)
            length = _optional_int(error.get("length"))
        except (KeyError, TypeError) as e:
            return _bad_answer(status, f"{error['code']}: {e}")
        return OdaError(error["code"], error["message"], status=status, payload=payload, length=length)
    return _bad_answer(status, "the answer is not one serve sends")


def _bad_answer(status: int, why: str) -> OdaError:
    return OdaError("oda-tasks/bad-answer", f"serve answered {status}: {why}", status=status)


def _missing_chat(e: OdaError) -> bool:
    return e.status == 404 and e.code == "store/missing-chat"


def _headers(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


class OdaClient:
    """A blocking client of `oda-tasks serve` at `url` (the server's address, as `serve` prints it).

    `token` is sent as `Authorization: Bearer`: the server's `ODA_TASKS_TOKEN`, or under
    `--auth jwt` an OAuth access token (`oda:read` to read, `oda:write` for tools, turns and
    actions); `None` for `serve --no-auth`. Close it (or use it in a `with` block) when done.

    Example::

        from oda_tasks import OdaClient

        with OdaClient("http://127.0.0.1:8765", token=os.environ["ODA_TASKS_TOKEN"]) as oda:
            oda.create_chat("chat-1", workspace="/repos/app", permission="ask")
            turn = oda.begin_turn("chat-1")
            print(oda.call_tool("chat-1", "todo_write", {"todos": []}).text)
            oda.end_turn("chat-1")
    """

    def __init__(self, url: str, token: str | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self._mcp = _mcp.Endpoint(f"{self.url}/mcp", _headers(token), timeout)
        self._http = httpx.Client(base_url=self.url, headers=_headers(token), timeout=timeout)

    def _send(self, call: _Call[T]) -> T:
        response = self._http.request(call.method, call.path, params=dict(call.query), json=call.body)
        return _answer(call, response)

    def close(self) -> None:
        """Closes the client's connections."""
        self._http.close()

    def __enter__(self) -> OdaClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def create_chat(self, chat_id: str, **session: Unpack[ChatSession]) -> bool:
        """Creates chat `chat_id` with its session, unless it exists; returns whether this call created it.

        `workspace` is the folder the chat works in (Start refuses an offer without one);
        `permission`, `model`, `preset`, `sandbox` and `approval` are its settings, which a chat
        started from its offers inherits (never with more permission); `title` names it;
        `agent="helper"` for a subagent's chat; `scheduled_task_folder=True` for a chat in a
        scheduled task's folder. A field of the wrong type is refused (`OdaError` `http/bad-request`).

        Example::

            oda.create_chat("chat-1", title="Fix the upload", workspace="/repos/app", permission="ask")
        """
        return self._send(_create_chat(chat_id, session))

    def begin_turn(self, chat_id: str) -> int:
        """Opens a model turn of the chat (ending the open one first); returns its number (1 for the first).

        Example::

            turn = oda.begin_turn("chat-1")
        """
        return self._send(_begin_turn(chat_id))

    def end_turn(self, chat_id: str) -> bool:
        """Closes the chat's open turn; returns whether one was open.

        Example::

            oda.end_turn("chat-1")
        """
        return self._send(_end_turn(chat_id))

    def reminder(self, chat_id: str, *, always: bool = False, every_turns: int | None = None) -> str | None:
        """The list's text for the model's context when it is due, else `None` (the server's rule,
        `todoReminder`): with `always=True` whenever the list has items (after compaction, on resume);
        otherwise when items are open and `every_turns` (default 3) whole turns passed without `todo_write`.

        Example::

            text = oda.reminder("chat-1", always=True)  # after compacting the conversation
        """
        return self._send(_reminder(chat_id, always, every_turns))

    def context(self, chat_id: str) -> str | None:
        """What the model must be told now of a person's edit of the list, else `None`: the notice
        (what the person changed, and the list as edited) when their edit is the list's latest
        change and the model was not told of it. The server records it as told, so it is given
        once: put it into the model's next request. The integrations ask before each model request.

        Example::

            notice = oda.context("chat-1")  # before the model's next request
            if notice is not None:
                messages.append({"role": "user", "content": notice})
        """
        return self._send(_context(chat_id))

    def screen(self, chat_id: str) -> Screen:
        """The chat's first screen: its list, plan, suggestions and last cards.

        Example::

            screen = oda.screen("chat-1")
            print(screen.plan.state, [s.title for s in screen.open])
        """
        return self._send(_screen(chat_id))

    def cards(self, chat_id: str, start: int | None = None, stop: int | None = None) -> CardPage:
        """A page of the chat's cards, `start` to `stop` as a Python slice (negative counts from the end).

        Example::

            older = oda.cards("chat-1", 0, 20).cards
        """
        return self._send(_cards(chat_id, start, stop))

    def edit_todos(self, chat_id: str, todos: Sequence[Todo | Mapping[str, Any]], *, based_on: int) -> int:
        """A person's edit of the list: the whole list (`Todo`s, or `{"content", "status"}` objects),
        under `todo_write`'s rules, made on the log length `based_on` their screen showed
        (`Screen.length`). Returns the log's length after it, the next edit's `based_on`. The
        model is told of it once, at its next step (`context`), or by the refusal of its next
        `todo_write`. A list that breaks a rule raises `OdaError` `todos/invalid` with the
        core's refusal text; a list that changed after `based_on` raises `chat/changed`, with
        the list as it stands in `payload` (`Todo`s) and the length it was read at in `length`:
        nothing is recorded, and the edit is made again on that list, or the person asked.

        Example::

            screen = oda.screen("chat-1")
            todos = [*screen.todos, Todo("Tell the team", "pending")]
            try:
                oda.edit_todos("chat-1", todos, based_on=screen.length)
            except OdaError as e:
                if e.code != "chat/changed":
                    raise
                oda.edit_todos("chat-1", [*e.payload, Todo("Tell the team", "pending")], based_on=e.length)
        """
        return self._send(_edit_todos(chat_id, todos, based_on))

    def start(
        self, chat_id: str, suggestion_id: str, *, model: str | None = None, permission: str | None = None
    ) -> str:
        """Starts the offer as a new chat (once: repeating it answers the same chat); returns the new chat's id.

        Example::

            new_chat = oda.start("chat-1", "s1")
        """
        return self._send(_start(chat_id, suggestion_id, model, permission))

    def draft(self, chat_id: str, suggestion_id: str) -> None:
        """Settles the offer as drafted.

        Example::

            oda.draft("chat-1", "s1")
        """
        self._send(_settle(chat_id, suggestion_id, "draft"))

    def dismiss(self, chat_id: str, suggestion_id: str) -> None:
        """Dismisses the offer.

        Example::

            oda.dismiss("chat-1", "s1")
        """
        self._send(_settle(chat_id, suggestion_id, "dismiss"))

    def restore(self, chat_id: str, suggestion_id: str) -> None:
        """Opens a dismissed offer again.

        Example::

            oda.restore("chat-1", "s1")
        """
        self._send(_settle(chat_id, suggestion_id, "restore"))

    def list_chats(self, *, limit: int | None = None, cursor: str | None = None) -> ChatPage:
        """A page of the owner's chats, newest first (`limit` 1 to 100, default 50);
        `cursor` is the page before's `next`.

        Example::

            page = oda.list_chats(limit=20)
            while page.next is not None:
                page = oda.list_chats(limit=20, cursor=page.next)
        """
        return self._send(_list_chats(limit, cursor))

    def delete_chat(self, chat_id: str) -> bool:
        """Deletes the chat and every entry of it; returns whether it existed.

        Example::

            oda.delete_chat("chat-1")
        """
        try:
            return self._send(_delete_chat(chat_id))
        except OdaError as e:
            if _missing_chat(e):
                return False
            raise

    def tools(self) -> list[ToolDefinition]:
        """The tools as the server lists them over MCP: their names, descriptions and input schemas.

        Example::

            names = [t.name for t in oda.tools()]  # ["todo_write", "suggest_task"]
        """
        return _mcp.blocking(self._mcp.list_tools)

    def call_tool(self, chat_id: str, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Calls tool `name` over MCP in chat `chat_id` (named in the call's `_meta`), in its open turn.

        Example::

            result = oda.call_tool("chat-1", "todo_write", {"todos": [{"content": "Ship", "status": "pending"}]})
            print(result.text)  # what the model reads
        """
        return _mcp.blocking(lambda: self._mcp.call_tool(chat_id, name, arguments))


class AsyncOdaClient:
    """The asynchronous client of `oda-tasks serve`: `OdaClient`'s methods as coroutines.

    Example::

        from oda_tasks import AsyncOdaClient

        async with AsyncOdaClient("http://127.0.0.1:8765", token=os.environ["ODA_TASKS_TOKEN"]) as oda:
            await oda.create_chat("chat-1", workspace="/repos/app")
            print((await oda.screen("chat-1")).todos)
    """

    def __init__(self, url: str, token: str | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self._headers = _headers(token)
        self._timeout = timeout
        self._mcp = _mcp.Endpoint(f"{self.url}/mcp", self._headers, timeout)
        # httpx's async pool belongs to the event loop it first ran in: one per loop.
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._http is None or self._loop is not loop:
            self._http = httpx.AsyncClient(base_url=self.url, headers=self._headers, timeout=self._timeout)
            self._loop = loop
        return self._http

    async def _send(self, call: _Call[T]) -> T:
        response = await self._client().request(call.method, call.path, params=dict(call.query), json=call.body)
        return _answer(call, response)

    async def aclose(self) -> None:
        """Closes the client's connections."""
        if self._http is not None and self._loop is asyncio.get_running_loop():
            await self._http.aclose()
        self._http = None

    async def __aenter__(self) -> AsyncOdaClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.aclose()

    async def create_chat(self, chat_id: str, **session: Unpack[ChatSession]) -> bool:
        """`OdaClient.create_chat`.

        Example::

            await oda.create_chat("chat-1", workspace="/repos/app", permission="ask")
        """
        return await self._send(_create_chat(chat_id, session))

    async def begin_turn(self, chat_id: str) -> int:
        """`OdaClient.begin_turn`.

        Example::

            turn = await oda.begin_turn("chat-1")
        """
        return await self._send(_begin_turn(chat_id))

    async def end_turn(self, chat_id: str) -> bool:
        """`OdaClient.end_turn`.

        Example::

            await oda.end_turn("chat-1")
        """
        return await self._send(_end_turn(chat_id))

    async def reminder(self, chat_id: str, *, always: bool = False, every_turns: int | None = None) -> str | None:
        """`OdaClient.reminder`.

        Example::

            text = await oda.reminder("chat-1", always=True)
        """
        return await self._send(_reminder(chat_id, always, every_turns))

    async def context(self, chat_id: str) -> str | None:
        """`OdaClient.context`.

        Example::

            notice = await oda.context("chat-1")
        """
        return await self._send(_context(chat_id))

    async def screen(self, chat_id: str) -> Screen:
        """`OdaClient.screen`.

        Example::

            screen = await oda.screen("chat-1")
        """
        return await self._send(_screen(chat_id))

    async def cards(self, chat_id: str, start: int | None = None, stop: int | None = None) -> CardPage:
        """`OdaClient.cards`.

        Example::

            older = (await oda.cards("chat-1", 0, 20)).cards
        """
        return await self._send(_cards(chat_id, start, stop))

    async def edit_todos(self, chat_id: str, todos: Sequence[Todo | Mapping[str, Any]], *, based_on: int) -> int:
        """`OdaClient.edit_todos`.

        Example::

            screen = await oda.screen("chat-1")
            await oda.edit_todos("chat-1", [*screen.todos, Todo("Tell the team", "pending")], based_on=screen.length)
        """
        return await self._send(_edit_todos(chat_id, todos, based_on))

    async def start(
        self, chat_id: str, suggestion_id: str, *, model: str | None = None, permission: str | None = None
    ) -> str:
        """`OdaClient.start`.

        Example::

            new_chat = await oda.start("chat-1", "s1")
        """
        return await self._send(_start(chat_id, suggestion_id, model, permission))

    async def draft(self, chat_id: str, suggestion_id: str) -> None:
        """`OdaClient.draft`.

        Example::

            await oda.draft("chat-1", "s1")
        """
        await self._send(_settle(chat_id, suggestion_id, "draft"))

    async def dismiss(self, chat_id: str, suggestion_id: str) -> None:
        """`OdaClient.dismiss`.

        Example::

            await oda.dismiss("chat-1", "s1")
        """
        await self._send(_settle(chat_id, suggestion_id, "dismiss"))

    async def restore(self, chat_id: str, suggestion_id: str) -> None:
        """`OdaClient.restore`.

        Example::

            await oda.restore("chat-1", "s1")
        """
        await self._send(_settle(chat_id, suggestion_id, "restore"))

    async def list_chats(self, *, limit: int | None = None, cursor: str | None = None) -> ChatPage:
        """`OdaClient.list_chats`.

        Example::

            page = await oda.list_chats(limit=20)
        """
        return await self._send(_list_chats(limit, cursor))

    async def delete_chat(self, chat_id: str) -> bool:
        """`OdaClient.delete_chat`.

        Example::

            await oda.delete_chat("chat-1")
        """
        try:
            return await self._send(_delete_chat(chat_id))
        except OdaError as e:
            if _missing_chat(e):
                return False
            raise

    async def tools(self) -> list[ToolDefinition]:
        """`OdaClient.tools`.

        Example::

            names = [t.name for t in await oda.tools()]
        """
        return await self._mcp.list_tools()

    async def call_tool(self, chat_id: str, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """`OdaClient.call_tool`.

        Example::

            result = await oda.call_tool("chat-1", "suggest_task", {"title": "Add retries", "tldr": "…", "brief": "…"})
        """
        return await self._mcp.call_tool(chat_id, name, arguments)
