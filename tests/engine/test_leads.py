"""Who leads an apply: capabilities matched against the decision, providers that can write."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.engine.apply.leads import choose_lead, matched_capabilities
from discussions.errors import NoLead
from discussions.model.discussion import Discussion
from discussions.model.handoff import build_handoff
from discussions.providers import ProviderRegistry
from discussions.settings.participants import Participant
from discussions.settings.workspace import Workspace

from ..conftest import write
from ..support.documents import decided_file

PY = shlex.quote(sys.executable)


def _providers(userdir: Path) -> None:
    write(
        userdir / "providers.yaml",
        f"""
        providers:
          - name: writer
            command: {PY} -c pass
            write_command: {PY} -c pass
          - name: reader
            command: {PY} -c pass
        """,
    )


def _persona(folder: Path, alias: str, caps: str, hint: str, kind: str = "voting") -> None:
    write(
        folder / f"{alias}.yaml",
        f"name: AI-{alias.capitalize()}\nalias: {alias}\ntype: {kind}\n"
        f"provider_hint: {hint}\ncapabilities: {caps}\n",
    )


def _setup(isolated: Path, userdir: Path) -> tuple[list[Participant], ProviderRegistry]:
    _providers(userdir)
    folder = isolated / "participants"
    _persona(folder, "architect", "[architecture, refactoring]", "writer")
    _persona(folder, "pragmatist", "[Testing, Logic]", "writer")
    _persona(folder, "security", "[security, performance]", "reader")
    ws = Workspace.discover()
    return [ws.participants.get(a) for a in ("architect", "pragmatist", "security")], (
        ProviderRegistry.load(isolated)
    )


def _chain(reg: ProviderRegistry):  # the persona's hint only, nothing detected
    return lambda p: [p.provider_hint] if p.provider_hint else []


def test_capabilities_are_read_lower_case(isolated: Path, userdir: Path) -> None:
    people, _ = _setup(isolated, userdir)
    assert people[1].capabilities == ["testing", "logic"]
    assert people[0].to_dict()["capabilities"] == ["architecture", "refactoring"]


def test_the_best_match_that_can_write_leads(isolated: Path, userdir: Path) -> None:
    people, reg = _setup(isolated, userdir)
    handoff = build_handoff(Discussion.load(decided_file(isolated)))
    # "Put an LRU cache in front of the catalogue reader" / "write the cache tests" /
    # "We should refactor the reader behind an interface"
    handoff.decisions[0].text += " Refactor the reader behind an interface."
    choice = choose_lead(people, handoff, registry=reg, chain=_chain(reg))
    assert choice.participant.alias == "architect"
    assert choice.matched == ("architecture", "refactoring")
    assert choice.reason == "AI-Architect leads: architecture, refactoring"
    assert choice.provider.name == "writer"


def test_a_better_match_without_a_write_mode_is_passed_over(isolated: Path, userdir: Path) -> None:
    people, reg = _setup(isolated, userdir)
    handoff = build_handoff(Discussion.load(decided_file(isolated)))
    handoff.decisions[0].text = "Close the security hole; keep the cache fast."
    handoff.todos.clear()
    assert matched_capabilities(people[2], handoff.words()) == ("security", "performance")
    choice = choose_lead(people, handoff, registry=reg, chain=_chain(reg))
    assert choice.participant.alias != "security"
    assert "leads:" in choice.reason


def test_named_lead(isolated: Path, userdir: Path) -> None:
    people, reg = _setup(isolated, userdir)
    handoff = build_handoff(Discussion.load(decided_file(isolated)))
    choice = choose_lead(people, handoff, "@Pragmatist", registry=reg, chain=_chain(reg))
    assert choice.participant.alias == "pragmatist"
    assert choice.reason.startswith("AI-Pragmatist leads (named with --lead)")
    assert "testing" in choice.matched  # "write the cache tests"


def test_a_named_lead_that_cannot_write_says_why(isolated: Path, userdir: Path) -> None:
    people, reg = _setup(isolated, userdir)
    handoff = build_handoff(Discussion.load(decided_file(isolated)))
    with pytest.raises(NoLead) as err:
        choose_lead(people, handoff, "security", registry=reg, chain=_chain(reg))
    message = str(err.value)
    assert "AI-Security cannot lead" in message and "reader (no write mode)" in message
    assert "writer (installed)" in message and "write_command:" in message
    with pytest.raises(NoLead, match="not a participant of this discussion"):
        choose_lead(people, handoff, "nobody", registry=reg, chain=_chain(reg))


def test_nobody_can_lead(isolated: Path, userdir: Path) -> None:
    people, reg = _setup(isolated, userdir)
    handoff = build_handoff(Discussion.load(decided_file(isolated)))
    with pytest.raises(NoLead) as err:
        choose_lead(people[2:], handoff, registry=reg, chain=_chain(reg))
    message = str(err.value)
    assert "nobody in this discussion can lead" in message
    assert "claude" in message and "codex" in message  # the presets with a write mode
    assert "ollama" not in message


def test_participants_show_prints_capabilities(isolated: Path) -> None:
    r = CliRunner().invoke(cli, ["participants", "show", "architect"])
    assert r.exit_code == 0, r.output
    assert "Capabilities: architecture, refactoring, planning, review" in r.output


def test_without_a_chain_the_turns_chain_is_used(isolated: Path, userdir: Path) -> None:
    from discussions.engine.apply.leads import default_chain

    people, reg = _setup(isolated, userdir)
    write(isolated / "discussions.yaml", "providers:\n  default: writer\n  detect: false\n")
    ws = Workspace.discover()
    assert default_chain(reg, ws)(people[2]) == ["reader", "writer"]
    handoff = build_handoff(Discussion.load(decided_file(isolated)))
    choice = choose_lead(people[2:], handoff, registry=reg, chain=default_chain(reg, ws))
    assert choice.participant.alias == "security" and choice.provider.name == "writer"


def test_triggers_match_words_not_letters(isolated: Path, userdir: Path) -> None:
    people, _ = _setup(isolated, userdir)
    security, architect, pragmatist = people[2], people[0], people[1]

    def caps(p: Participant, text: str) -> tuple[str, ...]:
        return matched_capabilities(p, {w.lower() for w in text.split()})

    assert caps(security, "credit the author in the planet checkout") == ()
    assert caps(security, "fix the auth flow") == ("security",)
    assert caps(security, "require authentication") == ("security",)
    assert caps(security, "the caching layer") == ("performance",)
    assert caps(architect, "refactored modules") == ("architecture", "refactoring")
    assert caps(pragmatist, "testament protestant") == ()
    assert caps(pragmatist, "tested implementations") == ("testing", "logic")


def test_a_named_lead_that_cannot_write_is_not_told_to_name_a_lead(
    isolated: Path, userdir: Path
) -> None:
    people, reg = _setup(isolated, userdir)
    handoff = build_handoff(Discussion.load(decided_file(isolated)))
    with pytest.raises(NoLead) as err:
        choose_lead(people, handoff, "security", registry=reg, chain=_chain(reg))
    message = str(err.value)
    assert "--lead ALIAS" not in message
    assert "--lead architect" in message and "--lead pragmatist" in message
    with pytest.raises(NoLead) as err:
        choose_lead(people[2:], handoff, registry=reg, chain=_chain(reg))
    assert "--lead" not in str(err.value)  # naming one would not help either
