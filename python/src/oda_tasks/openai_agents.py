"""`oda_tasks.openai_agents`: `todo_write` and `suggest_task` from `oda-tasks serve` as
function tools of the OpenAI Agents SDK, with run hooks (`RunHooks`) that open the chat's
turn when a run starts and close it when the run ends, and the agent's instructions with
what the model should be told (the list's reminder, a person's edit of the list) before
each model call.

Needs `pip install "oda-tasks[openai-agents]"`."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from agents import Agent, FunctionTool, RunContextWrapper, RunHooks, Runner, RunResult, Tool, TResponseInputItem
from agents.run_context import AgentHookContext
from agents.tool_context import ToolContext
from agents.usage import Usage

from . import _mcp
from ._client import AsyncOdaClient
from ._turn import Remind, Turn, TurnRule, check_rule, end_turn_async, open_turn_async, tell_async
from ._types import ToolDefinition

__all__ = ["OdaAgentTools", "oda_tools"]

Instructions = str | Callable[[RunContextWrapper[Any], Agent[Any]], str | Awaitable[str | None] | None] | None
"""An agent's own instructions, as `Agent(instructions=…)` takes them."""


@dataclass
class _Run:
    """A run's turn of a chat; the run is told apart by its `Usage`, one object for all of a run's hooks."""

    usage: Usage
    turn: Turn


class OdaAgentTools:
    """What `oda_tools` gives an OpenAI agent: `tools` (the two function tools), `hooks` (the run
    hooks that open and close the turn), `instructions(own)` (the agent's instructions with the
    list's reminder when it is due, and the notice of a person's edit) and `run(agent, input)`
    (`Runner.run` with the hooks, ending the turn also when the run raises).

    Example::

        oda = oda_tools(client, chat_id="chat-1")
        agent = Agent(name="Coder", instructions=oda.instructions("You are a coding agent."), tools=oda.tools)
        result = await oda.run(agent, "Fix the upload")
    """

    tools: list[Tool]
    """`todo_write` and `suggest_task`, `FunctionTool`s named, described and typed as the server lists them."""
    hooks: RunHooks[Any]
    """The run hooks: the turn begun at the run's first agent, ended at its final output."""

    def __init__(self, client: AsyncOdaClient, rule: TurnRule[Any], definitions: list[ToolDefinition]) -> None:
        self._client = client
        self._rule = rule
        self._runs: dict[str, _Run] = {}
        self.tools = [self._tool(definition) for definition in definitions]
        self.hooks = _OdaHooks(self)

    def _tool(self, definition: ToolDefinition) -> FunctionTool:
        async def invoke(context: ToolContext[Any], arguments: str) -> str:
            # Every input reaches the server, which refuses a bad one with its exact text.
            parsed = json.loads(arguments) if arguments.strip() else {}
            if not isinstance(parsed, dict):
                raise TypeError(f"the arguments of {definition.name} are not a JSON object")
            result = await self._client.call_tool(self._rule.chat(context.context), definition.name, parsed)
            return result.text

        return FunctionTool(
            name=definition.name,
            description=definition.description,
            params_json_schema=definition.input_schema,
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )

    def instructions(self, own: Instructions = None) -> Callable[[RunContextWrapper[Any], Agent[Any]], Awaitable[str]]:
        """The agent's instructions (`own`: a string, a function as `Agent` takes it, or `None`)
        followed by what the model should be told in this run: the list's reminder when it is due,
        then the notice of each person's edit of the list, from the model call after it on (asked
        of the server before each model call, told once).

        Example::

            agent = Agent(name="Coder", instructions=oda.instructions("You are a coding agent."), tools=oda.tools)
        """

        async def instructions(context: RunContextWrapper[Any], agent: Agent[Any]) -> str:
            text = own(context, agent) if callable(own) else own
            if isinstance(text, Awaitable):
                text = await text
            run = self._runs.get(self._rule.chat(context.context))
            if run is None or run.usage is not context.usage:
                return text or ""
            await tell_async(self._client, run.turn)
            told = run.turn.texts()
            return "\n\n".join(part for part in (text, *told) if part)

        return instructions

    async def run(self, agent: Agent[Any], input: str | list[TResponseInputItem], **options: Any) -> RunResult:
        """`Runner.run(agent, input, hooks=self.hooks, **options)`: one run, one turn of the chat,
        ended when the run ends, also when it raises (no hook hears a run that raises).

        Example::

            result = await oda.run(agent, "Fix the upload", context=Deps(chat_id="chat-1"))
        """
        if "hooks" in options:
            raise TypeError("oda-tasks: OdaAgentTools.run passes its own hooks; call Runner.run to pass others")
        try:
            return await Runner.run(agent, input, hooks=self.hooks, **options)
        except BaseException:
            # The run's failure is the one to report: a chat the context does not name had no turn.
            with suppress(TypeError):
                run = self._runs.pop(self._rule.chat(options.get("context")), None)
                if run is not None:
                    await end_turn_async(self._client, run.turn, failed=True)
            raise


