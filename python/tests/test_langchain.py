"""OdaMiddleware in a LangChain v1 agent (`create_agent`, LangGraph underneath) driven by
LangChain's GenericFakeChatModel bound to the tools (no network) against a real serve: the
model reads the exact texts, each run is one turn, the turn closes when the model call raises,
the list comes back before the model step after a compaction, a person's edit made between two
model steps is told before the next once (a stale todo_write after it refused), and
TodoListMiddleware is refused."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, AgentState, TodoListMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime
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

from oda_tasks import AsyncOdaClient, OdaClient, Remind, Suggestion, TodoCard
from oda_tasks.langchain import OdaMiddleware


class ScriptedChatModel(GenericFakeChatModel):
    """GenericFakeChatModel bound to tools: it answers its messages in order and keeps what it read."""

    read: list[list[BaseMessage]] = []  # noqa: RUF012 (a field of the pydantic model, set per instance)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.read.append(list(messages))
        return super()._generate(messages, *args, **kwargs)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self


def model(*replies: AIMessage | Exception) -> ScriptedChatModel:
    def script() -> Iterator[AIMessage]:
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
            yield reply

    return ScriptedChatModel(messages=script(), read=[])


def calls(*called: tuple[str, dict[str, Any]]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[
            {"name": n, "args": a, "id": f"call-{uuid.uuid4().hex[:8]}", "type": "tool_call"} for n, a in called
        ],
    )


def thread(chat: str) -> RunnableConfig:
    return {"configurable": {"thread_id": chat}}


def tool_texts(messages: list[BaseMessage]) -> list[str]:
    return [str(m.content) for m in messages if isinstance(m, ToolMessage)]


def ask(text: str) -> Any:
    return {"messages": [{"role": "user", "content": text}]}


def test_each_run_is_one_turn_and_the_model_reads_the_exact_texts(oda: OdaClient, chat: str) -> None:
    fake = model(
        calls(
            ("todo_write", plan(("Reproduce", "in_progress"), ("Fix", "pending"))),
            ("suggest_task", offer("Add retries")),
        ),
        calls(("suggest_task", offer("Add metrics"))),
        AIMessage(content="Done."),
        calls(("suggest_task", offer("Add metrics"))),
        AIMessage(content="Done again."),
    )
    agent = create_agent(fake, tools=[], system_prompt="You are a coding agent.", middleware=[OdaMiddleware(oda)])
    result = agent.invoke(ask("Fix the upload"), thread(chat))
    assert tool_texts(fake.read[1]) == [updated(1, 1, 0), suggested("Add retries")]
    assert tool_texts(fake.read[2])[-1] == ONE_PER_TURN
    messages = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert isinstance(messages[0].artifact["card"], TodoCard)
    assert messages[1].artifact == {"offer": Suggestion("s1", **offer("Add retries"))}
    assert messages[2].artifact == {}
    assert oda.end_turn(chat) is False, "the run's turn ended with it"

    agent.invoke(ask("Go on"), thread(chat))
    assert tool_texts(fake.read[4]) == [suggested("Add metrics")], "the next run, the next turn: it may offer again"
    screen = oda.screen(chat)
    assert [s.title for s in screen.open] == ["Add metrics", "Add retries"]
    assert oda.begin_turn(chat) == 3


def test_the_turn_closes_when_the_model_call_raises(oda: OdaClient, chat: str) -> None:
    fake = model(
        calls(("todo_write", plan(("Half done", "in_progress")))), RuntimeError("the model's provider is down")
    )
    agent = create_agent(fake, tools=[], middleware=[OdaMiddleware(oda)])
    with pytest.raises(RuntimeError, match="the model's provider is down"):
        agent.invoke(ask("Fix it"), thread(chat))
    assert oda.end_turn(chat) is False, "no turn left open"
    assert oda.screen(chat).plan.state == "finished"


@dataclass
class Context:
    compacted: bool = False


def test_the_reminder_before_the_model_step_after_a_compaction(oda: OdaClient, chat: str) -> None:
    def remind(runtime: Runtime[Any]) -> Remind:
        return "always" if runtime.context is not None and runtime.context.compacted else "due"

    fake = model(
        calls(("todo_write", plan(("Write tests", "in_progress"), ("Ship", "pending")))),
        AIMessage(content="Planned."),
        AIMessage(content="Resumed."),
    )
    agent = create_agent(
        fake,
        tools=[],
        system_prompt="You are a coding agent.",
        middleware=[OdaMiddleware(oda, remind=remind)],
        context_schema=Context,
        checkpointer=InMemorySaver(),
    )
    agent.invoke(ask("Plan it"), thread(chat), context=Context())
    assert all(not isinstance(m, HumanMessage) or m.content == "Plan it" for m in fake.read[0] + fake.read[1])

    # A compaction: the conversation starts again on a new thread of the same chat; the run says so.
    config: RunnableConfig = {"configurable": {"thread_id": f"{chat}-compacted"}}
    compacted = create_agent(
        fake,
        tools=[],
        system_prompt="You are a coding agent.",
        middleware=[OdaMiddleware(oda, chat_id=chat, remind=remind)],
        context_schema=Context,
    )
    compacted.invoke(ask("Go on"), config, context=Context(compacted=True))
    told = [m for m in fake.read[2] if isinstance(m, HumanMessage)]
    assert [m.content for m in told] == ["Go on", reminder(("Write tests", "in_progress"), ("Ship", "pending"))]
    assert told[1].id is not None
    assert told[1].id.startswith("oda-tasks/")


Items = tuple[tuple[str, str], ...]


class Person(AgentMiddleware[AgentState[Any], Any, Any]):
    """A person editing the chat's list while the agent runs: to `before[n]` just before the model's
    request n (from 1; listed before OdaMiddleware, so before its hook), and to `writing[n]` after the
    model answered it, before its tool calls run."""

    def __init__(self, oda: OdaClient, chat: str, before: dict[int, Items], writing: dict[int, Items]) -> None:
        self.oda, self.chat, self.before, self.writing = oda, chat, before, writing
        self.requests = 0

    def _edit(self, items: Items) -> None:
        self.oda.edit_todos(self.chat, todos(*items), based_on=self.oda.screen(self.chat).length)

    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        self.requests += 1
        if self.requests in self.before:
            self._edit(self.before[self.requests])
        return None

    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        if self.requests in self.writing:
            self._edit(self.writing[self.requests])
        return None


def humans(messages: list[BaseMessage]) -> list[str]:
    return [str(m.content) for m in messages if isinstance(m, HumanMessage)]


def test_a_persons_edit_is_told_once_and_a_stale_write_is_refused(oda: OdaClient, chat: str) -> None:
    fake = model(
        calls(("todo_write", plan(*GOOD))),
        # Written after the model read the first edit, before it could see the second: stale.
        calls(("todo_write", plan(*WITH_C))),
        calls(("todo_write", plan(*WITH_CD))),
        AIMessage(content="Done."),
    )
    # A person adds an item between the model's first two steps, and another while it writes its second.
    person = Person(oda, chat, before={2: WITH_C}, writing={2: WITH_CD})
    agent = create_agent(fake, tools=[], middleware=[person, OdaMiddleware(oda)])
    agent.invoke(ask("Plan the release"), thread(chat))
    assert humans(fake.read[0]) == ["Plan the release"]
    assert humans(fake.read[1]) == ["Plan the release", NOTICE], "told before the next step"
    assert fake.read[1][-1].id is not None
    assert fake.read[1][-1].id.startswith("oda-tasks/"), "the step's last message"
    assert humans(fake.read[2]) == humans(fake.read[3]) == ["Plan the release", NOTICE], "once"
    assert [tool_texts(read)[-1] for read in fake.read[1:]] == [updated(1, 1, 0), REFUSAL, updated(3, 1, 0)]
    cards = oda.cards(chat).cards
    assert [card.todos for card in cards] == [tuple(todos(*items)) for items in (GOOD, WITH_C, WITH_CD, WITH_CD)]
    assert oda.screen(chat).todos == tuple(todos(*WITH_CD)), "the person's items survive"

    # An edit made before a run that puts the list back: its notice holds the list as edited, so it is the reminder.
    done = (
        ("Write tests", "completed"),
        ("Ship", "pending"),
        ("Tell the team", "pending"),
        ("Update the docs", "pending"),
    )
    oda.edit_todos(chat, todos(*done), based_on=oda.screen(chat).length)
    fake = model(AIMessage(content="Resumed."))
    create_agent(fake, tools=[], middleware=[OdaMiddleware(oda, remind="always")]).invoke(ask("Go on"), thread(chat))
    assert humans(fake.read[0]) == ["Go on", notice(['"Write tests": in_progress → completed'], *done)]


def test_todo_list_middleware_beside_it_is_refused(oda: OdaClient, chat: str) -> None:
    both: list[AgentMiddleware[Any, Any, Any]] = [OdaMiddleware(oda), TodoListMiddleware()]
    agent = create_agent(model(AIMessage(content="Hi")), tools=[], middleware=both)
    with pytest.raises(TypeError) as refused:
        agent.invoke(ask("Plan"), thread(chat))
    assert str(refused.value) == (
        "oda-tasks: OdaMiddleware replaces LangChain's TodoListMiddleware: remove TodoListMiddleware "
        "(its write_todos tool) from the agent's middleware; two task lists would confuse the model"
    )
    assert oda.end_turn(chat) is False


def test_no_chat_id_and_no_thread_is_refused(oda: OdaClient) -> None:
    agent = create_agent(model(AIMessage(content="Hi")), tools=[], middleware=[OdaMiddleware(oda)])
    with pytest.raises(TypeError, match=r"^oda-tasks: OdaMiddleware has no chat id: pass `chat_id` to OdaMiddleware"):
        agent.invoke(ask("Plan"))


@pytest.mark.anyio
async def test_async_runs_with_the_async_client(aoda: AsyncOdaClient, oda: OdaClient, chat: str) -> None:
    fake = model(calls(("todo_write", plan(("Async", "in_progress")))), AIMessage(content="Done."))
    edited = (("Async", "in_progress"), ("Theirs", "pending"))
    person = Person(oda, chat, before={2: edited}, writing={})
    agent = create_agent(fake, tools=[], middleware=[person, OdaMiddleware(aoda)])
    await agent.ainvoke(ask("Go"), thread(chat))
    assert tool_texts(fake.read[1]) == [updated(0, 1, 0)]
    assert humans(fake.read[1]) == ["Go", notice(['added "Theirs" (pending)'], *edited)]
    assert oda.end_turn(chat) is False
    with pytest.raises(TypeError, match=r"^oda-tasks: OdaMiddleware was given an AsyncOdaClient: run the agent with"):
        agent.invoke(ask("Again"), thread(chat))
