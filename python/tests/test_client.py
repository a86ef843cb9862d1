"""OdaClient and AsyncOdaClient against a real serve: every route, the tools over MCP with the
exact texts, the typed screen, and the server's failures as OdaError with its code."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid

import httpx
import httpx2
import pytest
from texts import (
    EMPTY_CONTENT,
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

from oda_tasks import (
    AsyncOdaClient,
    OdaClient,
    OdaError,
    Suggestion,
    Todo,
    TodoCounts,
    TodoEditor,
    TodoPlaced,
    TodoStatusChange,
)


def new_id() -> str:
    return f"py-{uuid.uuid4().hex[:12]}"


def test_create_chat_and_turns(oda: OdaClient) -> None:
    chat = new_id()
    assert oda.create_chat(chat, title="Fix the upload", workspace="/repos/app", permission="ask", model="gpt-5")
    assert oda.create_chat(chat, workspace="/elsewhere") is False, "an existing chat is never touched"
    assert oda.begin_turn(chat) == 1
    assert oda.begin_turn(chat) == 2, "begin ends the open turn first"
    assert oda.end_turn(chat) is True
    assert oda.end_turn(chat) is False
    with pytest.raises(OdaError) as bad:
        oda.create_chat(new_id(), agent="boss")
    assert (bad.value.code, bad.value.status) == ("http/bad-request", 400)
    assert bad.value.message == 'invalid session of createChat: `agent` must be "top-level" or "helper"'
    with pytest.raises(TypeError, match=r"^oda-tasks: create_chat has no field 'owner'$"):
        oda.create_chat(new_id(), owner="me")  # type: ignore[call-arg]
    made = new_id()
    oda.create_chat(made, workspace="/w", scheduled_task_folder=True, agent="helper", sandbox={"net": False})
    oda.begin_turn(made)
    refused = oda.call_tool(made, "suggest_task", offer("Add retries"))
    assert refused.text == (
        "suggest_task is only for the top-level agent; report the follow-up in your result instead"
    ), "the helper is refused before the folder: each field reached the session"


def test_tools_over_mcp_read_the_exact_texts(oda: OdaClient, chat: str) -> None:
    tools = oda.tools()
    assert [t.name for t in tools] == ["todo_write", "suggest_task"]
    assert tools[1].description == SUGGEST_DESCRIPTION
    assert tools[0].input_schema["required"] == ["todos"]
    oda.begin_turn(chat)
    first = oda.call_tool(chat, "todo_write", plan(("Read the code", "in_progress"), ("Fix it", "pending")))
    assert (first.text, first.is_error) == (updated(1, 1, 0), False)
    assert first.card is not None
    assert first.card.todos == (Todo("Read the code", "in_progress"), Todo("Fix it", "pending"))
    assert first.card.counts == TodoCounts(pending=1, in_progress=1, completed=0)
    assert first.card.changes.added[1] == TodoPlaced("Fix it", "pending", 1)
    second = oda.call_tool(chat, "todo_write", plan(("Read the code", "completed"), ("Fix it", "in_progress")))
    assert second.card is not None
    assert second.card.changes.status_changed[0] == TodoStatusChange("Read the code", "in_progress", "completed")
    offered = oda.call_tool(chat, "suggest_task", offer("Add retries"))
    assert (offered.text, offered.is_error, offered.offer) == (
        suggested("Add retries"),
        False,
        Suggestion("s1", **offer("Add retries")),
    )
    again = oda.call_tool(chat, "suggest_task", offer("Add metrics"))
    assert (again.text, again.is_error, again.offer) == (ONE_PER_TURN, True, None)
    empty = oda.call_tool(chat, "todo_write", plan((" ", "pending")))
    assert (empty.text, empty.is_error, empty.card) == (EMPTY_CONTENT, True, None)
    bogus = oda.call_tool(chat, "todo_write", {"todos": [], "priority": 1})
    assert bogus.is_error
    assert bogus.text.startswith("Error: invalid todos: ")
    oda.end_turn(chat)


def test_screen_cards_and_the_suggestion_actions(oda: OdaClient, chat: str) -> None:
    oda.begin_turn(chat)
    oda.call_tool(chat, "todo_write", plan(("Ship", "in_progress")))
    oda.call_tool(chat, "suggest_task", offer("Add retries"))
    oda.end_turn(chat)
    oda.begin_turn(chat)
    oda.call_tool(chat, "suggest_task", offer("Add metrics"))
    oda.end_turn(chat)
    screen = oda.screen(chat)
    assert screen.chat_id == chat
    assert screen.todos == (Todo("Ship", "in_progress"),)
    assert (screen.plan.state, screen.plan.todos, screen.plan.turn) == ("none", (), None), (
        "the next turn cleared the plan"
    )
    assert [s.title for s in screen.open] == ["Add metrics", "Add retries"], "open offers newest first"
    assert (screen.card_count, len(screen.cards), screen.skipped) == (1, 1, ())
    assert oda.cards(chat, 0, 1).cards == screen.cards

    started = oda.start(chat, "s1")
    assert started == f"{chat}.s1"
    assert oda.start(chat, "s1") == started, "Start again answers the same chat"
    oda.dismiss(chat, "s2")
    with pytest.raises(OdaError) as not_open:
        oda.start(chat, "s2")
    assert (not_open.value.code, not_open.value.message, not_open.value.payload) == (
        "task-suggestion/not-open",
        'suggestion "s2" is dismissed',
        "dismissed",
    )
    oda.restore(chat, "s2")
    oda.draft(chat, "s2")
    settled = {s.id: (s.outcome, s.chat_id) for s in oda.screen(chat).settled}
    assert settled == {"s1": ("started", started), "s2": ("drafted", None)}
    new_chat = oda.screen(started)
    assert (new_chat.chat_id, new_chat.todos) == (started, ())
    with pytest.raises(OdaError) as missing:
        oda.start(chat, "s9")
    assert (missing.value.code, missing.value.status, missing.value.payload) == ("task-suggestion/not-found", 404, "s9")


def test_start_needs_a_workspace(oda: OdaClient) -> None:
    chat = new_id()
    oda.create_chat(chat)
    oda.begin_turn(chat)
    oda.call_tool(chat, "suggest_task", offer("Add retries"))
    with pytest.raises(OdaError) as failure:
        oda.start(chat, "s1")
    assert (failure.value.code, failure.value.status, failure.value.payload) == (
        "task-suggestion/workspace-missing",
        422,
        chat,
    )


def test_reminder_by_the_servers_rule(oda: OdaClient, chat: str) -> None:
    assert oda.reminder(chat, always=True) is None, "no list: nothing to put back"
    oda.begin_turn(chat)
    oda.call_tool(chat, "todo_write", plan(("Write tests", "in_progress"), ("Ship", "pending")))
    oda.end_turn(chat)
    text = reminder(("Write tests", "in_progress"), ("Ship", "pending"))
    assert oda.reminder(chat, always=True) == text
    assert oda.reminder(chat) is None
    for _ in range(2):
        oda.begin_turn(chat)
        oda.end_turn(chat)
    assert oda.reminder(chat) is None
    assert oda.reminder(chat, every_turns=2) == text
    oda.begin_turn(chat)
    oda.end_turn(chat)
    assert oda.reminder(chat) == text, "three whole turns without todo_write"
    with pytest.raises(OdaError) as bad:
        oda.reminder(chat, every_turns=0)
    assert (bad.value.code, bad.value.message) == (
        "http/bad-request",
        "`everyTurns` must be a whole number from 1 to 2147483647",
    )


def test_a_persons_edit_told_once_and_never_overwritten(oda: OdaClient, chat: str) -> None:
    oda.begin_turn(chat)
    oda.call_tool(chat, "todo_write", plan(*GOOD))
    assert oda.context(chat) is None, "no edit: nothing to tell"
    screen = oda.screen(chat)
    length = oda.edit_todos(chat, todos(*WITH_C), based_on=screen.length)
    assert length == screen.length + 1
    assert oda.screen(chat).todos == tuple(todos(*WITH_C))
    written, edited = oda.cards(chat).cards
    assert (written.by, edited.by) == (None, TodoEditor(name=None)), "the person's card says so; the model's does not"

    # Another person's edit on the same screen: refused, nothing recorded, the list as it stands to re-apply it to.
    with pytest.raises(OdaError) as stale:
        oda.edit_todos(chat, [*todos(*GOOD), {"content": "Mine", "status": "pending"}], based_on=screen.length)
    assert (stale.value.code, stale.value.status) == ("chat/changed", 409)
    assert stale.value.message == (
        f"the todo list changed after length {screen.length}, the screen this edit was made on; "
        "re-apply the edit to the list as it stands"
    )
    assert (stale.value.payload, stale.value.length) == (tuple(todos(*WITH_C)), length)
    with pytest.raises(OdaError) as invalid:
        oda.edit_todos(chat, todos(("A", "in_progress"), ("B", "in_progress")), based_on=length)
    assert (invalid.value.code, invalid.value.status, invalid.value.message) == (
        "todos/invalid",
        400,
        "Error: invalid todos: at most one task may be in_progress (got 2)",
    )

    assert oda.context(chat) == NOTICE, "told at the model's next step"
    assert oda.context(chat) is None, "told once"
    assert oda.call_tool(chat, "todo_write", plan(*WITH_C)).text == updated(2, 1, 0), "told: it records as usual"

    # An edit the model was not told of: its next todo_write is refused once, and that tells it.
    oda.edit_todos(chat, [{"content": c, "status": s} for c, s in WITH_CD], based_on=oda.screen(chat).length)
    refused = oda.call_tool(chat, "todo_write", plan(*WITH_C))
    assert (refused.text, refused.is_error, refused.card) == (REFUSAL, True, None)
    assert oda.screen(chat).todos == tuple(todos(*WITH_CD)), "the person's item survives"
    assert oda.context(chat) is None, "the refusal told it"
    assert oda.call_tool(chat, "todo_write", plan(*WITH_CD)).text == updated(3, 1, 0)
    with pytest.raises(OdaError) as missing:
        oda.context(new_id())
    assert (missing.value.code, missing.value.status) == ("store/missing-chat", 404)


def test_list_and_delete_chats(oda: OdaClient) -> None:
    prefix = new_id()
    made = [f"{prefix}-{n}" for n in range(3)]
    for n, chat in enumerate(made):
        oda.create_chat(chat, title=f"Chat {n}", workspace="/w")
    seen: list[str] = []
    page = oda.list_chats(limit=1)
    assert len(page.chats) == 1
    while True:
        seen.extend(c.chat_id for c in page.chats)
        if page.next is None:
            break
        page = oda.list_chats(limit=1, cursor=page.next)
    assert [c for c in seen if c.startswith(prefix)] == list(reversed(made)), "newest first"
    first = oda.list_chats(limit=1).chats[0]
    assert (first.chat_id, first.title, first.workspace) == (made[-1], "Chat 2", "/w")
    assert oda.delete_chat(made[0]) is True
    assert oda.delete_chat(made[0]) is False
    with pytest.raises(OdaError) as gone:
        oda.screen(made[0])
    assert (gone.value.code, gone.value.message, gone.value.status) == ("store/missing-chat", "no such chat", 404)
    with pytest.raises(OdaError) as bad:
        oda.list_chats(limit=0)
    assert bad.value.message == "`limit` must be a whole number from 1 to 100"


def test_a_tool_call_on_a_chat_that_does_not_exist(oda: OdaClient) -> None:
    result = oda.call_tool(new_id(), "todo_write", plan(("x", "pending")))
    assert (result.text, result.is_error) == ("Error: todo_write requires an owning agent session", True)


def test_the_blocking_client_inside_a_running_event_loop(oda: OdaClient, chat: str) -> None:
    async def inside() -> str:
        return oda.call_tool(chat, "todo_write", plan(("x", "pending"))).text

    assert asyncio.run(inside()) == updated(1, 0, 0)


@pytest.mark.anyio
async def test_the_async_client(aoda: AsyncOdaClient) -> None:
    chat = new_id()
    assert await aoda.create_chat(chat, workspace="/repos/app") is True
    assert await aoda.begin_turn(chat) == 1
    texts = await asyncio.gather(
        aoda.call_tool(chat, "todo_write", plan(("A", "in_progress"))),
        aoda.call_tool(chat, "suggest_task", offer("Add retries")),
    )
    assert sorted(r.text for r in texts) == sorted([updated(0, 1, 0), suggested("Add retries")])
    assert await aoda.end_turn(chat) is True
    assert [t.name for t in await aoda.tools()] == ["todo_write", "suggest_task"]
    assert (await aoda.screen(chat)).plan.state == "finished"
    assert await aoda.reminder(chat, always=True) == reminder(("A", "in_progress"))
    assert await aoda.start(chat, "s1") == f"{chat}.s1"
    assert (await aoda.cards(chat)).card_count == 1
    screen = await aoda.screen(chat)
    assert await aoda.edit_todos(chat, todos(("A", "completed")), based_on=screen.length) == screen.length + 1
    assert (await aoda.context(chat) or "").startswith("The user edited the todo list while you worked.")
    assert await aoda.context(chat) is None
    assert any(c.chat_id == chat for c in (await aoda.list_chats(limit=100)).chats)
    assert await aoda.delete_chat(chat) is True
    with pytest.raises(OdaError) as gone:
        await aoda.screen(chat)
    assert gone.value.code == "store/missing-chat"


def test_a_wrong_token_is_refused_on_every_path(url: str, auth: str) -> None:
    with OdaClient(url, "not-the-token-0123456789") as wrong:
        with pytest.raises(OdaError) as rest:
            wrong.screen("any")
        with pytest.raises(OdaError) as mcp:
            wrong.tools()
    for failure in (rest.value, mcp.value):
        assert (failure.code, failure.status) == ("http/unauthorized", 401)
    expected = {
        "token": "send the server's token as Authorization: Bearer",
        "jwt": "the access token is not valid: it is not a signed JWT this server reads",
    }[auth]
    assert mcp.value.message == expected


def test_jwt_each_owner_sees_only_their_chats(url: str, auth: str, oda: OdaClient, chat: str) -> None:
    if auth != "jwt":
        pytest.skip("serve --auth jwt only")
    with OdaClient(url, os.environ["ODA_OTHER_TOKEN"]) as other:
        with pytest.raises(OdaError) as theirs:
            other.screen(chat)
        assert (theirs.value.code, theirs.value.message) == ("store/missing-chat", "no such chat")
        assert other.create_chat(chat, workspace="/theirs") is True, "the other owner's chat of the same id"
        other.begin_turn(chat)
        assert other.call_tool(chat, "todo_write", plan(("Theirs", "pending"))).text == updated(1, 0, 0)
        assert all(c.chat_id != chat or c.workspace == "/theirs" for c in other.list_chats(limit=100).chats)
    assert oda.screen(chat).todos == ()
    assert oda.reminder(chat, always=True) is None


def test_jwt_a_read_only_token_reads_and_writes_nothing(url: str, auth: str, oda: OdaClient, chat: str) -> None:
    if auth != "jwt":
        pytest.skip("serve --auth jwt only")
    oda.begin_turn(chat)
    oda.call_tool(chat, "todo_write", plan(("Mine", "pending")))
    oda.end_turn(chat)
    with OdaClient(url, os.environ["ODA_READ_TOKEN"]) as reader:
        assert reader.screen(chat).todos == (Todo("Mine", "pending"),)
        assert reader.reminder(chat, always=True) == reminder(("Mine", "pending"))
        writes = (
            lambda: reader.begin_turn(chat),
            lambda: reader.tools(),
            lambda: reader.start(chat, "s1"),
            lambda: reader.context(chat),
            lambda: reader.edit_todos(chat, [], based_on=0),
        )
        for write in writes:
            with pytest.raises(OdaError) as refused:
                write()
            assert (refused.value.code, refused.value.status, refused.value.message) == (
                "http/forbidden",
                403,
                "this needs the scope oda:write",
            )


def test_no_framework_is_imported_unless_its_module_is() -> None:
    frameworks = ("pydantic_ai", "langchain", "langchain_core", "langgraph", "agents", "openai")
    probe = f"import sys, oda_tasks; print([m for m in {frameworks!r} if m in sys.modules])"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_a_server_that_cannot_be_reached() -> None:
    with OdaClient("http://127.0.0.1:9", "any-token-0123456789") as away:
        with pytest.raises(httpx.ConnectError):
            away.screen("any")
        with pytest.raises(httpx2.ConnectError):
            away.call_tool("any", "todo_write", {"todos": []})
