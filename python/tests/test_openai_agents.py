"""oda_tools in the OpenAI Agents SDK, driven by the SDK's own ScriptedModel (no network) against
a real serve: the model reads the exact texts, the run hooks make each run one turn (a handoff
stays in it), the turn closes when the run raises, the list comes back in the instructions
after a compaction, and a person's edit made between two model calls is told there once (a
stale todo_write after it refused)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from agents import Agent, AgentHooks, FunctionTool, ModelResponse, RunContextWrapper, Runner, Tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call
from texts import (
    GOOD,
    NOTICE,
    ONE_PER_TURN,
    REFUSAL,
    SUGGEST_DESCRIPTION,
    WITH_C,
    WITH_CD,
    offer,
    plan,
    reminder,
    suggested,
    todos,
    updated,
)

from oda_tasks import AsyncOdaClient, OdaClient
from oda_tasks.openai_agents import oda_tools

pytestmark = pytest.mark.anyio

set_tracing_disabled(True)


@dataclass
class Deps:
    chat_id: str
    compacted: bool = False


def call(name: str, arguments: dict[str, Any], n: int) -> Any:
    return function_call(name, arguments, call_id=f"call-{n}")


def outputs(model: ScriptedModel, index: int) -> list[str]:
    """The tool outputs the model read in its call `index`."""
    items = model.calls[index].input
    return [item["output"] for item in items if isinstance(item, dict) and item.get("type") == "function_call_output"]


async def test_each_run_is_one_turn_and_the_model_reads_the_exact_texts(
    aoda: AsyncOdaClient, oda: OdaClient, chat: str
) -> None:
    oda_ = oda_tools(aoda, chat_id=lambda deps: deps.chat_id)
    suggest = oda_.tools[1]
    assert isinstance(suggest, FunctionTool)
    assert (suggest.name, suggest.description) == ("suggest_task", SUGGEST_DESCRIPTION)
    model = ScriptedModel(
        [
            [
                call("todo_write", plan(("Reproduce", "in_progress"), ("Fix", "pending")), 1),
                call("suggest_task", offer("Add retries"), 2),
            ],
            [call("suggest_task", offer("Add metrics"), 3)],
            [assistant_message("Done.")],
            [call("suggest_task", offer("Add metrics"), 4)],
            [assistant_message("Done again.")],
        ]
    )
    agent = Agent(
        name="Coder", instructions=oda_.instructions("You are a coding agent."), tools=oda_.tools, model=model
    )
    result = await oda_.run(agent, "Fix the upload", context=Deps(chat))
    assert result.final_output == "Done."
    assert outputs(model, 1) == [updated(1, 1, 0), suggested("Add retries")]
    assert outputs(model, 2)[-1] == ONE_PER_TURN
    assert oda.end_turn(chat) is False, "the hooks ended the run's turn"

    # Runner.run with the hooks alone: the next run, the next turn.
    await Runner.run(agent, "Go on", context=Deps(chat), hooks=oda_.hooks)
    assert outputs(model, 4)[-1] == suggested("Add metrics")
    assert oda.end_turn(chat) is False
    assert [s.title for s in oda.screen(chat).open] == ["Add metrics", "Add retries"]
    assert oda.begin_turn(chat) == 3


async def test_a_handoff_stays_in_the_runs_turn(aoda: AsyncOdaClient, oda: OdaClient, chat: str) -> None:
    oda_ = oda_tools(aoda, chat_id=chat)
    helper_model = ScriptedModel([[call("suggest_task", offer("Add metrics"), 2)], [assistant_message("Done.")]])
    helper = Agent(name="Helper", tools=oda_.tools, model=helper_model)
    lead_model = ScriptedModel(
        [[call("suggest_task", offer("Add retries"), 1)], [function_call("transfer_to_helper", {}, call_id="h")]]
    )
    lead = Agent(name="Lead", tools=oda_.tools, handoffs=[helper], model=lead_model)
    await oda_.run(lead, "Plan")
    assert outputs(helper_model, 1)[-1] == ONE_PER_TURN, "the handoff opened no turn of its own"
    assert oda.end_turn(chat) is False


async def test_the_turn_closes_when_the_run_raises(aoda: AsyncOdaClient, oda: OdaClient, chat: str) -> None:
    oda_ = oda_tools(aoda, chat_id=chat)
    model = ScriptedModel(
        [[call("todo_write", plan(("Half done", "in_progress")), 1)], RuntimeError("the model's provider is down")]
    )
    agent = Agent(name="Coder", tools=oda_.tools, model=model)
    with pytest.raises(RuntimeError, match="the model's provider is down"):
        await oda_.run(agent, "Fix it")
    assert oda.end_turn(chat) is False, "no turn left open"
    assert oda.screen(chat).plan.state == "finished"

    # With Runner.run and the hooks alone, a run that raises is heard at the chat's next run, which ends it first.
    failing = ScriptedModel([RuntimeError("down again"), [assistant_message("Back.")]])
    agent = Agent(name="Coder", tools=oda_.tools, model=failing)
    with pytest.raises(RuntimeError, match="down again"):
        await Runner.run(agent, "Try", hooks=oda_.hooks)
    await Runner.run(agent, "Try again", hooks=oda_.hooks)
    assert oda.end_turn(chat) is False
    assert oda.begin_turn(chat) == 4, "turns 2 (raised, ended by turn 3) and 3"


async def test_the_reminder_in_the_instructions_after_a_compaction(
    aoda: AsyncOdaClient, oda: OdaClient, chat: str
) -> None:
    oda_ = oda_tools(aoda, chat_id=lambda deps: deps.chat_id, remind=lambda deps: "always" if deps.compacted else "due")
    model = ScriptedModel(
        [
            [call("todo_write", plan(("Write tests", "in_progress"), ("Ship", "pending")), 1)],
            [assistant_message("Planned.")],
            [assistant_message("Resumed.")],
        ]
    )
    agent = Agent(
        name="Coder", instructions=oda_.instructions("You are a coding agent."), tools=oda_.tools, model=model
    )
    await oda_.run(agent, "Plan it", context=Deps(chat))
    assert [c.system_instructions for c in model.calls] == ["You are a coding agent."] * 2
    await oda_.run(agent, "Go on", context=Deps(chat, compacted=True))
    text = reminder(("Write tests", "in_progress"), ("Ship", "pending"))
    assert model.calls[2].system_instructions == f"You are a coding agent.\n\n{text}"


Items = tuple[tuple[str, str], ...]


class Person(AgentHooks[Any]):
    """A person editing the chat's list while the agent runs: to `after_tools[n]` once the tool calls
    of the model's call n (from 1) ran, before its next call, and to `writing[n]` once the model
    answered call n, before its tool calls run."""

    def __init__(
        self, aoda: AsyncOdaClient, chat: str, after_tools: dict[int, Items], writing: dict[int, Items]
    ) -> None:
        self.aoda, self.chat, self.after_tools, self.writing = aoda, chat, after_tools, writing
        self.calls = 0

    async def _edit(self, items: Items) -> None:
        await self.aoda.edit_todos(self.chat, todos(*items), based_on=(await self.aoda.screen(self.chat)).length)

    async def on_llm_end(self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse) -> None:
        self.calls += 1
        if self.calls in self.writing:
            await self._edit(self.writing[self.calls])

    async def on_tool_end(self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool, result: object) -> None:
        if self.calls in self.after_tools:
            await self._edit(self.after_tools[self.calls])


async def test_a_persons_edit_is_told_once_and_a_stale_write_is_refused(
    aoda: AsyncOdaClient, oda: OdaClient, chat: str
) -> None:
    oda_ = oda_tools(aoda, chat_id=chat)
    model = ScriptedModel(
        [
            [call("todo_write", plan(*GOOD), 1)],
            # Written after the model read the first edit, before it could see the second: stale.
            [call("todo_write", plan(*WITH_C), 2)],
            [call("todo_write", plan(*WITH_CD), 3)],
            [assistant_message("Done.")],
        ]
    )
    # A person adds an item between the model's first two calls, and another while it writes its second.
    person = Person(aoda, chat, after_tools={1: WITH_C}, writing={2: WITH_CD})
    own = "You are a coding agent."
    agent = Agent(name="Coder", instructions=oda_.instructions(own), tools=oda_.tools, model=model, hooks=person)
    await oda_.run(agent, "Plan the release")
    told = f"{own}\n\n{NOTICE}"
    assert [c.system_instructions for c in model.calls] == [own, told, told, told], "told at the next call, once"
    assert [outputs(model, n)[-1] for n in (1, 2, 3)] == [updated(1, 1, 0), REFUSAL, updated(3, 1, 0)]
    cards = oda.cards(chat).cards
    assert [card.todos for card in cards] == [tuple(todos(*items)) for items in (GOOD, WITH_C, WITH_CD, WITH_CD)]
    assert oda.screen(chat).todos == tuple(todos(*WITH_CD)), "the person's items survive"


async def test_bad_options_are_refused(aoda: AsyncOdaClient, oda: OdaClient) -> None:
    with pytest.raises(TypeError, match=r"^oda-tasks: oda_tools needs an AsyncOdaClient \(got OdaClient\)$"):
        oda_tools(oda, chat_id="c")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^oda-tasks: `every_turns` must be a whole number >= 1 \(got 0\)$"):
        oda_tools(aoda, chat_id="c", every_turns=0)


async def test_a_streamed_run_with_the_hooks_is_one_turn(aoda: AsyncOdaClient, oda: OdaClient, chat: str) -> None:
    oda_ = oda_tools(aoda, chat_id=chat)
    model = ScriptedModel(
        [
            [call("suggest_task", offer("Add retries"), 1)],
            [call("suggest_task", offer("Add metrics"), 2)],
            [assistant_message("Done.")],
        ]
    )
    agent = Agent(name="Coder", tools=oda_.tools, model=model)
    streamed = Runner.run_streamed(agent, "Plan", hooks=oda_.hooks)
    async for _ in streamed.stream_events():
        pass
    assert outputs(model, 1)[-1] == suggested("Add retries")
    assert outputs(model, 2)[-1] == ONE_PER_TURN
    assert oda.end_turn(chat) is False, "the stream's end ended the turn"
    assert oda.begin_turn(chat) == 2
