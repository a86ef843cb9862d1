"""`oda_tasks.pydantic_ai`: `todo_write` and `suggest_task` from `oda-tasks serve` as one
Pydantic AI toolset. One agent run is one turn of the chat; each call goes over MCP
naming the chat in its `_meta`; the model reads the server's text, a refusal as it is
(no retry prompt added); the list's reminder, and the notice of a person's edit of the
list, go in through the toolset's instructions.

Needs `pip install "oda-tasks[pydantic-ai]"`."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

import pydantic_core
from pydantic_ai import RunContext, ToolReturn
from pydantic_ai.tools import AgentDepsT
from pydantic_ai.tools import ToolDefinition as PydanticToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool

from ._client import AsyncOdaClient
from ._turn import Remind, Turn, TurnRule, check_rule, end_turn_async, open_turn_async, tell_async
from ._types import ToolDefinition

__all__ = ["OdaToolset"]

# Every input reaches the server, which refuses a bad one with its exact text.
_ANY_OBJECT = pydantic_core.SchemaValidator(
    pydantic_core.core_schema.dict_schema(
        pydantic_core.core_schema.str_schema(), pydantic_core.core_schema.any_schema()
    )
)


class _Definitions:
    """The server's tool definitions, listed once and shared by a toolset's copies."""

    def __init__(self) -> None:
        self.tools: list[ToolDefinition] | None = None
        self.lock = asyncio.Lock()


class OdaToolset(AbstractToolset[AgentDepsT]):
    """The two tools of `oda-tasks serve` for a Pydantic AI agent, each run of the agent one turn of the chat.

    - `chat_id`: the chat, or a function of the run's `RunContext` that names it (from its deps).
    - `remind`: when the list goes back into the model's context through the toolset's instructions
      (`"due"`, the server's rule; `"always"`, after compaction or on resume; `"never"`), or a
      function of the `RunContext` answering one of them; `every_turns` the rule's count (default 3).
      A person's edit of the list is told there too, at the model's next request, once (the
      server's notice, after the reminder), and stays in the run's later requests.

    The turn is begun when the run starts (the chat must exist: `create_chat`) and ended when it
    ends, also when it raises. Each tool result's `metadata` holds the recorded `card` or `offer`.

    Example::

        from pydantic_ai import Agent
        from oda_tasks import AsyncOdaClient
        from oda_tasks.pydantic_ai import OdaToolset

        oda = AsyncOdaClient("http://127.0.0.1:8765", token=os.environ["ODA_TASKS_TOKEN"])
        agent = Agent("openai:gpt-5", deps_type=Chat, toolsets=[OdaToolset(oda, chat_id=lambda ctx: ctx.deps.chat_id)])
    """

    def __init__(
        self,
        client: AsyncOdaClient,
        *,
        chat_id: str | Callable[[RunContext[AgentDepsT]], str],
        remind: Remind | Callable[[RunContext[AgentDepsT]], Remind] = "due",
        every_turns: int | None = None,
        id: str | None = "oda-tasks",
    ) -> None:
        if not isinstance(client, AsyncOdaClient):
            raise TypeError(f"oda-tasks: OdaToolset needs an AsyncOdaClient (got {type(client).__name__})")
        if chat_id is None:
            raise TypeError("oda-tasks: OdaToolset needs `chat_id`: the chat, or a function of the run's context")
        check_rule(chat_id, remind, every_turns)
        self._client = client
        self._rule: TurnRule[RunContext[AgentDepsT]] = TurnRule(chat_id, remind, every_turns)
        self._id = id
        self._definitions = _Definitions()
        self._chat: str | None = None
        self._remind: Remind = "never"
        self._turn: Turn | None = None

    @property
    def id(self) -> str | None:
        return self._id

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        # A copy per run: its chat, and the turn it opens when the run enters it.
        run = copy.copy(self)
        run._chat = self._rule.chat(ctx)
        run._remind = self._rule.when(ctx)
        run._turn = None
        return run

    async def __aenter__(self) -> OdaToolset[AgentDepsT]:
        if self._chat is not None and self._turn is None:
            self._turn = await open_turn_async(self._client, self._chat, self._remind, self._rule.every_turns)
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        turn, self._turn = self._turn, None
        if turn is not None:
            await end_turn_async(self._client, turn, failed=error is not None)

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> str | None:
        # Asked for each model request, after its tool results are in: an edit made meanwhile reaches it.
        if self._turn is None:
            return None
        await tell_async(self._client, self._turn)
        texts = self._turn.texts()
        return "\n\n".join(texts) if texts else None

    async def _tools(self) -> list[ToolDefinition]:
        async with self._definitions.lock:
            if self._definitions.tools is None:
                self._definitions.tools = await self._client.tools()
            return self._definitions.tools

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        return {
            tool.name: ToolsetTool(
                toolset=self,
                tool_def=PydanticToolDefinition(
                    name=tool.name, description=tool.description, parameters_json_schema=tool.input_schema
                ),
                max_retries=ctx.max_retries,
                args_validator=_ANY_OBJECT,
            )
            for tool in await self._tools()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        chat = self._chat if self._chat is not None else self._rule.chat(ctx)
        result = await self._client.call_tool(chat, name, tool_args)
        ui = {key: value for key, value in (("card", result.card), ("offer", result.offer)) if value is not None}
        # The model reads the text, a refusal included, as the server wrote it.
        return ToolReturn(return_value=result.text, metadata=ui) if ui else result.text
