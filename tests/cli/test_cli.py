"""The command line: exit codes, exact error lines, files untouched on error, help text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from discussions.cli import cli

from ..conftest import FIXTURES, write
from ..documentation import page


def run(*args: str, input: str | None = None) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


@pytest.fixture
def disc(isolated: Path) -> Path:
    result = run("new", "Add user authentication", "--context", "Users need to log in.")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Created: discussions/add-user-authentication.md\n")
    assert "Participants: @architect, @security, @pragmatist" in result.output
    return isolated / "discussions" / "add-user-authentication.md"


def test_new_creates_from_template(disc: Path) -> None:
    text = disc.read_text()
    assert text.startswith("<!-- DISCUSSION -->\n<!-- Title: Add user authentication -->\n")
    assert "<!-- Template: feature -->" in text
    assert "## Context\nUsers need to log in.\n" in text


def test_new_context_from_stdin_and_options(isolated: Path) -> None:
    r = run(
        "new",
        "API",
        "-t",
        "adr",
        "--participants",
        "architect,pragmatist",
        "-d",
        "docs",
        "--context",
        "-",
        input="From stdin\n",
    )
    assert r.exit_code == 0, r.output
    text = (isolated / "docs" / "api.md").read_text()
    assert "<!-- Participants: architect, pragmatist -->" in text
    assert "From stdin" in text and "<!-- Title: ADR: API -->" in text


def test_new_errors(disc: Path) -> None:
    r = run("new", "Add user authentication")
    assert r.exit_code == 1
    assert r.output.startswith("Error: discussions/add-user-authentication.md already exists")
    r = run("new", "X", "--template", "nope")
    assert (
        r.exit_code == 1
        and "Error: no template 'nope' (known: adr, code-review, deliberation, diagnostic, feature)"
        in r.output
    )
    r = run("new", "X", "--participants", "ghost")
    assert r.exit_code == 1 and "Error: no participant 'ghost'" in r.output


def test_status_json_shape(disc: Path) -> None:
    run("comment", disc.name, "Q: JWT? @security", "--vote", "ready", "--author", "Rob")
    r = run("status", disc.name, "--json")
    assert r.exit_code == 0
    data = json.loads(r.output)
    for key in (
        "title",
        "phase",
        "status",
        "participants",
        "comments",
        "votes",
        "consensus",
        "questions",
        "todos",
        "decisions",
        "concerns",
        "pending_mentions",
        "warnings",
    ):
        assert key in data
    assert data["comments"] == [
        {
            "author": "Rob",
            "line": data["comments"][0]["line"],
            "vote": "READY",
            "mentions": ["security"],
            "meta": {},
            "at": data["comments"][0]["at"],
        }
    ]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["comments"][0]["at"])
    assert data["votes"] == {"Rob": "READY"}
    assert set(data["consensus"]) >= {"reached", "outcome", "blocked_by"}
    assert data["questions"][0]["text"] == "JWT? @security"
    assert data["pending_mentions"][0]["alias"] == "security"


def test_status_text_and_verbose(disc: Path) -> None:
    run("comment", disc.name, "TODO: write docs\nDECISION: JWT", "--author", "Rob")
    r = run("status", disc.name, "--verbose")
    assert r.exit_code == 0
    assert "TODO: write docs (Rob, line" in r.output
    assert "All comments:" in r.output


def test_comment_author_defaults_to_git_user(
    disc: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Gitta Author\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    r = run("comment", disc.name, "hello")
    assert r.output == "Added comment from Gitta Author.\n"
    assert "Name: Gitta Author" in disc.read_text()


def test_comment_from_stdin(disc: Path) -> None:
    r = run("comment", str(disc), "-", "--author", "Rob", input="piped text\n")
    assert r.exit_code == 0
    assert "piped text" in disc.read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["comment", "nope.md", "hi"],
            "Error: no such discussion file: nope.md (also looked in discussions)\n",
        ),
        (
            ["comment", "DISC", "hi", "--vote", "maybe"],
            "Error: invalid vote 'maybe': use READY, CHANGES or REJECT\n",
        ),
        (
            ["advance", "DISC", "--to", "nope"],
            "Error: unknown phase 'nope' (phases: initial_feedback, detailed_review, consensus_vote)\n",
        ),
        (
            ["status", "nope.md"],
            "Error: no such discussion file: nope.md (also looked in discussions)\n",
        ),
    ],
)
def test_errors_are_one_line_and_leave_file_untouched(
    disc: Path, args: list[str], message: str
) -> None:
    before = disc.read_bytes()
    r = run(*[disc.name if a == "DISC" else a for a in args])
    assert r.exit_code == 1
    assert r.output == message
    assert disc.read_bytes() == before


def test_comment_needs_something(disc: Path) -> None:
    r = run("comment", disc.name)
    assert r.exit_code == 2
    assert "give comment TEXT" in r.output


def test_advance(disc: Path) -> None:
    assert run("advance", disc.name).output == "Advanced to phase: detailed_review\n"
    assert run("advance", disc.name, "--to", "consensus_vote").exit_code == 0
    r = run("advance", disc.name)
    assert r.exit_code == 1
    assert r.output == "Error: 'consensus_vote' is the last phase of template 'feature'\n"


def test_list(disc: Path, isolated: Path) -> None:
    write(isolated / "discussions" / "notes.md", "just notes\n")
    r = run("list")
    assert r.exit_code == 0
    assert r.output.splitlines() == [
        "STATUS  PHASE             COMMENTS  FILE                                    TITLE",
        "OPEN    initial_feedback         0  discussions/add-user-authentication.md  Add user authentication",
    ]
    assert "notes.md" not in r.output
    assert json.loads(run("list", "--json", "--status", "closed").output) == []


def test_list_leaves_links_out_of_the_project_out_and_says_so(
    disc: Path, isolated: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(disc.read_text().replace("Add user authentication", "Secret"))
    (isolated / "discussions" / "away.md").symlink_to(outside)
    (isolated / "discussions" / "alias.md").symlink_to(disc.name)
    (isolated / "discussions" / ".#lock.md").symlink_to("user@host.123")  # an editor's lock
    r = run("list")
    assert r.exit_code == 0
    assert "Secret" not in r.output
    assert re.search(
        r"discussions/alias\.md +Add user authentication", r.output
    )  # shown by its own name
    assert "Skipped discussions/away.md: away.md is a symbolic link out of the project" in r.output
    assert "lock" not in r.output
    # a folder named on the command line is the user's choice: its own files are listed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "own.md").write_text(outside.read_text())
    (elsewhere / "away.md").symlink_to(disc)  # into the project: fine too
    r = run("list", "--dir", str(elsewhere))
    assert r.exit_code == 0 and r.output.count("Secret") == 1, r.output
    assert "Add user authentication" in r.output


def test_a_name_too_long_for_the_system_is_not_found(disc: Path) -> None:
    r = run("status", "x" * 5000)
    assert r.exit_code == 1
    assert r.output.startswith("Error: no such discussion file: xxx") and len(r.output) < 200


def test_check(disc: Path, isolated: Path) -> None:
    r = run("check", str(disc))
    assert r.exit_code == 0
    bad = write(isolated / "bad.md", "<!-- DISCUSSION -->\n\n---\nName: A\nVOTE: perhaps\n")
    r = run("check", str(disc), str(bad), "missing.md")
    assert r.exit_code == 1
    lines = r.output.splitlines()
    assert (
        f"{bad}:5: invalid vote `perhaps` (expected READY, CHANGES or REJECT); not counted" in lines
    )
    assert any(line.startswith("missing.md:0: no such discussion file") for line in lines)


def test_check_golden_fixture_lines() -> None:
    r = run("check", str(FIXTURES / "tricky.md"))
    assert r.exit_code == 1
    assert f"{FIXTURES / 'tricky.md'}:43: invalid vote `maybe`" in r.output


def test_participants_and_templates(isolated: Path) -> None:
    r = run("participants", "list")
    aliases = re.findall(r"^@(\S+)", r.output, re.M)
    assert aliases == [
        "advocate",
        "architect",
        "designer",
        "moderator",
        "perfectionist",
        "pragmatist",
        "researcher",
        "security",
        "visualizer",
    ]
    r = run("participants", "show", "@security")
    assert r.output.startswith("AI-Security (@security)\nRole: Security Specialist\n")
    r = run("participants", "show", "ghost")
    assert r.exit_code == 1 and r.output.startswith(
        "Error: no participant 'ghost' (known: advocate,"
    )
    data = json.loads(run("templates", "list", "--json").output)
    feature = next(t for t in data if t["name"] == "feature")
    assert [p["id"] for p in feature["phases"]] == [
        "initial_feedback",
        "detailed_review",
        "consensus_vote",
    ]


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None
        full = f"{prefix}{name}"
        if isinstance(cmd, click.Group):
            out += _commands(cmd, full + " ")
        else:
            out.append((full, cmd))
    return out


@pytest.mark.parametrize("name, cmd", _commands(cli))
def test_every_command_has_help_with_examples_and_is_documented(
    name: str, cmd: click.Command
) -> None:
    r = run(*name.split(), "-h")
    assert r.exit_code == 0
    assert "Examples:" in r.output
    assert f"discussions {name}" in page("commands.md")  # its table and examples


def test_version_and_root_help() -> None:
    assert run("--version").output.startswith("discussions, version ")
    assert "Quick tour" in run("-h").output