class _OdaHooks(RunHooks[Any]):
    def __init__(self, owner: OdaAgentTools) -> None:
        self._owner = owner

    async def on_agent_start(self, context: AgentHookContext[Any], agent: Agent[Any]) -> None:
        owner = self._owner
        chat = owner._rule.chat(context.context)
        current = owner._runs.get(chat)
        if current is not None and current.usage is context.usage:
            return  # a handoff: the run's turn goes on
        if current is not None:
            # A run registered on this chat raised (no hook heard it end): its turn ends first.
            del owner._runs[chat]
            await end_turn_async(owner._client, current.turn, failed=True)
        remind = owner._rule.when(context.context)
        turn = await open_turn_async(owner._client, chat, remind, owner._rule.every_turns)
        owner._runs[chat] = _Run(context.usage, turn)

    async def on_agent_end(self, context: AgentHookContext[Any], agent: Agent[Any], output: Any) -> None:
        owner = self._owner
        chat = owner._rule.chat(context.context)
        run = owner._runs.get(chat)
        if run is not None and run.usage is context.usage:
            del owner._runs[chat]
            await end_turn_async(owner._client, run.turn, failed=False)


def oda_tools(
    client: AsyncOdaClient,
    *,
    chat_id: str | Callable[[Any], str],
    remind: Remind | Callable[[Any], Remind] = "due",
    every_turns: int | None = None,
) -> OdaAgentTools:
    """The two tools of `oda-tasks serve` for the OpenAI Agents SDK, with the run hooks of the chat's turns.

    - `chat_id`: the chat, or a function of the run's context (`Runner.run(…, context=…)`) that names it.
    - `remind`: when the list goes back into the model's context through `instructions(…)`
      (`"due"`, the server's rule; `"always"`, after compaction or on resume; `"never"`), or a
      function of the run's context answering one; `every_turns` the rule's count (default 3).

    The tools' definitions are read from the server once, here. The chat must exist (`create_chat`).
    One run at a time per chat.

    Example::

        from agents import Agent
        from oda_tasks import AsyncOdaClient
        from oda_tasks.openai_agents import oda_tools

        oda = oda_tools(AsyncOdaClient("http://127.0.0.1:8765", token=os.environ["ODA_TASKS_TOKEN"]), chat_id="chat-1")
        agent = Agent(name="Coder", instructions=oda.instructions("You are a coding agent."), tools=oda.tools)
        result = await oda.run(agent, "Fix the upload")
    """
    if not isinstance(client, AsyncOdaClient):
        raise TypeError(f"oda-tasks: oda_tools needs an AsyncOdaClient (got {type(client).__name__})")
    if chat_id is None:
        raise TypeError("oda-tasks: oda_tools needs `chat_id`: the chat, or a function of the run's context")
    check_rule(chat_id, remind, every_turns)
    return OdaAgentTools(client, TurnRule(chat_id, remind, every_turns), _mcp.blocking(client.tools))
