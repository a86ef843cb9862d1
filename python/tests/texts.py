"""The exact texts the model reads, as the server writes them (docs/tools.md), and inputs that make them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from oda_tasks import Todo, TodoStatus

ONE_PER_TURN = "suggest_task: one suggestion per turn; this turn already offered one"
EMPTY_CONTENT = "Error: invalid todo: `content` must be a non-empty string"
SUGGEST_DESCRIPTION = (
    "Offer one out-of-scope follow-up the user can start in a new chat; never for work you can do now."
)


def updated(pending: int, in_progress: int, completed: int) -> str:
    return f"Updated todo list: {pending} pending, {in_progress} in progress, {completed} completed"


def suggested(title: str) -> str:
    return f'Suggested "{title}". The user decides whether to start it; do not start it yourself.'


def plan(*items: tuple[str, str]) -> dict[str, Any]:
    return {"todos": [{"content": content, "status": status} for content, status in items]}


def offer(title: str) -> dict[str, str]:
    return {"title": title, "tldr": "Worth doing.", "brief": f"Self-contained: {title}."}


def _counted(items: Sequence[tuple[str, str]]) -> str:
    counts = {s: sum(1 for _, status in items if status == s) for s in ("pending", "in_progress", "completed")}
    return f"({counts['pending']} pending, {counts['in_progress']} in progress, {counts['completed']} completed)"


def _lines(items: Sequence[tuple[str, str]]) -> list[str]:
    return [f'{i}. [{status}] "{content}"' for i, (content, status) in enumerate(items, start=1)]


def reminder(*items: tuple[str, str]) -> str:
    """The list's text for the model's context (todoListText), for a list of `items`."""
    head = f"Your todo list, as last recorded with todo_write {_counted(items)}:"
    tail = "Keep it current: call todo_write with the whole list when an item's state changes."
    return "\n".join([head, *_lines(items), tail])


def notice(changes: Sequence[str], *items: tuple[str, str]) -> str:
    """What the model is told of a person's edit (editNotice, docs/tools.md): `changes` one a line, then the list."""
    head = "The user edited the todo list while you worked. What they changed:"
    tail = "Keep their changes: your next todo_write sends this list whole, with the user's changes in it."
    listed = f"The list as edited {_counted(items)}:"
    return "\n".join([head, *(f"- {change}" for change in changes), listed, *_lines(items), tail])


# A person's two edits while the model works (tests/node/support/tool-fixtures.mjs's `edited`): the model
# records GOOD; a person adds "Tell the team" between two of its steps (WITH_C, told as NOTICE), then
# "Update the docs" while it writes the next (WITH_CD): that write, made without it, is refused with REFUSAL.
GOOD = (("Write tests", "in_progress"), ("Ship", "pending"))
WITH_C = (*GOOD, ("Tell the team", "pending"))
WITH_CD = (*WITH_C, ("Update the docs", "pending"))
NOTICE = (
    "The user edited the todo list while you worked. What they changed:\n"
    '- added "Tell the team" (pending)\n'
    "The list as edited (2 pending, 1 in progress, 0 completed):\n"
    '1. [in_progress] "Write tests"\n2. [pending] "Ship"\n3. [pending] "Tell the team"\n'
    "Keep their changes: your next todo_write sends this list whole, with the user's changes in it."
)
assert notice(['added "Tell the team" (pending)'], *WITH_C) == NOTICE
REFUSAL = (
    "Error: the user edited the todo list, and this update was not recorded: it was written before you saw "
    "their edit. What they changed:\n"
    '- added "Update the docs" (pending)\n'
    "The list as edited (3 pending, 1 in progress, 0 completed):\n"
    '1. [in_progress] "Write tests"\n2. [pending] "Ship"\n3. [pending] "Tell the team"\n'
    '4. [pending] "Update the docs"\n'
    "Call todo_write again with the whole list, starting from this one and keeping the user's changes."
)


def todos(*items: tuple[str, str]) -> list[Todo]:
    return [Todo(content, cast("TodoStatus", status)) for content, status in items]
