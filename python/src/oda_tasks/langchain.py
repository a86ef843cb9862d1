"""`oda_tasks.langchain`: `OdaMiddleware`, a LangChain v1 `AgentMiddleware` for
`create_agent` (LangGraph underneath), the Python twin of `odaTasksMiddleware`:
`todo_write` and `suggest_task` from `oda-tasks serve` bound to the chat, one
agent run one turn of the chat (begun before the agent, ended after it, also when
its model call raises), and what the model should be told (the list's reminder, a
person's edit of the list) added before its model step. It replaces LangChain's
`TodoListMiddleware`.

Needs `pip install "oda-tasks[langchain]"`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, Literal, TypeVar

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_config
from langgraph.runtime import Runtime

from . import _mcp
from ._client import AsyncOdaClient, OdaClient
from ._turn import (
    Remind,
    Turn,
    TurnRule,
    check_rule,
    end_turn,
    end_turn_async,
    open_turn,
    open_turn_async,
    tell,
    tell_async,
)
from ._types import ToolDefinition, ToolResult

__all__ = ["OdaMiddleware"]

T = TypeVar("T")

_NAME = "OdaMiddleware"
_TODO_LIST_TOOL = "write_todos"
"""The task list tool of LangChain's own `TodoListMiddleware`, which this middleware replaces."""

Client = OdaClient | AsyncOdaClient


class OdaMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """The two tools of `oda-tasks serve` for a LangChain v1 agent, one turn of the chat per agent run.

    - `chat_id`: the chat every run works on; omitted, each run's `configurable.thread_id`
      (LangGraph's conversation key, the one a checkpointer uses).
    - `remind`: when the list goes back into the model's context (`"due"`, the server's rule;
      `"always"`, after compaction or on resume; `"never"`), or a function of the run's
      `Runtime` (its `context`) answering one; `every_turns` the rule's count (default 3).
      A text that is due is added to the conversation as a message before the run's next
      model step, once; so is the server's notice of a person's edit of the list made since
      the model's last step (after the reminder, when both are due).

    Each `ToolMessage`'s content is the server's exact text, refusals included; its artifact is
    `{"card": …}` or `{"offer": …}`. With an `OdaClient` the agent runs with `invoke` and
    `ainvoke`; with an `AsyncOdaClient`, with `ainvoke` and `astream` only. The chat must exist.

    Example::

        from langchain.agents import create_agent
        from oda_tasks import OdaClient
        from oda_tasks.langchain import OdaMiddleware

        oda = OdaClient("http://127.0.0.1:8765", token=os.environ["ODA_TASKS_TOKEN"])
        agent = create_agent("openai:gpt-5", tools=[], middleware=[OdaMiddleware(oda)])
        agent.invoke(
            {"messages": [{"role": "user", "content": "Plan the release"}]}, {"configurable": {"thread_id": "chat-1"}}
        )
    """

    def __init__(
        self,
        client: Client,
        *,
        chat_id: str | None = None,
        remind: Remind | Callable[[Runtime[Any]], Remind] = "due",
        every_turns: int | None = None,
    ) -> None:
        if not isinstance(client, (OdaClient, AsyncOdaClient)):
            raise TypeError(f"oda-tasks: {_NAME} needs an OdaClient or an AsyncOdaClient (got {type(client).__name__})")
        if callable(chat_id):
            raise TypeError(f"oda-tasks: {_NAME}'s `chat_id` is a string; omitted, each run's thread_id is its chat")
        check_rule(chat_id, remind, every_turns)
        self._client = client
        self._rule: TurnRule[Runtime[Any]] = TurnRule(chat_id, remind, every_turns)
        self._runs: dict[str, Turn] = {}
        definitions = client.tools() if isinstance(client, OdaClient) else _mcp.blocking(client.tools)
        self.tools: Sequence[BaseTool] = [_OdaTool(self, definition) for definition in definitions]

    @property
    def name(self) -> str:
        return _NAME

    # Which chat: the fixed one, or the run's thread.

    def _chat(self, runtime: Runtime[Any] | None, config: RunnableConfig | None = None) -> str:
        if isinstance(self._rule.chat_id, str):
            return self._rule.chat_id
        info = None if runtime is None else runtime.execution_info
        thread = info.thread_id if info is not None else None
        if thread is None:
            configurable = (config if config is not None else get_config()).get("configurable") or {}
            thread = configurable.get("thread_id")
        if not isinstance(thread, str) or thread == "":
            raise TypeError(
                f"oda-tasks: {_NAME} has no chat id: pass `chat_id` to {_NAME}, "
                'or run the agent with {"configurable": {"thread_id": <the chat\'s id>}}'
            )
        return thread

    # Calls of the client, from the blocking and the async hooks.

    def _sync(self, call: Callable[[OdaClient], T]) -> T:
        if not isinstance(self._client, OdaClient):
            raise TypeError(
                f"oda-tasks: {_NAME} was given an AsyncOdaClient: run the agent with ainvoke or astream, "
                "or give the middleware an OdaClient"
            )
        return call(self._client)

    async def _async(self, call: Callable[[OdaClient], T], acall: Callable[[AsyncOdaClient], Awaitable[T]]) -> T:
        if isinstance(self._client, AsyncOdaClient):
            return await acall(self._client)
        client = self._client
        return await asyncio.to_thread(call, client)

    async def _aend(self, turn: Turn, *, failed: bool) -> None:
        await self._async(
            partial(end_turn, turn=turn, failed=failed), partial(end_turn_async, turn=turn, failed=failed)
        )

    def _open(self, chat: str, runtime: Runtime[Any]) -> Callable[[OdaClient], Turn]:
        remind, every = self._rule.when(runtime), self._rule.every_turns
        return lambda client: open_turn(client, chat, remind, every)

    def _aopen(self, chat: str, runtime: Runtime[Any]) -> Callable[[AsyncOdaClient], Awaitable[Turn]]:
        remind, every = self._rule.when(runtime), self._rule.every_turns
        return lambda client: open_turn_async(client, chat, remind, every)

    # The hooks.

    def before_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        chat = self._chat(runtime)
        previous = self._runs.pop(chat, None)
        # A run still registered on this chat failed outside its model call: its turn ends first.
        if previous is not None:
            self._sync(partial(end_turn, turn=previous, failed=True))
        self._runs[chat] = self._sync(self._open(chat, runtime))
        return None

    async def abefore_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        chat = self._chat(runtime)
        previous = self._runs.pop(chat, None)
        if previous is not None:
            await self._aend(previous, failed=True)
        self._runs[chat] = await self._async(self._open(chat, runtime), self._aopen(chat, runtime))
        return None

    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        chat = self._chat(runtime)
        turn = self._runs.get(chat)
        if turn is None:
            turn = self._runs[chat] = self._sync(self._open(chat, runtime))
        self._sync(partial(tell, turn=turn))
        return _told(turn)

    async def abefore_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        chat = self._chat(runtime)
        turn = self._runs.get(chat)
        if turn is None:
            turn = self._runs[chat] = await self._async(self._open(chat, runtime), self._aopen(chat, runtime))
        await self._async(partial(tell, turn=turn), partial(tell_async, turn=turn))
        return _told(turn)

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelResponse[Any] | AIMessage:
        chat = self._chat(request.runtime)
        if _todo_list(request):
            stale = self._runs.pop(chat, None)
            if stale is not None:
                self._sync(partial(end_turn, turn=stale, failed=True))
            raise _todo_list_error()
        # A model call after the run's turn ended (a retry by a middleware listed before this one) opens the next.
        if chat not in self._runs:
            self._runs[chat] = self._sync(self._open(chat, request.runtime))
        try:
            return handler(request)
        except BaseException:
            # The model call's failure is the one to report; the run's turn still ends.
            ended = self._runs.pop(chat, None)
            if ended is not None:
                self._sync(partial(end_turn, turn=ended, failed=True))
            raise

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]
    ) -> ModelResponse[Any] | AIMessage:
        chat = self._chat(request.runtime)
        if _todo_list(request):
            turn = self._runs.pop(chat, None)
            if turn is not None:
                await self._aend(turn, failed=True)
            raise _todo_list_error()
        if chat not in self._runs:
            self._runs[chat] = await self._async(self._open(chat, request.runtime), self._aopen(chat, request.runtime))
        try:
            return await handler(request)
        except BaseException:
            turn = self._runs.pop(chat, None)
            if turn is not None:
                await self._aend(turn, failed=True)
            raise

    def after_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        turn = self._runs.pop(self._chat(runtime), None)
        if turn is not None:
            self._sync(partial(end_turn, turn=turn, failed=False))
        return None

    async def aafter_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        turn = self._runs.pop(self._chat(runtime), None)
        if turn is not None:
            await self._aend(turn, failed=False)
        return None


