"""oda-tasks for Python agents: a client of `oda-tasks serve` (`OdaClient`, `AsyncOdaClient`)
and, each in a module of its own that imports its framework, `oda_tasks.pydantic_ai.OdaToolset`,
`oda_tasks.langchain.OdaMiddleware` and `oda_tasks.openai_agents.oda_tools`.

Every rule runs in the server: the texts a model reads are the server's, byte for byte.

Example::

    from oda_tasks import OdaClient

    oda = OdaClient("http://127.0.0.1:8765", token=os.environ["ODA_TASKS_TOKEN"])
    oda.create_chat("chat-1", workspace="/repos/app")
"""

from ._client import AsyncOdaClient, ChatSession, OdaClient
from ._turn import Remind
from ._types import (
    CardPage,
    ChatPage,
    ChatSummary,
    OdaError,
    Outcome,
    PlanState,
    Screen,
    SettledSuggestion,
    Skipped,
    StartedProgress,
    Suggestion,
    Todo,
    TodoCard,
    TodoChanges,
    TodoCounts,
    TodoEditor,
    TodoMove,
    TodoPlaced,
    TodoPlan,
    TodoStatus,
    TodoStatusChange,
    ToolDefinition,
    ToolResult,
)

__all__ = [
    "AsyncOdaClient",
    "CardPage",
    "ChatPage",
    "ChatSession",
    "ChatSummary",
    "OdaClient",
    "OdaError",
    "Outcome",
    "PlanState",
    "Remind",
    "Screen",
    "SettledSuggestion",
    "Skipped",
    "StartedProgress",
    "Suggestion",
    "Todo",
    "TodoCard",
    "TodoChanges",
    "TodoCounts",
    "TodoEditor",
    "TodoMove",
    "TodoPlaced",
    "TodoPlan",
    "TodoStatus",
    "TodoStatusChange",
    "ToolDefinition",
    "ToolResult",
]
