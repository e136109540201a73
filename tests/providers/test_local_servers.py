"""Local servers that serve one request at a time and small windows (llama.cpp,
llama-cpp-python): answers cut at ``max_tokens``, windows they do not report, calls queued on
one slot. Against a real HTTP server on loopback (tests/openai_stub)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.providers import ProviderRequest, ProviderSpec
from discussions.providers.base import complete_with_usage
from discussions.providers.openai_compat import OpenAICompatibleProvider, forget_windows

from ..conftest import code, out, run, write
from ..openai_stub import StubServer, serve


@pytest.fixture(autouse=True)
def fresh_windows() -> None:
    """Each stub is a new server, though the system may hand out a port again."""
    forget_windows()


def provider(stub: StubServer, **spec: object) -> OpenAICompatibleProvider:
    fields: dict[str, object] = {"base_url": stub.base_url, "model": "tiny"}
    fields.update(spec)
    return OpenAICompatibleProvider(
        ProviderSpec(name="local", command=None, type="openai-compatible", **fields)  # type: ignore[arg-type]
    )


def entry(name: str, base_url: str, *extra: str) -> str:
    lines = [f"  - name: {name}", "    type: openai-compatible", f"    base_url: {base_url}"]
    return "\n".join([*lines, "    model: tiny", *extra]) + "\n"


# -- answers cut at max_tokens (issue 34, item 9) ---------------------------------------------


@pytest.mark.parametrize("mode", ["stream", "json"])
def test_an_answer_cut_at_max_tokens_says_so(mode: str) -> None:
    with serve(StubServer(mode=mode, finish_reason="length")) as stub:
        done = complete_with_usage(provider(stub, max_tokens=40), ProviderRequest(prompt="Hi"))
    assert done.length_cut


@pytest.mark.parametrize("mode", ["stream", "json"])
def test_an_answer_that_ended_on_its_own_is_not_cut(mode: str) -> None:
    with serve(StubServer(mode=mode)) as stub:
        done = complete_with_usage(provider(stub), ProviderRequest(prompt="Hi"))
    assert not done.length_cut


def test_a_cut_answer_is_recorded_and_shown_as_cut(userdir: Path, isolated: Path) -> None:
    answer = json.dumps({"comment": "The limit should be per key, because", "vote": None})
    with serve(StubServer(mode="json", answer=answer, finish_reason="length")) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry("local", stub.base_url, "    max_tokens: 400"),
        )
        assert code(run("new", "Limits")) == 0
        turn = run("turn", "limits.md", "--provider", "local")
        assert code(turn) == 0, out(turn)
    path = isolated / "discussions" / "limits.md"
    answers = [c for c in Discussion.load(path).comments if c.meta.get("provider") == "local"]
    assert len(answers) == 3
    assert all(c.meta.get("cut") == "max_tokens 400" for c in answers)
    assert all("max_tokens" in c.body for c in answers)  # the reader sees it too
    assert "cut by the token limit" in out(turn)
    status = out(run("status", "limits.md"))
    assert "3" in status and "token limit" in status


def test_a_narrative_cut_at_max_tokens_says_so(userdir: Path, isolated: Path) -> None:
    answer = json.dumps({"comment": "The discussion is about limits and it", "vote": None})
    with serve(StubServer(mode="json", answer=answer, finish_reason="length")) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry("local", stub.base_url, "    max_tokens: 300"),
        )
        assert code(run("new", "Limits")) == 0
        r = run("summary", "limits.md", "--ai", "--stdout", "--provider", "local")
        assert code(r) == 0, out(r)
    assert "cut by the token limit (max_tokens 300)" in out(r)
