"""A template's ``output`` key (the documentation loop's settings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions.errors import TemplateError
from discussions.settings.templates import Template

PHASES = [{"id": "review"}]


def test_output_is_read() -> None:
    t = Template.from_dict(
        {
            "name": "docs",
            "phases": PHASES,
            "output": {"type": "documentation", "leader": "architect", "path": "docs/a.md"},
        }
    )
    assert t.output is not None
    assert (t.output.leader, t.output.max_revisions, t.output.path) == (
        "architect",
        2,
        "docs/a.md",
    )
    assert Template.from_dict({"name": "plain", "phases": PHASES}).output is None


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ({"type": "report"}, "output.type"),
        ({"type": "documentation", "max_revisions": -1}, "output.max_revisions"),
        ({"type": "documentation", "leadr": "x"}, "leader"),
        ({"leader": "architect"}, "type"),
    ],
)
def test_a_bad_output_is_refused(output: dict[str, object], message: str) -> None:
    with pytest.raises(TemplateError) as err:
        Template.from_dict({"name": "docs", "phases": PHASES, "output": output}, Path("t.yaml"))
    assert message in str(err.value)
