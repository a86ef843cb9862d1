"""docs/python.md as printed: every `<!-- file: NAME -->` block is written to a folder and run
there (the client's block as a program whose output must be the page's, the framework blocks
imported and driven by the frameworks' test models), against the real serve."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from texts import ONE_PER_TURN, offer, plan, reminder, suggested, updated

from oda_tasks import OdaClient

PAGE = Path(__file__).resolve().parents[2] / "docs" / "python.md"
TEXT = PAGE.read_text(encoding="utf-8")
BLOCKS = dict(re.findall(r"<!-- file: (\S+) -->\n```python\n(.*?)```", TEXT, re.DOTALL))


def test_the_page_prints_each_file_once_and_the_install_the_tests_run() -> None:
    assert sorted(BLOCKS) == ["agent_langchain.py", "agent_openai.py", "agent_pydantic.py", "chat.py"]
    assert TEXT.count("<!-- file: ") == len(BLOCKS)
    # tests/node/support/python.mjs makes the project's venv with this, in the repository's root.
    assert 'From a clone, `pip install -e "python[all]"`.' in TEXT


def load(name: str, folder: Path) -> ModuleType:
    """The page's block `name`, written to `folder` and imported as a module of its own."""
    path = folder / name
    path.write_text(BLOCKS[name], encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"{path.stem}_{uuid.uuid4().hex[:8]}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_clients_block_prints_what_the_page_says(tmp_path: Path, url: str, token: str) -> None:
    (tmp_path / "chat.py").write_text(BLOCKS["chat.py"], encoding="utf-8")
    printed = TEXT.split("<!-- file: chat.py -->", 1)[1].split("It prints:\n\n```text\n", 1)[1].split("```", 1)[0]
    run = subprocess.run(
        [sys.executable, "chat.py"],
        cwd=tmp_path,
        env={**os.environ, "ODA_TASKS_URL": url, "ODA_TASKS_TOKEN": token},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == printed


@pytest.fixture
def page_env(monkeypatch: pytest.MonkeyPatch, url: str, token: str) -> None:
    monkeypatch.setenv("ODA_TASKS_URL", url)
    monkeypatch.setenv("ODA_TASKS_TOKEN", token)


@pytest.mark.anyio
@pytest.mark.usefixtures("page_env")
async def test_the_pydantic_ai_block(tmp_path: Path, oda: OdaClient, chat: str) -> None:
    from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    page = load("agent_pydantic.py", tmp_path)
    read: list[Any] = []
    instructions: list[str | None] = []
    steps = [[("todo_write", plan(("Reproduce", "in_progress"))), ("suggest_task", offer("Add retries"))]]

    def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        instructions.append(info.instructions)
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        read.extend(part.content for part in last.parts if isinstance(part, ToolReturnPart))
        asked = sum(1 for m in messages if isinstance(m, ModelResponse))
        if asked < len(steps):
            return ModelResponse(parts=[ToolCallPart(name, args) for name, args in steps[asked]])
        return ModelResponse(parts=[TextPart("Done.")])

    await page.agent.run("Fix the upload", deps=page.Chat(chat), model=FunctionModel(scripted))
    steps = [[("suggest_task", offer("Add metrics"))], [("suggest_task", offer("Add docs"))]]
    await page.agent.run("Go on", deps=page.Chat(chat, compacted=True), model=FunctionModel(scripted))
    assert read == [updated(0, 1, 0), suggested("Add retries"), suggested("Add metrics"), ONE_PER_TURN]
    told = f"You are a coding agent.\n\n{reminder(('Reproduce', 'in_progress'))}"
    assert instructions == ["You are a coding agent."] * 2 + [told] * 3, "after the compaction, the list"
    assert oda.end_turn(chat) is False


@pytest.mark.usefixtures("page_env")
def test_the_langchain_block(tmp_path: Path, oda: OdaClient) -> None:
    from langchain_core.messages import AIMessage, ToolMessage
    from test_langchain import calls, model

    page = load("agent_langchain.py", tmp_path)
    fake = model(calls(("todo_write", plan(("Reproduce", "in_progress")))), AIMessage(content="On it."))
    chat = f"py-{uuid.uuid4().hex[:12]}"
    assert page.reply(page.planning_agent(fake), chat, "Fix the upload") == "On it."
    assert [m.content for m in fake.read[1] if isinstance(m, ToolMessage)] == [updated(0, 1, 0)]
    assert oda.screen(chat).plan.state == "finished"
    assert oda.end_turn(chat) is False


@pytest.mark.anyio
@pytest.mark.usefixtures("page_env")
async def test_the_openai_agents_block(tmp_path: Path, oda: OdaClient) -> None:
    from agents import set_tracing_disabled
    from agents.testing import ScriptedModel, assistant_message, function_call

    set_tracing_disabled(True)
    page = load("agent_openai.py", tmp_path)
    model = ScriptedModel(
        [[function_call("suggest_task", offer("Add retries"), call_id="c1")], [assistant_message("Offered.")]]
    )
    chat = f"py-{uuid.uuid4().hex[:12]}"
    assert await page.reply(page.coder(model), chat, "Fix the upload") == "Offered."
    output = [
        i["output"] for i in model.calls[1].input if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]
    assert output == [suggested("Add retries")]
    assert oda.end_turn(chat) is False
