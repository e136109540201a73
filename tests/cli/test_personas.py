"""participants add / edit / remove and where each persona comes from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli

from ..conftest import write


def run(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args), input=input)


def test_add_from_file_validates_names_the_field_and_never_overwrites(
    isolated: Path, tmp_path: Path
) -> None:
    good = write(
        tmp_path / "r.yaml",
        "name: AI-Reviewer\nalias: reviewer\nrole: Reviews\npersonality: You review.\n",
    )
    r = run("participants", "add", "reviewer", "--from-file", str(good))
    assert r.exit_code == 0, r.output
    saved = isolated / "participants" / "reviewer.yaml"
    assert "name: AI-Reviewer" in saved.read_text(encoding="utf-8")
    again = run("participants", "add", "reviewer", "--from-file", str(good))
    assert again.exit_code == 1 and "already exists" in again.output
    bad = write(tmp_path / "b.yaml", "name: X\nalias: bad\ntype: sometimes\npersonality: p\n")
    r = run("participants", "add", "bad", "--from-file", str(bad))
    assert r.exit_code == 1 and "'type'" in r.output
    assert not (isolated / "participants" / "bad.yaml").exists()
    listing = run("participants", "list")
    line = next(ln for ln in listing.output.splitlines() if ln.startswith("@reviewer"))
    assert "project" in line
    data = json.loads(run("participants", "list", "--json").output)
    origins = {p["alias"]: p["origin"] for p in data}
    assert origins["reviewer"] == "project" and "bundled" in origins.values()


def test_add_to_user_folder_and_remove(isolated: Path, tmp_path: Path) -> None:
    f = write(tmp_path / "u.yaml", "name: AI-Ux\nalias: ux\npersonality: p\n")
    assert run("participants", "add", "ux", "--from-file", str(f), "--user").exit_code == 0
    assert (tmp_path / "userdir" / "participants" / "ux.yaml").exists()
    r = run("participants", "remove", "ux", "--project")
    assert r.exit_code == 1
    r = run("participants", "remove", "ux")
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "userdir" / "participants" / "ux.yaml").exists()


def test_bundled_personas_cannot_be_removed(isolated: Path) -> None:
    data = json.loads(run("participants", "list", "--json").output)
    bundled = next(p["alias"] for p in data if p["origin"] == "bundled")
    r = run("participants", "remove", bundled)
    assert r.exit_code == 1 and "bundled" in r.output


def test_interactive_add(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("click.edit", lambda *a, **k: "You are careful.\n")
    answers = "AI-Careful\nChecks things\nsafety, tests\nWhat breaks?\nvoting\n\n"
    r = run("participants", "add", "careful", "--interactive", input=answers)
    assert r.exit_code == 0, r.output
    text = (isolated / "participants" / "careful.yaml").read_text(encoding="utf-8")
    assert "role: Checks things" in text and "- safety" in text and "You are careful." in text


def test_edit_a_bundled_persona_writes_a_project_override(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = json.loads(run("participants", "list", "--json").output)
    alias = next(p["alias"] for p in data if p["origin"] == "bundled")

    def edit(text: str, **_: object) -> str:
        return text.replace("role:", "role: Overridden", 1) if "role:" in text else text

    monkeypatch.setattr("click.edit", edit)
    r = run("participants", "edit", alias)
    assert r.exit_code == 0, r.output
    assert "Overridden" in (isolated / "participants" / f"{alias}.yaml").read_text()
    data = json.loads(run("participants", "list", "--json").output)
    assert next(p["origin"] for p in data if p["alias"] == alias) == "project"


def test_the_advocate_is_told_both_ways_it_is_called(isolated: Path) -> None:
    """At once, or by a jump from a split ballot (docs/council.md): the persona said only
    the first."""
    shown = CliRunner().invoke(cli, ["participants", "show", "advocate"]).output
    told = " ".join(shown.split())
    assert "at once" in told and "split ballot" in told, told[:600]
