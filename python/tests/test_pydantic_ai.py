"""OdaToolset in a Pydantic AI agent driven by FunctionModel (no network) against a real serve:
the model reads the exact texts (a refusal as it is, no retry prompt), each run is one turn,
the turn closes when the run raises, the list comes back through the toolset's instructions
when it is due and after a compaction, and a person's edit made between two model steps is
told there once, a stale todo_write after it refused."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from texts import (
    GOOD,
    NOTICE,
    ONE_PER_TURN,
    REFUSAL,
    WITH_C,
    WITH_CD,
    notice,
    offer,
    plan,
    reminder,
    suggested,
    todos,
    updated,
)

from oda_tasks import AsyncOdaClient, OdaClient, Suggestion, TodoCard
from oda_tasks.pydantic_ai import OdaToolset

pytestmark = pytest.mark.anyio

Step = Sequence[tuple[str, dict[str, Any]]]


@dataclass
class Chat:
    chat_id: str
    compacted: bool = False


@dataclass
class Script:
    """A model that makes the calls of step i on its i-th request, then says it is done; it keeps
    what it read: each request's tool returns (and retry prompts) and instructions."""

    steps: Sequence[Step]
    read: list[list[tuple[str, Any]]]
    instructions: list[str | None]

    def model(self) -> FunctionModel:
        def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.instructions.append(info.instructions)
            last = messages[-1]
            assert isinstance(last, ModelRequest)
            self.read.append(
                [
                    (type(part).__name__, part.content)
                    for part in last.parts
                    if isinstance(part, (ToolReturnPart, RetryPromptPart))
                ]
            )
            asked = sum(1 for message in messages if isinstance(message, ModelResponse))
            if asked < len(self.steps):
                return ModelResponse(parts=[ToolCallPart(name, args) for name, args in self.steps[asked]])
            return ModelResponse(parts=[TextPart("Done.")])

        return FunctionModel(reply)


def script(*steps: Step) -> Script:
    return Script(steps, [], [])


def agent_for(aoda: AsyncOdaClient, **options: Any) -> Agent[Chat, str]:
    def chat_of(ctx: RunContext[Chat]) -> str:
        return ctx.deps.chat_id

    return Agent(
        deps_type=Chat,
        instructions="You are a coding agent.",
        toolsets=[OdaToolset(aoda, chat_id=chat_of, **options)],
    )


async def test_each_run_is_one_turn_and_the_model_reads_the_exact_texts(
    aoda: AsyncOdaClient, oda: OdaClient, chat: str
) -> None:
    agent = agent_for(aoda)
    first = script(
        [
            ("todo_write", plan(("Reproduce", "in_progress"), ("Fix", "pending"))),
            ("suggest_task", offer("Add retries")),
        ],
        [("suggest_task", offer("Add metrics"))],
    )
    result = await agent.run("Fix the upload", deps=Chat(chat), model=first.model())
    assert first.read == [
        [],
        [("ToolReturnPart", updated(1, 1, 0)), ("ToolReturnPart", suggested("Add retries"))],
        [("ToolReturnPart", ONE_PER_TURN)],
    ], "the refusal as it is: no retry prompt"
    returns = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    assert isinstance(returns[0].metadata["card"], TodoCard)
    assert returns[1].metadata == {"offer": Suggestion("s1", **offer("Add retries"))}
    assert returns[2].metadata is None
    assert oda.end_turn(chat) is False, "the run's turn ended with it"

    # The next run is the next turn: it may offer again.
    second = script([("suggest_task", offer("Add metrics"))], [("todo_write", plan((" ", "pending")))])
    await agent.run("Go on", deps=Chat(chat), model=second.model())
    assert second.read[1:] == [
        [("ToolReturnPart", suggested("Add metrics"))],
        [("ToolReturnPart", "Error: invalid todo: `content` must be a non-empty string")],
    ]
    screen = oda.screen(chat)
    assert [s.title for s in screen.open] == ["Add metrics", "Add retries"]
    assert (screen.plan.state, screen.cards[-1].turn) == ("none", 1), "run 2 was turn 2"
    assert oda.begin_turn(chat) == 3


