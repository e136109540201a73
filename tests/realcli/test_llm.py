"""The `llm` preset against the real `llm` (PyPI) and a stub model (OpenAI Chat Completions),
pointed there by an ``extra-openai-models.yaml`` model in llm's user folder, its key stored
as ``llm keys set`` does and made the default model (llm.datasette.io, "OpenAI-compatible
models"). llm offers the model no tools and has no write mode: it never leads an apply."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Barrier

import pytest

from discussions.providers.base import ProviderRequest, complete_with_usage
from discussions.providers.registry import ProviderRegistry

from . import chat
from .chat_support import (
    CONTEXT,
    llm_on_stub,
    make_project,
    recorded,
    turn,
    turn_result,
)
from .common import (
    fingerprint,
    invoke,
    keeping,
    printed,
    use_git_identity,
)
from .stub import CANNED, StubModel, ToolCall


@pytest.fixture
def stub(
    real_cli: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[StubModel]:
    real_cli("llm")
    use_git_identity(monkeypatch, tmp_path)
    monkeypatch.delenv("LLM_USER_PATH", raising=False)
    with StubModel.running(chat.ROUTES) as model:
        llm_on_stub(model)
        yield model


def test_providers_test_answers(stub: StubModel, isolated: Path) -> None:
    r = invoke("providers", "test", "llm", "--timeout", "90", "--json")
    assert r.exit_code == 0, r.output
    assert printed(r)["answer"] == CANNED


def test_a_turn_records_the_answer_and_the_tokens_of_llm_u(stub: StubModel, isolated: Path) -> None:
    """The comment byte for byte, the tokens `llm -u` writes on stderr, no log of the
    discussion kept in llm's logs.db (`-n`), no tool offered to the model (a tool call the
    model would make has nothing to run)."""
    make_project(isolated, "llm")
    stub.tool = ToolCall("write_file", {"path": str(isolated / "new.txt"), "content": "x"})
    home = fingerprint(Path.home())
    r = turn("llm")
    assert r.exit_code == 0, r.output
    meta, text = recorded(isolated)
    assert text == CANNED
    assert "tokens: 1200 in / 34 out" in meta
    assert turn_result(r)["usage"]["input_tokens"] == 1200  # type: ignore[index]
    [call] = chat.model_calls(stub)
    assert not call.body.get("tools")
    # No logs.db at all (`-d :memory:`), so nothing of the discussion in it. (llm 0.36 logs a
    # call as a thread and a turn, not in its old `responses` table: a count of that table's
    # rows passed without `-n` too.)
    assert keeping(Path.home() / ".config/io.datasette.llm", CONTEXT) == []
    assert fingerprint(Path.home()) == home
    assert not (isolated / "new.txt").exists()


def test_a_model_error_reaches_the_user(stub: StubModel, isolated: Path) -> None:
    make_project(isolated, "llm")
    stub.error = (500, "the stub model is down for maintenance")
    r = turn("llm")
    assert r.exit_code == 1
    assert "the stub model is down for maintenance" in r.output and "timed out" not in r.output


CALLS_AT_ONCE = 8
"""llm calls started together in the parallel test: with `llm -u -n` alone, 6 at once on a
fresh user folder failed in about a third of the runs (each creating logs.db's tables)."""


def test_calls_at_once_on_a_fresh_user_folder_all_answer(stub: StubModel, isolated: Path) -> None:
    """Several `llm` preset calls started together on a fresh user folder (a parallel turn on a
    new install) all answer: llm 0.36 migrates its logs.db on every prompt, `-n` or not, and
    processes doing it at once failed (`no such table: log`, `No such column: chat_id`)."""
    make_project(isolated, "llm")
    provider = ProviderRegistry.load(isolated).get("llm")
    start = Barrier(CALLS_AT_ONCE)

    def call(n: int) -> str:
        start.wait()
        request = ProviderRequest(
            prompt=f"call {n}", timeout=90, participant_name="Tester", participant_alias="tester"
        )
        return complete_with_usage(provider, request).text

    with ThreadPoolExecutor(CALLS_AT_ONCE) as pool:
        answers = list(pool.map(call, range(CALLS_AT_ONCE)))
    assert answers == [CANNED] * CALLS_AT_ONCE
    assert not (Path.home() / ".config/io.datasette.llm/logs.db").exists()
