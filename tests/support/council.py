"""The council's scenarios: its template, a discussion whose AI members are the stand-in
tests/scripts/council.py (it records every prompt it receives), and a motion of two people."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ..conftest import code, run, script_command, write

MOTION = "Adopt JWT with a one-hour expiry"

Council = Callable[..., Path]
"""council(plan, humans=None, threshold=0.5, as_no=False) -> the discussion's path."""


def council_template(isolated: Path, threshold: float = 0.5, as_no: bool = False) -> None:
    write(
        isolated / "templates" / "council.yaml",
        f"""
        name: council
        participants: [architect, security, pragmatist]
        consensus_status: DECIDED
        phases:
          - id: debate
            title: Debate
            majority_threshold: {threshold}
            abstain_counts_as_no: {str(as_no).lower()}
            auto_trigger: motion_passed
            next: decided
          - id: decided
            title: Decided
        """,
    )


def council_maker(isolated: Path, providers_file: Callable[..., Path], memory: Path) -> Council:
    """council(plan, humans=None, threshold=0.5, as_no=False): a discussion 'plan.md' with the
    council template and the stand-in answering by `plan` (recording into `memory`)."""

    def make(
        plan: dict[str, object],
        humans: list[str] | None = None,
        threshold: float = 0.5,
        as_no: bool = False,
    ) -> Path:
        council_template(isolated, threshold, as_no)
        providers_file({"standin": script_command("council.py", json.dumps(plan), str(memory))})
        config = "providers:\n  default: standin\n  detect: false\n"
        if humans:
            config += f"consensus:\n  human_required: {json.dumps(humans)}\n"
        write(isolated / "discussions.yaml", config)
        assert code(run("new", "Plan", "--template", "council")) == 0
        return isolated / "discussions" / "plan.md"

    return make


def people_motion(isolated: Path, name: str, *, ballot: bool = False) -> Path:
    """A council of two people, Rob and Ana (no AI member), and Rob's motion "Ship it" (with
    his YES ballot when `ballot`), in ``discussions/NAME``."""
    council_template(isolated)
    write(isolated / "discussions.yaml", 'consensus:\n  human_required: ["Rob", "Ana"]\n')
    text = (
        "<!-- DISCUSSION -->\n<!-- Template: council -->\n<!-- Participants: -->\n\n---\n\n"
        "Name: Rob\n\nMOTION: Ship it\n" + ("BALLOT: YES\n" if ballot else "") + "\n---\n"
    )
    return write(isolated / "discussions" / name, text)


def prompts(tmp_path: Path, kind: str) -> dict[str, str]:
    """alias -> prompt text, for the prompts of `kind` the council stand-in received."""
    found = {}
    for f in sorted((tmp_path / "memory" / "prompts").glob(f"*-{kind}.txt")):
        found[f.stem.split("-")[1]] = f.read_text(encoding="utf-8")
    return found
