"""A contrarian only when agreement comes too fast (issue 37, item 4), end to end through the
CLI with scripted providers (real subprocesses): a template that names a contrarian has it
asked once, with a ``CONTRARIAN`` block saying why, when every voter's first vote in the phase
is READY on nothing checked; the consensus waits until another voter or a person answers;
evidence or a concern, or a template without the setting, never calls it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import code, out, run
from ..support.contrarian import advocate_comments, contrarian_council, ready
from ..support.quorum import ALIASES, open_vote

_HELD = "challenged by @advocate: awaiting an answer"


@pytest.fixture
def council(isolated: Path, providers_file):  # type: ignore[no-untyped-def]
    """A feature discussion in its voting phase after one turn of its seats
    (`contrarian_council`: `voters` answer, `contrarian` sets the template's setting)."""

    def make(voters: str = ready(), contrarian: bool = True) -> Path:
        contrarian_council(isolated, providers_file, voters, contrarian)
        path = open_vote()
        assert code(run("turn", "auth.md", *(f"@{a}" for a in ALIASES))) == 0
        return path

    return make


def status_json() -> dict[str, object]:
    r = run("status", "auth.md", "--json")
    assert code(r) == 0, out(r)
    data: dict[str, object] = json.loads(out(r))
    return data


def test_a_unanimous_first_round_on_nothing_calls_the_contrarian_once(council) -> None:  # type: ignore[no-untyped-def]
    path = council()
    text = path.read_text(encoding="utf-8")
    assert text.count("<!-- CONTRARIAN: advocate") == 1
    block = text.index("<!-- CONTRARIAN: advocate")
    assert advocate_comments(text[block:]) == 1 and "cross-site request" in text[block:]
    data = status_json()
    assert data["status"] == "OPEN"
    assert data["challenge"] == {
        "by": "advocate",
        "line": data["challenge"]["line"],  # type: ignore[index]
        "answered": False,
        "held": _HELD,
        "jump": None,
    }
    assert _HELD in out(run("status", "auth.md"))
    # The others answer in the next round: the consensus is recorded; no second challenge.
    assert code(run("turn", "auth.md", *(f"@{a}" for a in ALIASES))) == 0
    text = path.read_text(encoding="utf-8")
    assert text.count("<!-- CONTRARIAN:") == 1 and advocate_comments(text) == 1
    data = status_json()
    assert data["status"] == "DECIDED"
    assert data["challenge"]["answered"] is True and data["challenge"]["held"] is None  # type: ignore[index]


def test_a_persons_acknowledgement_releases_the_consensus(council) -> None:  # type: ignore[no-untyped-def]
    council()
    assert status_json()["consensus"]["reached"] is False  # type: ignore[index]
    ack = "Acknowledged: the cookie is SameSite=strict."
    assert code(run("comment", "auth.md", ack, "--author", "Rob")) == 0
    data = status_json()
    assert data["consensus"]["reached"] is True  # type: ignore[index]
    assert data["challenge"]["held"] is None  # type: ignore[index]
    assert _HELD not in out(run("status", "auth.md"))


@pytest.mark.parametrize(
    "answer",
    [
        ready("CONCERN: the token never expires."),
        ready("EVIDENCE: read discussions.yaml"),
    ],
    ids=["concern", "evidence"],
)
def test_evidence_or_a_concern_calls_no_contrarian(council, answer: str) -> None:  # type: ignore[no-untyped-def]
    path = council(answer)
    text = path.read_text(encoding="utf-8")
    assert "CONTRARIAN" not in text and advocate_comments(text) == 0
    data = status_json()
    assert data["status"] == "DECIDED" and data["challenge"] is None


def test_a_template_without_the_setting_never_calls_it(council) -> None:  # type: ignore[no-untyped-def]
    path = council(contrarian=False)
    text = path.read_text(encoding="utf-8")
    assert "CONTRARIAN" not in text and advocate_comments(text) == 0
    data = status_json()
    assert data["status"] == "DECIDED" and data["challenge"] is None
