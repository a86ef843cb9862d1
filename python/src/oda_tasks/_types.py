"""What `serve` answers, as typed objects: a chat's screen, its cards, its
suggestions, the owner's chats and the tools' results. Each is read from the
server's JSON as it is; a field the server adds later is ignored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

TodoStatus = Literal["pending", "in_progress", "completed"]
"""An item's state."""

PlanState = Literal["none", "running", "finished"]
"""`running` while the turn that recorded the plan runs, `finished` after it ends, `none` once the next turn starts."""

Outcome = Literal["started", "drafted", "dismissed"]
"""How a settled suggestion was settled."""


class OdaError(Exception):
    """A failure `serve` answered: its `code` and `message` as the server wrote them.

    Example::

        try:
            oda.start("chat-1", "s1")
        except OdaError as e:
            if e.code == "task-suggestion/not-open":
                print(e.payload)  # the outcome it already has, e.g. "dismissed"
    """

    code: str
    """The server's code, e.g. `store/missing-chat`, `task-suggestion/not-open`, `http/unauthorized`."""
    message: str
    """The server's message, byte for byte."""
    status: int
    """The HTTP status it came with."""
    payload: Any
    """The failure's payload, when the server sends one (a suggestion's id or outcome, a limit, a chat id;
    for `chat/changed`, the list as it stands, a tuple of `Todo`)."""
    length: int | None
    """For `chat/changed`, the log's length the list in `payload` was read at: the `based_on` of the edit
    made again on it (`OdaClient.edit_todos`)."""

    def __init__(self, code: str, message: str, *, status: int, payload: Any = None, length: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.payload = payload
        self.length = length


@dataclass(frozen=True)
class Todo:
    """One item of the list."""

    content: str
    status: TodoStatus


@dataclass(frozen=True)
class TodoCounts:
    """How many items of a list are in each state."""

    pending: int
    in_progress: int
    completed: int


@dataclass(frozen=True)
class TodoPlaced:
    """An item added (its position in the new list) or removed (its position in the previous one)."""

    content: str
    status: TodoStatus
    position: int


@dataclass(frozen=True)
class TodoStatusChange:
    """An item kept whose state changed, from `from_` to `to`."""

    content: str
    from_: TodoStatus
    to: TodoStatus


@dataclass(frozen=True)
class TodoMove:
    """An item kept whose place changed, from `from_` (in the previous list) to `to`."""

    content: str
    from_: int
    to: int


@dataclass(frozen=True)
class TodoChanges:
    """What an update changed against the previous list (items match by text)."""

    added: tuple[TodoPlaced, ...]
    removed: tuple[TodoPlaced, ...]
    status_changed: tuple[TodoStatusChange, ...]
    moved: tuple[TodoMove, ...]


@dataclass(frozen=True)
class TodoEditor:
    """The person who edited the list, with the display name the app gave (`None`: "you")."""

    name: str | None = None


@dataclass(frozen=True)
class TodoCard:
    """One "Update to-do list" card: the list sent and what changed; `index` is its entry's place in the log.

    `by` is set on a person's edit (the card reads "Edited by you", or by the name), `None` on the model's.
    """

    index: int
    turn: int | None
    todos: tuple[Todo, ...]
    counts: TodoCounts
    changes: TodoChanges
    by: TodoEditor | None = None


@dataclass(frozen=True)
class TodoPlan:
    """The plan the chat shows: its state, its items (none with `none`) and the turn that recorded it."""

    state: PlanState
    todos: tuple[Todo, ...]
    turn: int | None


@dataclass(frozen=True)
class Suggestion:
    """An offer of `suggest_task`, as the person sees it."""

    id: str
    title: str
    tldr: str
    brief: str


@dataclass(frozen=True)
class StartedProgress:
    """How far a started chat's list is: `completed` items of `total`."""

    completed: int
    total: int


@dataclass(frozen=True)
class SettledSuggestion(Suggestion):
    """An offer that was started (`chat_id` is the new chat, `progress` its list), drafted or dismissed."""

    outcome: Outcome
    chat_id: str | None = None
    progress: StartedProgress | None = None


@dataclass(frozen=True)
class Skipped:
    """An entry of the log that replay could not use, and why."""

    index: int
    type: str | None
    reason: str


@dataclass(frozen=True)
class Screen:
    """A chat's first screen: the list, the plan, the suggestions and the last cards, read at log length `length`."""

    chat_id: str
    length: int
    todos: tuple[Todo, ...]
    plan: TodoPlan
    open: tuple[Suggestion, ...]
    settled: tuple[SettledSuggestion, ...]
    card_count: int
    cards: tuple[TodoCard, ...]
    skipped: tuple[Skipped, ...]


@dataclass(frozen=True)
class CardPage:
    """A page of a chat's cards, and how many it has."""

    card_count: int
    cards: tuple[TodoCard, ...]


@dataclass(frozen=True)
class ChatSummary:
    """One chat of the owner's list: its id, and its title and workspace when its session names them."""

    chat_id: str
    title: str | None
    workspace: str | None


@dataclass(frozen=True)
class ChatPage:
    """A page of the owner's chats, newest first; `next` is the cursor of the next page, `None` after the last."""

    chats: tuple[ChatSummary, ...]
    next: str | None


@dataclass(frozen=True)
class ToolDefinition:
    """A tool as the server lists it over MCP: the model reads its `description` and `input_schema`."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """A tool call's answer: `text` is all the model reads (the exact output, or a refusal with `is_error`);
    `card` is the recorded update's card, `offer` the recorded suggestion, for a UI."""

    text: str
    is_error: bool
    card: TodoCard | None = None
    offer: Suggestion | None = None


# Reading the server's JSON. A shape the server would never send is a bad answer, not a crash.


def _map(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return cast("Mapping[str, Any]", value)


def _list(value: Any) -> Sequence[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected an array, got {type(value).__name__}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {type(value).__name__}")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected a whole number, got {type(value).__name__}")
    return value


def _optional_int(value: Any) -> int | None:
    return None if value is None else _int(value)


def _optional_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _status(value: Any) -> TodoStatus:
    if value not in ("pending", "in_progress", "completed"):
        raise TypeError(f"expected a todo status, got {value!r}")
    return cast("TodoStatus", value)


def todo_of(value: Any) -> Todo:
    v = _map(value)
    return Todo(content=_str(v["content"]), status=_status(v["status"]))


def _todos(value: Any) -> tuple[Todo, ...]:
    return tuple(todo_of(t) for t in _list(value))


def card_of(value: Any) -> TodoCard:
    v = _map(value)
    counts = _map(v["counts"])
    changes = _map(v["changes"])

    def placed(p: Any) -> TodoPlaced:
        m = _map(p)
        return TodoPlaced(content=_str(m["content"]), status=_status(m["status"]), position=_int(m["position"]))

    return TodoCard(
        index=_int(v["index"]),
        turn=_optional_int(v["turn"]),
        todos=_todos(v["todos"]),
        counts=TodoCounts(
            pending=_int(counts["pending"]), in_progress=_int(counts["inProgress"]), completed=_int(counts["completed"])
        ),
        changes=TodoChanges(
            added=tuple(placed(p) for p in _list(changes["added"])),
            removed=tuple(placed(p) for p in _list(changes["removed"])),
            status_changed=tuple(
                TodoStatusChange(content=_str(m["content"]), from_=_status(m["from"]), to=_status(m["to"]))
                for m in map(_map, _list(changes["statusChanged"]))
            ),
            moved=tuple(
                TodoMove(content=_str(m["content"]), from_=_int(m["from"]), to=_int(m["to"]))
                for m in map(_map, _list(changes["moved"]))
            ),
        ),
        by=None if "by" not in v else TodoEditor(name=_optional_str(_map(v["by"]).get("name"))),
    )


def suggestion_of(value: Any) -> Suggestion:
    v = _map(value)
    return Suggestion(id=_str(v["id"]), title=_str(v["title"]), tldr=_str(v["tldr"]), brief=_str(v["brief"]))


def _settled(value: Any) -> SettledSuggestion:
    v = _map(value)
    outcome = v["outcome"]
    if outcome not in ("started", "drafted", "dismissed"):
        raise TypeError(f"expected an outcome, got {outcome!r}")
    progress = v.get("progress")
    return SettledSuggestion(
        id=_str(v["id"]),
        title=_str(v["title"]),
        tldr=_str(v["tldr"]),
        brief=_str(v["brief"]),
        outcome=cast("Outcome", outcome),
        chat_id=_optional_str(v.get("chatId")),
        progress=None
        if progress is None
        else StartedProgress(completed=_int(_map(progress)["completed"]), total=_int(_map(progress)["total"])),
    )


def screen_of(value: Any) -> Screen:
    v = _map(value)
    plan = _map(v["plan"])
    state = plan["state"]
    if state not in ("none", "running", "finished"):
        raise TypeError(f"expected a plan state, got {state!r}")
    return Screen(
        chat_id=_str(v["chatId"]),
        length=_int(v["length"]),
        todos=_todos(v["todos"]),
        plan=TodoPlan(state=cast("PlanState", state), todos=_todos(plan["todos"]), turn=_optional_int(plan["turn"])),
        open=tuple(suggestion_of(s) for s in _list(v["open"])),
        settled=tuple(_settled(s) for s in _list(v["settled"])),
        card_count=_int(v["cardCount"]),
        cards=tuple(card_of(c) for c in _list(v["cards"])),
        skipped=tuple(
            Skipped(index=_int(m["index"]), type=_optional_str(m["type"]), reason=_str(m["reason"]))
            for m in map(_map, _list(v["skipped"]))
        ),
    )


def card_page_of(value: Any) -> CardPage:
    v = _map(value)
    return CardPage(card_count=_int(v["cardCount"]), cards=tuple(card_of(c) for c in _list(v["cards"])))


def chat_page_of(value: Any) -> ChatPage:
    v = _map(value)
    return ChatPage(
        chats=tuple(
            ChatSummary(
                chat_id=_str(m["chatId"]),
                title=_optional_str(m.get("title")),
                workspace=_optional_str(m.get("workspace")),
            )
            for m in map(_map, _list(v["chats"]))
        ),
        next=_optional_str(v["next"]),
    )
