"""`discussions init`'s setup wizard against the real CLIs: each pinned CLI found on PATH and
its version read from its own ``--version`` (as `.ci/real-clis.txt` pins it), the voting
personas spread over their vendors; and the tiny test call made for real, through the real
`llm` to a stub model (the only one of them configurable with no login: an OpenAI-compatible
model in llm's user folder, as test_llm.py does)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from . import chat
from .chat_support import llm_on_stub
from .common import invoke, printed
from .stub import StubModel
from .support import pins


def test_init_finds_every_real_cli_by_its_version(
    real_cli: Callable[[str], Path], isolated: Path
) -> None:
    pinned = pins()
    for name in pinned:
        real_cli(name)
    r = invoke("init", "--no-git", "--yes", "--no-test", "--json")
    assert r.exit_code == 0, r.output
    found = {t["name"]: t for t in printed(r)["providers"]["found"]}
    for name, pin in pinned.items():
        assert found[name]["usable"], found[name]
        assert pin.version in found[name]["detail"], (name, found[name]["detail"])
    personas = yaml.safe_load((isolated / "discussions.yaml").read_text())["providers"]["personas"]
    assert len(set(personas.values())) >= 5  # Anthropic, OpenAI, Google, Qwen, opencode, ...


def test_init_tries_the_real_llm_with_a_tiny_call(
    real_cli: Callable[[str], Path], isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_cli("llm")
    monkeypatch.delenv("LLM_USER_PATH", raising=False)
    with StubModel.running(chat.ROUTES) as model:
        llm_on_stub(model)
        r = invoke("init", "--no-git", "--provider", "llm", "--json")
        assert printed(r)["providers"]["choice"]["default"] == "llm"
        assert r.exit_code == 0, r.output
        assert model.model_requests("chat/completions")  # the test call reached the model
    assert (
        yaml.safe_load((isolated / "discussions.yaml").read_text())["providers"]["default"] == "llm"
    )
