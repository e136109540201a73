"""Golden files: tests/fixtures/NAME.md parses to what NAME.json says (the keys it gives)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion

from ..conftest import FIXTURES


def _subset(actual: object, expected: object) -> object:
    """`actual` restricted to the shape of `expected` (dict keys; list items)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {k: _subset(actual.get(k), v) for k, v in expected.items()}
    if isinstance(expected, list) and isinstance(actual, list) and len(actual) == len(expected):
        return [_subset(a, e) for a, e in zip(actual, expected, strict=True)]
    return actual


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.json")))
def test_golden(name: str) -> None:
    expected = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    actual = Discussion.load(FIXTURES / f"{name}.md").to_dict()
    assert _subset(actual, expected) == expected


def test_every_fixture_has_expectations() -> None:
    for md in FIXTURES.glob("*.md"):
        assert (md.with_suffix(".json")).exists(), md


def test_seed_session_status_output(isolated: Path) -> None:
    """The seed's example `status` session: who voted what, and the two open questions."""
    from click.testing import CliRunner

    from discussions.cli import cli

    result = CliRunner().invoke(cli, ["status", str(FIXTURES / "seed_session.md")])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Discussion: Add user authentication" in out
    assert "Phase: initial_feedback" in out
    assert "Status: OPEN" in out
    assert "AI-Architect: CHANGES (mock) - I'm concerned about session management" in out
    assert "AI-Security: CHANGES (mock) - This needs a threat model" in out
    assert "AI-Pragmatist: READY (mock) - MVP approach is fine" in out
    assert "Open questions (2):" in out
    assert "Q: Should we use JWT or session cookies? (AI-Architect, line 20)" in out
    assert "Q: What's our token expiry policy? (AI-Security, line 31)" in out
    assert "Votes: READY: 1, CHANGES: 2, REJECT: 0" in out


def test_example_discussions_in_the_repository_are_clean() -> None:
    examples = Path(__file__).parent.parent.parent / "discussions"
    files = [p for p in examples.glob("*.md") if not p.name.endswith(".sum.md")]
    assert files
    for path in files:
        assert Discussion.load(path).warnings == [], path
