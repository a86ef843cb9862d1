"""The exact texts the model reads, as the server writes them (docs/tools.md), and inputs that make them."""

from __future__ import annotations

from typing import Any

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


def reminder(*items: tuple[str, str]) -> str:
    """The list's text for the model's context (todoListText), for a list of `items`."""
    counts = {s: sum(1 for _, status in items if status == s) for s in ("pending", "in_progress", "completed")}
    head = (
        "Your todo list, as last recorded with todo_write "
        f"({counts['pending']} pending, {counts['in_progress']} in progress, {counts['completed']} completed):"
    )
    lines = [f'{i}. [{status}] "{content}"' for i, (content, status) in enumerate(items, start=1)]
    tail = "Keep it current: call todo_write with the whole list when an item's state changes."
    return "\n".join([head, *lines, tail])
