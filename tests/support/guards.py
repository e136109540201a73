"""One council that shows all five guards of issue 37, made through the CLI with scripted
providers in a real git repository, for the tests that walk its "Done when" (the web view in
Chromium, the terminal app under Textual's pilot, a merge through the driver).

Round 1 (`first_round`): the architect (provider ``solo``, confidence 8), the security
persona (provider ``other``, citing a real line and an invented one of src/net.py) and the
pragmatist (``solo`` again) vote READY at once on nothing checked: the advocate, the template's
contrarian, is asked and its challenge holds the consensus. Round 2 (`second_round`): the
architect answers READY with a decision, confidence 6 and a concern of its own (a
reservation), the others READY: the challenge is answered and the discussion is DECIDED, with
the advocate's concern unanswered in the minority report.
"""

from __future__ import annotations

import json
from pathlib import Path

from discussions.settings.config import bundled_dir

from ..conftest import code, out, run, script_command, write
from .git import commit_files
from .quorum import open_vote, seat

NET = "".join(f"x{n} = {n}\n" for n in range(1, 21)).replace("x12 = 12", "while True: retry()")
SEATS = ("architect", "security", "pragmatist")
CITES = "It spins at src/net.py:12 `while True: retry()`; src/net.py:99 too."
CHALLENGE = "CONCERN: nothing bounds the retries (src/net.py:12)."
RESERVATION = "the retry limit is not configurable yet."
DECISION = "Bound the retry loop to three attempts."


def _answer(comment: str, confidence: int | None = None) -> str:
    said: dict[str, object] = {"comment": comment, "vote": "READY"}
    if confidence is not None:
        said["confidence"] = confidence
    return json.dumps(said)


PLAN = {
    "architect": [
        _answer("Looks right.", 8),
        _answer(
            f"Answering the advocate: fine.\n\nDECISION: {DECISION}\nCONCERN: {RESERVATION}", 6
        ),
    ],
    "security": [_answer(CITES)],
    "*": [_answer("Fine.")],
}


def guarded_council(repo: Path, providers_file) -> Path:  # type: ignore[no-untyped-def]
    """The project (`repo`, a git repository set up by `discussions init`) and its discussion
    in the voting phase, committed; its path."""
    calls = str(repo.parent / "calls")
    sequence = script_command("sequence.py", json.dumps(PLAN), calls)
    providers_file(
        {"solo": sequence, "other": sequence, "devil": script_command("answer.py", _devil())}
    )
    write(repo / "discussions.yaml", "providers:\n  detect: false\n  mock_fallback: false\n")
    for alias, provider in zip(SEATS, ("solo", "other", "solo"), strict=True):
        seat(repo, alias, provider)
    write(
        repo / "participants" / "advocate.yaml",
        "name: AI-Advocate\nalias: advocate\nrole: r\npersonality: p\n"
        "provider_hint: devil\ntype: background\n",
    )
    feature = (bundled_dir("templates") / "feature.yaml").read_text(encoding="utf-8")
    write(repo / "templates" / "feature.yaml", feature + "contrarian: advocate\n")
    assert code(run("init")) == 0
    commit_files(repo, {"src/net.py": NET})
    path = open_vote()
    commit_files(repo, {}, "the vote opens")
    return path


def _devil() -> str:
    return json.dumps({"comment": CHALLENGE})


def turn() -> None:
    """One turn of the three seats (a round)."""
    r = run("turn", "auth.md", *(f"@{a}" for a in SEATS))
    assert code(r) == 0, out(r)


def status_json() -> dict[str, object]:
    r = run("status", "auth.md", "--json")
    assert code(r) == 0, out(r)
    data: dict[str, object] = json.loads(out(r))
    return data
