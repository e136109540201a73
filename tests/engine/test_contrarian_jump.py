"""Agreement that jumps (issue 37, item 4), end to end through `discussions run` with scripted
providers (real subprocesses): a round in which the voters go from a split ballot to unanimous
READY calls the contrarian, with a ``CONTRARIAN`` block saying the ballot jumped, unless
evidence, a citation that holds or an answer to a concern came in between; and a contrarian
whose own call fails leaves a ``FAILED`` block, as any seat's failure does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.engine.council.contrarian import WHY, WHY_JUMP

from ..conftest import code, out, run, script_command
from ..support.contrarian import advocate_comments, contrarian_council, ready
from ..support.git import commit_files
from ..support.quorum import open_vote

_SPLIT = json.dumps({"comment": "CONCERN: the cookie lacks SameSite.", "vote": "REJECT"})
_SHAPES = {
    "nothing": ready("Fine by me now."),
    "evidence": ready("EVIDENCE: read auth.py:1-3"),
    "grounded": ready("auth.py:2 sets `samesite=strict`, so it is fine."),
    "invented": ready("auth.py:99 sets `samesite=strict`, so it is fine."),
}


def _run_council(isolated: Path, providers_file, second: str, devil: str = "") -> Path:  # type: ignore[no-untyped-def]
    """In a git repository holding auth.py, the feature council with the advocate as
    contrarian, the architect voting REJECT in round 1 and `second` from round 2 on, the
    others READY throughout; then `run`."""
    commit_files(isolated, {"auth.py": "def cookie():\n    return {'samesite': 'strict'}\n"})
    plan = {"architect": [_SPLIT, second], "*": [ready()]}
    contrarian_council(isolated, providers_file, plan=plan, devil=devil)
    path = open_vote()
    r = run("run", "auth.md", "--rounds", "4", "--json")
    assert code(r) == 0, out(r)
    return path


def _status() -> dict[str, object]:
    r = run("status", "auth.md", "--json")
    assert code(r) == 0, out(r)
    data: dict[str, object] = json.loads(out(r))
    return data


@pytest.mark.parametrize("shape", ["nothing", "invented"])
def test_a_jump_on_nothing_checked_calls_the_contrarian(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
    shape: str,
    repo: Path,
) -> None:
    path = _run_council(isolated, providers_file, _SHAPES[shape])
    text = path.read_text(encoding="utf-8")
    # The architect's REJECT came first (the only vote) or after the others' READY.
    whys = [f"why: {WHY_JUMP.format(before=b)} -->" for b in ("REJECT", "a split ballot")]
    assert text.count("<!-- CONTRARIAN: advocate") == 1 and any(w in text for w in whys)
    assert WHY not in text
    block = text.index("<!-- CONTRARIAN: advocate")
    assert advocate_comments(text[block:]) == 1
    assert text.count("\nName: AI-Architect\n", block) >= 1  # the challenge was answered
    data = _status()
    assert data["status"] == "DECIDED"
    challenge = data["challenge"]
    assert challenge["answered"] is True and challenge["held"] is None  # type: ignore[index]
    # No vote against is current any more: the jump of the latest ballot is the one recorded.
    assert challenge["jump"] is None or challenge["jump"]["to"] < block  # type: ignore[index]


@pytest.mark.parametrize("shape", ["evidence", "grounded"])
def test_something_checked_between_calls_no_contrarian(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
    shape: str,
    repo: Path,
) -> None:
    path = _run_council(isolated, providers_file, _SHAPES[shape])
    text = path.read_text(encoding="utf-8")
    assert "CONTRARIAN" not in text and advocate_comments(text) == 0
    data = _status()
    assert data["status"] == "DECIDED" and data["challenge"] is None


def test_the_contrarians_failed_call_is_a_failed_block(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
    repo: Path,
) -> None:
    dead = script_command("fail.py", "3", "advocate is down\n")
    path = _run_council(isolated, providers_file, _SHAPES["nothing"], devil=dead)
    text = path.read_text(encoding="utf-8")
    block = text.index("<!-- CONTRARIAN: advocate")
    assert advocate_comments(text) == 0
    assert (
        "<!-- FAILED: AI-Advocate | providers: devil | why: devil: exited with status 3"
        in text[block:]
    )
    r = run("check", "auth.md")
    assert code(r) == 0, out(r)


def test_status_shows_the_jump_while_the_challenge_waits(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
    repo: Path,
) -> None:
    commit_files(isolated, {"auth.py": "def cookie():\n    return {}\n"})
    contrarian_council(
        isolated, providers_file, plan={"architect": [_SPLIT, ready()], "*": [ready()]}
    )
    path = open_vote()
    r = run("run", "auth.md", "--rounds", "2")
    assert code(r) == 0, out(r)
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    against = 1 + next(i for i, s in enumerate(lines) if s == "VOTE: REJECT")
    data = _status()
    assert data["status"] == "OPEN"
    jump = data["challenge"]["jump"]  # type: ignore[index]
    assert jump["cited"] == [] and jump["from"] < jump["to"]
    assert jump["from"] <= against  # the vote against opens the window
    assert "Consensus: not reached (challenged by @advocate: awaiting an answer" in out(
        run("status", "auth.md")
    )
