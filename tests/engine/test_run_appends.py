"""A run's closing blocks: the escalation and the stop go in one append."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.model import storage


def test_escalation_and_stop_are_one_append(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    writes: list[str] = []
    real = storage.locked_append

    def recorded(path: Path, build, **kwargs):  # type: ignore[no-untyped-def]
        def keep(text: str) -> list[str]:
            blocks = list(build(text))
            writes.append("".join(blocks))
            return blocks

        return real(path, keep, **kwargs)

    monkeypatch.setattr(storage, "locked_append", recorded)
    r = CliRunner().invoke(cli, ["run", "auth.md", "--rounds", "1", "--provider", "mock"])
    assert r.exit_code == 0, r.output
    last = writes[-1]
    assert "<!-- ESCALATION: max_rounds -->" in last and "<!-- RUN-STOP: max_rounds" in last
    text = (isolated / "discussions" / "auth.md").read_text()
    assert text.index("<!-- ESCALATION: max_rounds -->") < text.index("<!-- RUN-STOP:")
