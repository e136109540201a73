"""A council's shape (`settings.shape`): personas' traits and focus weights shape their prompts
and the choice of an apply's lead; bad ones are reported with file and line; `check` warns
about an even number of voting members where votes are counted."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from discussions.engine.apply.leads import choose_lead, lead_score, matched_focus
from discussions.engine.prompt.prompts import build_prompt
from discussions.model.discussion import Discussion
from discussions.model.handoff import build_handoff
from discussions.providers import ProviderRegistry
from discussions.settings.workspace import Workspace

from ..conftest import code, out, run, write
from ..support.documents import decided_file

PY = shlex.quote(sys.executable)


def _persona(alias: str, extra: str = "", hint: str = "writer", caps: str = "[]") -> None:
    write(
        Path("participants") / f"{alias}.yaml",
        f"name: AI-{alias.capitalize()}\nalias: {alias}\nrole: Reviewer\n"
        f"provider_hint: {hint}\ncapabilities: {caps}\npersonality: You review.\n{extra}",
    )


def test_traits_and_focus_shape_the_prompt(isolated: Path) -> None:
    _persona(
        "skeptic",
        "traits: [skeptical, concise]\nfocus:\n  security: 3\n  Data Privacy: 5\n  ui: 0\n",
    )
    ws = Workspace.discover()
    p = ws.participants.get("skeptic")
    assert p.traits == ["skeptical", "concise"]
    assert p.focus == {"security": 3.0, "data-privacy": 5.0}
    assert p.to_dict()["focus"] == {"security": 3.0, "data-privacy": 5.0}
    d = Discussion.create("Auth", participants=["skeptic"], workspace=ws)
    d.save()
    prompt, _ = build_prompt(Discussion.load(d.path, ws), p)
    assert "Your traits: skeptical, concise. Let them show in how you argue." in prompt
    assert "Your focus, by weight (0-10): data-privacy 5, security 3. Give each" in prompt


def test_bad_traits_and_focus_are_reported_with_file_and_line(isolated: Path) -> None:
    _persona("odd", "traits:\n  - calm\n  - '<b>loud</b>'\n")
    _persona("heavy", "focus:\n  security: high\n")
    _persona("huge", "focus:\n  cost: 11\n")
    run("new", "Some", "--participants", "architect")
    r = run("check")
    lines = out(r)
    assert "participants/odd.yaml:9: key 'traits[1]' must be a short trait" in lines
    assert "participants/heavy.yaml:8: key 'focus.security' must be a weight from 0 to 10" in lines
    assert "participants/huge.yaml:8: key 'focus.cost' must be a weight from 0 to 10, got 11" in (
        lines
    )


def test_focus_weights_choose_the_lead(isolated: Path, userdir: Path) -> None:
    write(
        userdir / "providers.yaml",
        f"providers:\n  - name: writer\n    command: {PY} -c pass\n"
        f"    write_command: {PY} -c pass\n",
    )
    _persona("first", caps="[testing]")
    _persona("second", "focus:\n  cache: 2\n  docs: 4\n", caps="[testing]")
    ws = Workspace.discover()
    people = [ws.participants.get("first"), ws.participants.get("second")]
    handoff = build_handoff(Discussion.load(decided_file(isolated)))
    words = handoff.words()  # an LRU cache in front of the reader; write the cache tests
    assert matched_focus(people[1], words) == (("cache", 2.0),)
    assert (lead_score(people[0], words), lead_score(people[1], words)) == (1, 3)
    reg = ProviderRegistry.load(isolated)
    choice = choose_lead(people, handoff, registry=reg, chain=lambda p: ["writer"])
    assert choice.participant.alias == "second"
    assert choice.reason == "AI-Second leads: testing, focus cache 2"
    # Without the focus, the tie goes to the order given.
    _persona("second", caps="[testing]")
    people[1] = Workspace.discover().participants.get("second")
    choice = choose_lead(people, handoff, registry=reg, chain=lambda p: ["writer"])
    assert choice.participant.alias == "first"


def test_check_warns_about_an_even_council_where_votes_count(isolated: Path) -> None:
    run("new", "Even", "--participants", "architect,security")
    run("new", "Odd", "--participants", "architect,security,pragmatist")
    run("new", "Scored", "--participants", "architect,security", "-t", "deliberation")
    r = run("check")
    assert code(r) == 0, out(r)
    warned = [line for line in out(r).splitlines() if ": warning: " in line]
    assert warned == [
        "discussions/even.md:7: warning: an even council: 2 voting members (AI-Architect, "
        "AI-Security) in phases that count votes (consensus_vote), where a vote can tie; seat "
        "an odd number (add or drop a voting member, or make one `type: background`)"
    ]
    shown = run("check", "--json")
    assert code(shown) == 0
    [found] = json.loads(shown.output)
    assert (found["file"], found["line"], found["severity"]) == (
        "discussions/even.md",
        7,
        "warning",
    )
