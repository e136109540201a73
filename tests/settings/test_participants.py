"""Persona YAML: validation errors name the file and the key; precedence project > user > bundled."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from discussions import ConfigError, ParticipantError
from discussions.settings.config import bundled_dir
from discussions.settings.workspace import Workspace

from ..conftest import write


def test_bundled_personas_are_complete() -> None:
    reg = Workspace.discover().participants
    assert len(list(bundled_dir("participants").glob("*.yaml"))) == 9
    voting = sorted(p.alias for p in reg if p.votes)
    background = sorted(p.alias for p in reg if not p.votes)
    assert voting == [
        "architect",
        "designer",
        "moderator",
        "perfectionist",
        "pragmatist",
        "security",
    ]
    assert background == ["advocate", "researcher", "visualizer"]
    for p in reg:
        assert p.name.startswith("AI-") and p.role and len(p.personality) > 400
        assert p.expertise and p.concerns and p.provider_hint


def test_bundled_templates_are_found() -> None:
    names = [t.name for t in Workspace.discover().templates]
    assert names == ["adr", "code-review", "deliberation", "diagnostic", "feature"]


def test_precedence_project_over_user_over_bundled(isolated: Path, userdir: Path) -> None:
    write(
        userdir / "participants" / "architect.yaml",
        "name: AI-Architect\nalias: architect\nrole: User Role\npersonality: u\n",
    )
    assert Workspace.discover().participants.get("architect").role == "User Role"
    write(
        isolated / "participants" / "architect.yaml",
        "name: AI-Architect\nalias: architect\nrole: Project Role\npersonality: p\n",
    )
    assert Workspace.discover().participants.get("architect").role == "Project Role"


def test_registry_file_form(userdir: Path) -> None:
    write(
        userdir / "participants" / "participants.yaml",
        """
        participants:
          - name: AI-Tester
            alias: tester
            role: Tester
            personality: tests things
            type: background
    """,
    )
    p = Workspace.discover().participants.get("@Tester")
    assert p.name == "AI-Tester" and not p.votes


@pytest.mark.parametrize(
    "content, key",
    [
        ("name: X\nalias: x\ntype: sometimes\n", "type"),
        ("alias: x\n", "name"),
        ("name: X\nalias: x\nexpertise: lots\n", "expertise"),
        ("name: X\nalias: 'bad alias!'\n", "alias"),
        ("name: X\nalias: x\nfavourite_colour: blue\n", "favourite_colour"),
    ],
)
def test_invalid_persona_names_file_and_key(isolated: Path, content: str, key: str) -> None:
    path = write(isolated / "participants" / "x.yaml", content)
    registry = Workspace.discover().participants  # a broken file does not block the others
    assert [p.file for p in registry.problems] == [path.resolve()]
    with pytest.raises(ParticipantError) as err:
        registry.get("x")
    assert re.match(rf"{re.escape(str(path.resolve()))}: line \d+: key '{key}'", str(err.value))


def test_yaml_syntax_error_names_file_and_line(isolated: Path) -> None:
    path = write(isolated / "participants" / "x.yaml", "name: [unclosed\nalias: x\n")
    with pytest.raises(ConfigError) as err:
        Workspace.discover().participants.get("x")
    assert str(err.value).startswith(f"{path.resolve()}: line ")


def test_yaml_is_loaded_safely(isolated: Path) -> None:
    write(
        isolated / "participants" / "x.yaml",
        "name: !!python/object/apply:os.system ['true']\nalias: x\n",
    )
    with pytest.raises(ConfigError):
        Workspace.discover().participants.get("x")


def test_config_validation_names_key(isolated: Path) -> None:
    write(isolated / "discussions.yaml", "consensus:\n  threshold_ready: 2\n")
    with pytest.raises(
        ConfigError, match="key 'consensus.threshold_ready' must be a number between 0 and 1"
    ):
        Workspace.discover()


def test_config_precedence(isolated: Path, userdir: Path) -> None:
    write(userdir / "config.yaml", "default_template: adr\noutput:\n  directory: user-out\n")
    ws = Workspace.discover()
    assert ws.config.default_template == "adr"
    write(isolated / "discussions.yaml", "output:\n  directory: proj-out\n")
    ws = Workspace.discover()
    assert ws.config.default_template == "adr"
    assert ws.config.output_directory == isolated.resolve() / "proj-out"


def test_project_root_found_from_subfolder(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated / "discussions.yaml", "output:\n  directory: talk\n")
    sub = isolated / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert Workspace.discover().config.output_directory == isolated.resolve() / "talk"


def test_discussions_home_overrides_user_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from discussions.settings.config import user_dir

    monkeypatch.setenv("DISCUSSIONS_HOME", str(tmp_path / "elsewhere"))
    assert user_dir() == tmp_path / "elsewhere"
    monkeypatch.delenv("DISCUSSIONS_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_dir() == tmp_path / "xdg" / "discussions"


def test_template_without_body_gets_the_default(isolated: Path) -> None:
    write(isolated / "templates" / "mini.yaml", "name: mini\nphases:\n  - id: only\n")
    from discussions import Discussion

    d = Discussion.create("Tiny", template="mini", context="Some context")
    assert d.text.endswith("# Tiny\n\n## Context\n\nSome context\n\n---\n")
    assert d.phase == "only"


def test_invalid_template_names_key(isolated: Path) -> None:
    from discussions import TemplateError

    path = write(
        isolated / "templates" / "bad.yaml", "name: bad\nphases:\n  - id: a\n    next: nowhere\n"
    )
    with pytest.raises(TemplateError) as err:
        Workspace.discover().templates.get("bad")
    assert str(err.value) == (
        f"{path.resolve()}: line 4: key 'phases[0].next' names unknown phase 'nowhere' (a)"
    )


def test_author_lookups_are_remembered_per_author(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each rule asks who wrote each comment: a registry works out each author string once."""
    from discussions.model.discussion import Discussion
    from discussions.settings import participants

    asked: list[str] = []
    keys = participants._author_keys
    monkeypatch.setattr(participants, "_author_keys", lambda a: asked.append(a) or keys(a))
    body = "".join(
        f"\n---\n\nName: {author}\n\n@rob VOTE: READY\n"
        for author in ["AI-Architect", "Rob", "Zoë Ångström"] * 20
    )
    path = tmp_path / "d.md"
    path.write_text("<!-- DISCUSSION -->\n<!-- Title: T -->\n\n# T\n" + body, encoding="utf-8")
    d = Discussion(path, Workspace.discover(tmp_path))
    assert len(d.to_dict()["comments"]) == 60
    assert sorted(set(asked)) == ["AI-Architect", "Rob", "Zoë Ångström"]
    assert len(asked) <= 6  # for_author, then author_aliases for a person: once each
    reg = d.workspace.participants
    assert reg.for_author("ai-architect") is reg.get("architect")
    assert reg.author_aliases("Zoë Ångström") == (
        "zoë ångström",
        "zoë-ångström",
        "zoë_ångström",
        "zoë",
    )