def _todo_list(request: ModelRequest[Any]) -> bool:
    """Whether LangChain's `TodoListMiddleware` is beside this one (its tool is offered to the model)."""
    return any(
        (tool.name if isinstance(tool, BaseTool) else tool.get("name")) == _TODO_LIST_TOOL for tool in request.tools
    )


def _todo_list_error() -> TypeError:
    return TypeError(
        f"oda-tasks: {_NAME} replaces LangChain's TodoListMiddleware: remove TodoListMiddleware "
        f"(its {_TODO_LIST_TOOL} tool) from the agent's middleware; two task lists would confuse the model"
    )


def _told(turn: Turn) -> dict[str, Any] | None:
    """The texts due before this model step, added to the conversation once (each with an id of its own)."""
    texts = turn.untold()
    if not texts:
        return None
    start = len(turn.texts()) - len(texts)
    return {
        "messages": [
            HumanMessage(content=text, id=f"oda-tasks/{turn.chat_id}/turn-{turn.number}/{start + i}")
            for i, text in enumerate(texts)
        ]
    }


class _OdaTool(BaseTool):
    """One of the server's tools, bound to the run's chat. The input schema is the server's, and
    every input reaches the server, which refuses a bad one with its exact text."""

    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    middleware: Any = None

    def __init__(self, middleware: OdaMiddleware, definition: ToolDefinition) -> None:
        super().__init__(name=definition.name, description=definition.description, args_schema=definition.input_schema)
        self.middleware = middleware

    def _run(self, config: RunnableConfig, **arguments: Any) -> tuple[str, dict[str, Any]]:
        owner: OdaMiddleware = self.middleware
        chat = owner._chat(None, config)
        return _content_and_artifact(owner._sync(lambda client: client.call_tool(chat, self.name, arguments)))

    async def _arun(self, config: RunnableConfig, **arguments: Any) -> tuple[str, dict[str, Any]]:
        owner: OdaMiddleware = self.middleware
        chat = owner._chat(None, config)
        result = await owner._async(
            lambda client: client.call_tool(chat, self.name, arguments),
            lambda client: client.call_tool(chat, self.name, arguments),
        )
        return _content_and_artifact(result)


def _content_and_artifact(result: ToolResult) -> tuple[str, dict[str, Any]]:
    """The model reads the text; the artifact carries what a UI draws."""
    artifact = {key: value for key, value in (("card", result.card), ("offer", result.offer)) if value is not None}
    return result.text, artifact
