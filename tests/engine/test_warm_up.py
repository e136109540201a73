"""The markdown parser every answer goes through is loaded while the providers think."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions import Discussion, Runner
from discussions.cli import cli
from discussions.engine.turn import followup
from discussions.syntax import code

from ..conftest import script_command, write


@pytest.mark.slow
@pytest.mark.parametrize("who", [["architect"], ["architect", "security"]])
def test_markdown_it_is_loaded_before_the_first_answer_arrives(
    isolated: Path, providers_file, monkeypatch: pytest.MonkeyPatch, who: list[str]
) -> None:  # type: ignore[no-untyped-def]
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    providers_file({"slow": script_command("answer.py", '{"comment": "ok"}', "1.0")})
    write(isolated / "discussions.yaml", "providers:\n  default: slow\n  detect: false\n")
    for name in [m for m in sys.modules if m == "markdown_it" or m.startswith("markdown_it.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(code, "_block_md", None)
    loaded: list[bool] = []
    parse = followup.parse_response  # the answer path reads every answer through it

    def parse_response(text: str, *echo):  # type: ignore[no-untyped-def]
        loaded.append("markdown_it" in sys.modules and code._block_md is not None)
        return parse(text, *echo)

    monkeypatch.setattr(followup, "parse_response", parse_response)
    d = Discussion.load(isolated / "discussions" / "auth.md")
    result = Runner(d.workspace).run_turn(d, who, council=False)
    assert [o.status for o in result.outcomes] == ["posted"] * len(who)
    assert loaded == [True] * len(who)
