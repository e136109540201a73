"""A feature council whose seats are answered by scripted providers and whose template names
the advocate as its contrarian (or not), for the contrarian's tests (issue 37, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

from discussions.settings.config import bundled_dir

from ..conftest import script_command, write
from .quorum import ALIASES, seat

CHALLENGE = json.dumps(
    {"comment": "CONCERN: a cookie token is sent on every cross-site request (auth.py:12)."}
)


def ready(comment: str = "Looks right.") -> str:
    return json.dumps({"comment": comment, "vote": "READY"})


def contrarian_council(  # type: ignore[no-untyped-def]
    isolated: Path,
    providers_file,
    voters: str = ready(),
    contrarian: bool = True,
    challenge: str = CHALLENGE,
    plan: dict[str, list[str]] | None = None,
    devil: str = "",
) -> None:
    """The seats answered by `voters` (a scripted answer), or each by its list of answers in
    `plan` (`tests/scripts/sequence.py`: one per call, the last repeated; "*" for the
    others); the advocate (a background persona) by `challenge`, or by the command `devil`;
    with `contrarian`, a project copy of the bundled feature template that sets
    ``contrarian: advocate``."""
    seats = (
        script_command("sequence.py", json.dumps(plan), str(isolated.parent / "calls"))
        if plan
        else script_command("answer.py", voters)
    )
    providers_file({"voters": seats, "devil": devil or script_command("answer.py", challenge)})
    write(isolated / "discussions.yaml", "providers:\n  detect: false\n  mock_fallback: false\n")
    for alias in ALIASES:
        seat(isolated, alias, "voters")
    write(
        isolated / "participants" / "advocate.yaml",
        "name: AI-Advocate\nalias: advocate\nrole: r\npersonality: p\n"
        "provider_hint: devil\ntype: background\n",
    )
    if contrarian:
        feature = (bundled_dir("templates") / "feature.yaml").read_text(encoding="utf-8")
        write(isolated / "templates" / "feature.yaml", feature + "contrarian: advocate\n")


def advocate_comments(text: str) -> int:
    """How many comments the advocate wrote in `text`."""
    return text.count("Name: AI-Advocate\n")
