"""The pytest suite of the oda-tasks package runs against a real `oda-tasks serve`, started
from the build by tests/node/python-package.test.mjs (`npm test`), which passes it here:

- `ODA_TASKS_URL`: the server's address; `ODA_AUTH`: `token` or `jwt`;
- `ODA_TASKS_TOKEN`: the token (or, under `--auth jwt`, an access token with `oda:write`);
- under `--auth jwt` also `ODA_OTHER_TOKEN` (another owner's, `oda:write`) and
  `ODA_READ_TOKEN` (the first owner's, `oda:read` only).

No network but the loopback: every model is a framework's own test model."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

from oda_tasks import AsyncOdaClient, OdaClient


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(
            f"{name} is not set: npm test (tests/node/python-package.test.mjs) starts serve and runs this suite"
        )
    return value


@pytest.fixture(scope="session")
def url() -> str:
    return _env("ODA_TASKS_URL")


@pytest.fixture(scope="session")
def token() -> str:
    return _env("ODA_TASKS_TOKEN")


@pytest.fixture(scope="session")
def auth() -> str:
    return _env("ODA_AUTH")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def oda(url: str, token: str) -> Iterator[OdaClient]:
    with OdaClient(url, token) as client:
        yield client


@pytest.fixture
async def aoda(url: str, token: str) -> AsyncIterator[AsyncOdaClient]:
    async with AsyncOdaClient(url, token) as client:
        yield client


@pytest.fixture
def chat(oda: OdaClient) -> str:
    """A new chat of its own, in a workspace (so its offers can start)."""
    chat_id = f"py-{uuid.uuid4().hex[:12]}"
    assert oda.create_chat(chat_id, workspace="/repos/app", permission="ask") is True
    return chat_id
