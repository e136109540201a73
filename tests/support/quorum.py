"""A council whose seats are answered by scripted providers, for the quorum tests (votes from
one provider or several, a seat whose call fails)."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import code, run, script_command, write

ALIASES = ("architect", "security", "pragmatist")


def ready(comment: str = "Looks right.", confidence: int | None = None) -> str:
    answer: dict[str, object] = {"comment": comment, "vote": "READY"}
    if confidence is not None:
        answer["confidence"] = confidence
    return json.dumps(answer)


def seat(isolated: Path, alias: str, provider: str) -> None:
    """The project's persona `alias`, answered by `provider` alone."""
    write(
        isolated / "participants" / f"{alias}.yaml",
        f"name: AI-{alias.title()}\nalias: {alias}\nrole: r\npersonality: p\n"
        f"provider_hint: {provider}\n",
    )


def scripted_providers(isolated: Path, providers_file, consensus: str = "") -> None:  # type: ignore[no-untyped-def]
    """The scripted providers (``claude-x`` names its model and gives confidence 8; ``solo``
    and ``other`` are plain, ``other`` with confidence 3; ``dead`` fails) and the project's
    `consensus` settings."""
    providers_file(
        {
            "claude-x": script_command("modelled.py", ready(confidence=8), "claude-x-1"),
            "solo": script_command("answer.py", ready()),
            "other": script_command("answer.py", ready(confidence=3)),
            "dead": script_command("fail.py", "1", "model overloaded\n"),
        },
        **{"claude-x": {"output": "claude-json"}},
    )
    settings = "providers:\n  detect: false\n  mock_fallback: false\n"
    consensus = f"consensus:\n{consensus}" if consensus else ""
    write(isolated / "discussions.yaml", settings + consensus)


def open_vote() -> Path:
    """A feature discussion in its voting phase."""
    assert code(run("new", "Auth", "--context", "Tokens in cookies.")) == 0
    assert code(run("advance", "auth.md", "--to", "consensus_vote")) == 0
    return Path("discussions/auth.md").resolve()
