"""Provider kinds are modules named in one table (`providers.kinds`): a new kind is one module
and one line, used by `providers list`, `providers test` and a turn without another change."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.providers.kinds import KINDS, ProviderKind, kind

from ..conftest import code, out, result_of, run, write

SHOUT_KIND = '''
"""A throwaway provider kind: answers with its entry's `model` in capitals."""

import json

from discussions.providers.base import Provider

DECLARABLE = True
REQUIRED = ("name", "model")
SERVER = False


class Shout(Provider):
    def __init__(self, spec):
        self.name, self.word = spec.name, spec.model

    def complete(self, request):
        said = f"{self.word.upper()}, said {request.participant_name}"
        return json.dumps({"comment": said, "vote": None})


def entry_problem(item):
    return None if item["model"].islower() else ("model", "model must be lower case")


def build(spec):
    return Shout(spec)


def status(spec):
    return "installed"


def location(spec):
    return True, f"shout://{spec.model}"


def target(spec):
    return f"shouting {spec.model}"
'''


@pytest.fixture
def shout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The throwaway kind ``shout``: a module outside the package, and its line in the table."""
    folder = tmp_path / "elsewhere"
    write(folder / "shout_kind.py", SHOUT_KIND)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setitem(KINDS, "shout", "shout_kind")
    yield
    sys.modules.pop("shout_kind", None)


def test_every_kind_module_has_the_kind_functions() -> None:
    assert {"command", "openai-compatible", "mock"} <= set(KINDS)
    for name in KINDS:
        assert isinstance(kind(name), ProviderKind), name


def test_a_new_kind_is_one_module_and_one_line(shout: None, userdir: Path, isolated: Path) -> None:
    write(
        userdir / "providers.yaml", "providers:\n  - name: loud\n    type: shout\n    model: hi\n"
    )
    listed = result_of(run("providers", "list", "--json"))
    rows = listed["providers"]
    assert isinstance(rows, list)
    row = next(r for r in rows if r["name"] == "loud")
    assert (row["target"], row["executable"], row["installed"]) == (
        "shouting hi",
        "shout://hi",
        True,
    )
    tested = run("providers", "test", "loud", "--json")
    assert code(tested) == 0, out(tested)
    assert result_of(tested)["answer"] == '{"comment": "HI, said Tester", "vote": null}'
    assert code(run("new", "Kinds")) == 0
    turn = run("turn", "kinds.md", "@architect", "--provider", "loud")
    assert code(turn) == 0, out(turn)
    answers = Discussion.load(isolated / "discussions" / "kinds.md").comments
    assert answers[-1].meta.get("provider") == "loud"
    assert answers[-1].body.strip().endswith("HI, said AI-Architect")


def test_a_kind_checks_its_own_entries(shout: None, userdir: Path) -> None:
    file = write(userdir / "providers.yaml", "providers:\n  - name: loud\n    type: shout\n")
    assert "providers[0]: needs 'model'" in out(run("providers", "list"))
    file.write_text(file.read_text() + "    model: Hi\n", encoding="utf-8")
    assert "line 4: providers[0]: model must be lower case" in out(run("providers", "list"))


def test_a_built_in_kind_cannot_be_declared(userdir: Path) -> None:
    write(userdir / "providers.yaml", "providers:\n  - name: fake\n    type: mock\n")
    said = out(run("providers", "list"))
    assert "must be one of command, openai-compatible, anthropic, gemini, got 'mock'" in said
