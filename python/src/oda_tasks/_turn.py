"""One agent run as one turn of a chat, as the three integrations run it: the
turn begun, the list's reminder asked for once (by the server's rule; when a
person edited the list, what the model must be told of it instead), a person's
later edit asked for before each model request, and the turn ended however the
run ends.

`Turn.texts` is the one place the integrations read what goes into the model's
context before a step: the reminder, then each notice of a person's edit in the
order it was told, each kept for the run's later requests (as `odaTasksMiddleware`
keeps them)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar, cast, get_args

from ._client import AsyncOdaClient, OdaClient

Remind = Literal["due", "always", "never"]
"""When a run puts the list back into the model's context: `"due"` (default) when the server's
rule says so (items open, and `every_turns` whole turns without `todo_write`); `"always"`
whenever the list has items (after compaction, on resume); `"never"`."""

C = TypeVar("C")


@dataclass
class Turn:
    """A run's turn of chat `chat_id`: its `number`, and what the model should be told."""

    chat_id: str
    number: int
    reminder: str | None
    told: list[str] = field(default_factory=list)
    """The notices of a person's edits told in this run, after the turn began."""
    _given: int = field(default=0, repr=False)

    def texts(self) -> list[str]:
        """Every text for the model's context in this run (put into each model request)."""
        return ([] if self.reminder is None else [self.reminder]) + self.told

    def untold(self) -> list[str]:
        """The texts not handed over yet in this run (for a framework that adds them to the history once)."""
        texts = self.texts()
        new = texts[self._given :]
        self._given = len(texts)
        return new


@dataclass(frozen=True)
class TurnRule(Generic[C]):
    """How an integration opens a run's turn: the chat, and when to remind, each fixed or read from
    the run's context `C` (the framework's deps, context or config) by a function."""

    chat_id: str | Callable[[C], str] | None
    remind: Remind | Callable[[C], Remind]
    every_turns: int | None

    def chat(self, context: C) -> str:
        chat = self.chat_id(context) if callable(self.chat_id) else self.chat_id
        if not isinstance(chat, str) or chat == "":
            raise TypeError(f"oda-tasks: the chat id must be a non-empty string (got {chat!r})")
        return chat

    def when(self, context: C) -> Remind:
        remind = self.remind(context) if callable(self.remind) else self.remind
        return check_remind(remind)


def check_remind(remind: object) -> Remind:
    if remind not in get_args(Remind):
        raise TypeError(f'oda-tasks: `remind` must be "due", "always" or "never" (got {remind!r})')
    return cast("Remind", remind)


def check_rule(chat_id: object, remind: object, every_turns: object) -> None:
    """Refuses a rule that can never work, when the integration is made."""
    if chat_id is not None and not callable(chat_id) and (not isinstance(chat_id, str) or chat_id == ""):
        raise TypeError(f"oda-tasks: `chat_id` must be a non-empty string or a function (got {chat_id!r})")
    if not callable(remind):
        check_remind(remind)
    if every_turns is not None and (
        not isinstance(every_turns, int) or isinstance(every_turns, bool) or every_turns < 1
    ):
        raise TypeError(f"oda-tasks: `every_turns` must be a whole number >= 1 (got {every_turns!r})")


async def open_turn_async(client: AsyncOdaClient, chat_id: str, remind: Remind, every_turns: int | None) -> Turn:
    """Begins a turn of the chat and asks for its reminder; a reminder that fails ends the turn again.
    A person's edit the model was not told of comes first: its notice holds the list as edited, so it
    is the reminder too (told once, as `openTurn` does)."""
    number = await client.begin_turn(chat_id)
    try:
        reminder = (
            None
            if remind == "never"
            else await client.context(chat_id)
            or await client.reminder(chat_id, always=remind == "always", every_turns=every_turns)
        )
    except BaseException:
        with suppress(Exception):
            await client.end_turn(chat_id)
        raise
    return Turn(chat_id, number, reminder)


def open_turn(client: OdaClient, chat_id: str, remind: Remind, every_turns: int | None) -> Turn:
    """`open_turn_async` from blocking code."""
    number = client.begin_turn(chat_id)
    try:
        reminder = (
            None
            if remind == "never"
            else client.context(chat_id) or client.reminder(chat_id, always=remind == "always", every_turns=every_turns)
        )
    except BaseException:
        with suppress(Exception):
            client.end_turn(chat_id)
        raise
    return Turn(chat_id, number, reminder)


async def tell_async(client: AsyncOdaClient, turn: Turn) -> None:
    """Before a model request: a person's edit made since the model last read (the server records it
    as told) joins the run's texts. A failed read leaves the step as it was: the edit is then told
    when the model's next `todo_write` is refused."""
    with suppress(Exception):
        notice = await client.context(turn.chat_id)
        if notice is not None:
            turn.told.append(notice)


def tell(client: OdaClient, turn: Turn) -> None:
    """`tell_async` from blocking code."""
    with suppress(Exception):
        notice = client.context(turn.chat_id)
        if notice is not None:
            turn.told.append(notice)


async def end_turn_async(client: AsyncOdaClient, turn: Turn, *, failed: bool) -> None:
    """Ends the run's turn. When the run itself failed, its failure is the one to report:
    a failure to end the turn then is let go (the chat's next turn ends it first)."""
    try:
        await client.end_turn(turn.chat_id)
    except Exception:
        if not failed:
            raise


def end_turn(client: OdaClient, turn: Turn, *, failed: bool) -> None:
    """`end_turn_async` from blocking code."""
    try:
        client.end_turn(turn.chat_id)
    except Exception:
        if not failed:
            raise
