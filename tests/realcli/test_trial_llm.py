"""`discussions trial` through the real `llm` (PyPI) and a stub model (OpenAI Chat Completions):
one call and a council of three seats, each a real `llm` process, the tokens `llm -u` reports
counted in the report. The stub answers every question 42, so of "40 + 2" and "1 + 1" one
is right."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import write
from . import chat
from .common import invoke, printed
from .stub import StubModel

ANSWER = "Forty plus two.\n\nANSWER: 42\n\nDECISION: ANSWER: 42\n\nVOTE: READY"


@pytest.fixture
def stub(real_cli, monkeypatch: pytest.MonkeyPatch) -> Iterator[StubModel]:  # type: ignore[no-untyped-def]
    real_cli("llm")
    monkeypatch.delenv("LLM_USER_PATH", raising=False)
    with StubModel.running(chat.ROUTES, answer=ANSWER) as model:
        folder = Path.home() / ".config" / "io.datasette.llm"
        folder.mkdir(parents=True)
        (folder / "extra-openai-models.yaml").write_text(
            f"- model_id: stub\n  model_name: {chat.MODEL}\n"
            f"  api_base: {model.url('/v1')}\n  api_key_name: stub\n"
        )
        (folder / "keys.json").write_text(json.dumps({"stub": "dummy"}))
        (folder / "default_model.txt").write_text("stub")
        yield model


def test_a_trial_through_the_real_llm(stub: StubModel, isolated: Path) -> None:
    # llm migrates its logs.db on first use, and several llm processes doing it at once on a
    # fresh user folder fail ("no such table: log", "No such column: chat_id"): use it once
    assert invoke("providers", "test", "llm", "--timeout", "90").exit_code == 0
    write(isolated / "discussions.yaml", "providers:\n  default: llm\n  detect: false\n")
    tasks = write(
        isolated / "sums.yaml",
        "tasks:\n  - id: right\n    question: What is 40 + 2?\n    answer: 42\n"
        "  - id: wrong\n    question: What is 1 + 1?\n    answer: 2\n",
    )
    # one round: three seats answer from one snapshot (in a second round each would see the
    # others' identical comments, and an answer that only repeats its prompt is no answer)
    args = ["--provider", "llm", "--arm", "single", "--arm", "council", "--rounds", "1"]
    r = invoke("trial", str(tasks), *args, "--timeout", "90", "--json", "-q")
    assert r.exit_code == 0, r.output
    data = printed(r)
    single, council = data["arms"]
    assert (single["provider"], single["correct"], single["scored"]) == ("llm", 1, 2)
    assert single["usage"]["input_tokens"] == 2 * 1200
    assert single["usage"]["output_tokens"] == 2 * 34
    right = data["per_task"]["right"]["council"]
    assert (right["correct"], right["calls"], right["failed_calls"]) == (True, 3, 0)
    assert right["answered_by"] == ["llm"] and right["stopped"] == "max_rounds"
    assert council["usage"]["input_tokens"] == 6 * 1200
    assert len(stub.model_requests("/chat/completions")) == 1 + 2 + 6