async def test_the_turn_closes_when_the_run_raises(aoda: AsyncOdaClient, oda: OdaClient, chat: str) -> None:
    calls = 0

    def failing(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            return ModelResponse(parts=[ToolCallPart("todo_write", plan(("Half done", "in_progress")))])
        raise RuntimeError("the model's provider is down")

    with pytest.raises(RuntimeError, match="the model's provider is down"):
        await agent_for(aoda).run("Fix it", deps=Chat(chat), model=FunctionModel(failing))
    assert oda.end_turn(chat) is False, "no turn left open"
    assert oda.screen(chat).plan.state == "finished"


async def test_the_reminder_when_due_and_after_a_compaction(aoda: AsyncOdaClient, oda: OdaClient, chat: str) -> None:
    def remind(ctx: RunContext[Chat]) -> str:
        return "always" if ctx.deps.compacted else "due"

    agent = agent_for(aoda, remind=remind)
    planned = script([("todo_write", plan(("Write tests", "in_progress"), ("Ship", "pending")))])
    await agent.run("Plan it", deps=Chat(chat), model=planned.model())
    text = reminder(("Write tests", "in_progress"), ("Ship", "pending"))
    own = "You are a coding agent."
    assert planned.instructions == [own, own], "nothing due in the run that wrote the list"

    # A compaction: the history is gone, the run says so; the list comes back in every request.
    after = script([("todo_write", plan(("Write tests", "completed"), ("Ship", "in_progress")))])
    history = (await agent.run("Hello", deps=Chat(chat), model=script().model())).all_messages()[:1]
    await agent.run("Go on", deps=Chat(chat, compacted=True), message_history=history, model=after.model())
    assert after.instructions == [f"{own}\n\n{text}", f"{own}\n\n{text}"]

    # Three whole turns without todo_write: due again, by the server's rule.
    quiet = [script() for _ in range(4)]
    for run in quiet:
        await agent.run("Anything else?", deps=Chat(chat), model=run.model())
    assert [run.instructions for run in quiet[:3]] == [[own]] * 3
    assert quiet[3].instructions == [f"{own}\n\n{reminder(('Write tests', 'completed'), ('Ship', 'in_progress'))}"]


Items = tuple[tuple[str, str], ...]


async def run_with_edits(
    agent: Agent[Chat, str],
    aoda: AsyncOdaClient,
    chat: str,
    steps: Script,
    before: dict[int, Items],
    writing: dict[int, Items] | None = None,
) -> None:
    """Runs `steps`; a person edits the list to `before[n]` just before the model's request n (from 1),
    and to `writing[n]` after the model answered it, before its tool calls run."""

    async def edit(items: Items) -> None:
        await aoda.edit_todos(chat, todos(*items), based_on=(await aoda.screen(chat)).length)

    requests = 0
    async with agent.iter("Plan the release", deps=Chat(chat), model=steps.model()) as run:
        async for node in run:  # each node before it runs
            if Agent.is_model_request_node(node):
                requests += 1
                if requests in before:
                    await edit(before[requests])
            elif Agent.is_call_tools_node(node) and requests in (writing or {}):
                await edit((writing or {})[requests])


async def test_a_persons_edit_is_told_once_and_a_stale_write_is_refused(
    aoda: AsyncOdaClient, oda: OdaClient, chat: str
) -> None:
    steps = script(
        [("todo_write", plan(*GOOD))],
        # Written after the model read the first edit, before it could see the second: stale.
        [("todo_write", plan(*WITH_C))],
        [("todo_write", plan(*WITH_CD))],
    )
    # A person adds an item between the model's first two steps, and another while it writes its second.
    await run_with_edits(agent_for(aoda), aoda, chat, steps, before={2: WITH_C}, writing={2: WITH_CD})
    own = "You are a coding agent."
    assert steps.instructions == [own] + [f"{own}\n\n{NOTICE}"] * 3, "told at the next request, and once"
    assert steps.read[1:] == [
        [("ToolReturnPart", updated(1, 1, 0))],
        [("ToolReturnPart", REFUSAL)],
        [("ToolReturnPart", updated(3, 1, 0))],
    ]
    cards = (await aoda.cards(chat)).cards
    assert [card.todos for card in cards] == [tuple(todos(*items)) for items in (GOOD, WITH_C, WITH_CD, WITH_CD)]
    assert oda.screen(chat).todos == tuple(todos(*WITH_CD)), "the person's items survive"
    assert await aoda.context(chat) is None

    # With the list put back (`remind="always"`): the reminder first, then an edit's notice after it.
    always = agent_for(aoda, remind="always")
    steps = script([("suggest_task", offer("Add retries"))])
    await run_with_edits(always, aoda, chat, steps, before={2: WITH_C})
    removed = notice(['removed "Update the docs"'], *WITH_C)
    assert steps.instructions == [f"{own}\n\n{reminder(*WITH_CD)}", f"{own}\n\n{reminder(*WITH_CD)}\n\n{removed}"]
    # An edit made before the run: its notice holds the list as edited, so it is the reminder too.
    done = (("Write tests", "completed"), ("Ship", "pending"), ("Tell the team", "pending"))
    await aoda.edit_todos(chat, todos(*done), based_on=(await aoda.screen(chat)).length)
    steps = script()
    await run_with_edits(always, aoda, chat, steps, before={})
    checked = notice(['"Write tests": in_progress → completed'], *done)
    assert steps.instructions == [f"{own}\n\n{checked}"]


async def test_the_chat_fixed_and_bad_options_refused(aoda: AsyncOdaClient, oda: OdaClient, chat: str) -> None:
    fixed: Agent[None, str] = Agent(toolsets=[OdaToolset(aoda, chat_id=chat)])
    run = script([("todo_write", plan(("Fixed chat", "pending")))])
    await fixed.run("Go", model=run.model())
    assert run.read[1] == [("ToolReturnPart", updated(1, 0, 0))]
    assert oda.screen(chat).todos[0].content == "Fixed chat"
    with pytest.raises(
        TypeError, match=r'^oda-tasks: `remind` must be "due", "always" or "never" \(got \'sometimes\'\)$'
    ):
        OdaToolset(aoda, chat_id=chat, remind="sometimes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^oda-tasks: OdaToolset needs an AsyncOdaClient \(got OdaClient\)$"):
        OdaToolset(oda, chat_id=chat)  # type: ignore[arg-type]
