"""A broken persona or template file does not block the others; templates are validated field
by field; configured participants; output.directory confinement; summaries written safely."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions import (
    ConfigError,
    Discussion,
    DiscussionsError,
    ParticipantError,
    TemplateError,
    UnknownParticipant,
    UnknownTemplate,
)
from discussions.cli import cli
from discussions.settings.config import Config, FileProblem
from discussions.settings.workspace import Workspace

from ..conftest import write


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --------------------------------------------------------------------- broken persona files


def test_a_broken_persona_file_does_not_block_the_others(isolated: Path) -> None:
    path = write(isolated / "participants" / "x.yaml", "name: X\nalias: x\ntype: sometimes\n")
    reg = Workspace.discover().participants
    assert reg.get("architect").name == "AI-Architect"
    assert "x" not in reg and "x" not in reg.aliases()
    assert reg.problems == [
        FileProblem(
            path.resolve(), 3, "key 'type' must be one of voting, background, got 'sometimes'"
        )
    ]
    with pytest.raises(ParticipantError) as err:
        reg.get("@x")
    assert str(err.value) == (
        f"{path.resolve()}: line 3: key 'type' must be one of voting, background, got 'sometimes'"
    )
    with pytest.raises(UnknownParticipant):
        reg.get("ghost")


def test_a_yaml_syntax_error_is_a_problem_with_its_line(isolated: Path) -> None:
    path = write(isolated / "participants" / "x.yaml", "name: X\nalias: [unclosed\n")
    reg = Workspace.discover().participants
    [problem] = reg.problems
    assert (problem.file, problem.line) == (path.resolve(), 3)
    assert problem.message.startswith("invalid YAML: ")
    assert str(problem) == f"{path.resolve()}:3: {problem.message}"
    assert problem.to_dict() == {
        "file": str(path.resolve()),
        "line": 3,
        "message": problem.message,
        "effect": "skipped",
    }
    with pytest.raises(ConfigError, match=r": line 3: invalid YAML"):
        reg.get("x")  # named after the file: its alias could not be read


def test_a_broken_override_hides_the_persona_it_overrides(isolated: Path) -> None:
    write(
        isolated / "participants" / "architect.yaml",
        "name: AI-Architect\nalias: architect\nrole: [not, text]\n",
    )
    reg = Workspace.discover().participants
    with pytest.raises(ParticipantError, match=r"architect.yaml: line 3: key 'role' must be text"):
        reg.get("architect")
    assert "architect" not in reg.aliases()


def test_one_bad_entry_of_a_participants_list(userdir: Path) -> None:
    path = write(
        userdir / "participants" / "participants.yaml",
        """
        participants:
          - name: AI-Tester
            alias: tester
          - name: AI-Broken
            alias: broken
            expertise: lots
        """,
    )
    reg = Workspace.discover().participants
    assert reg.get("tester").name == "AI-Tester"
    assert [(p.file, p.line) for p in reg.problems] == [(path, 6)]
    with pytest.raises(ParticipantError, match="key 'expertise' must be a list"):
        reg.get("broken")


def test_turn_still_works_next_to_a_broken_persona(isolated: Path) -> None:
    write(isolated / "participants" / "x.yaml", "name: X\nalias: x\nfavourite: blue\n")
    assert run("new", "Auth").exit_code == 0  # type: ignore[attr-defined]
    r = run("turn", "auth.md", "@architect")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert "Name: AI-Architect" in (isolated / "discussions" / "auth.md").read_text()
    r = run("turn", "auth.md", "@x")
    assert r.exit_code == 1  # type: ignore[attr-defined]
    assert "x.yaml: line 3: key 'favourite' is not a participant setting" in r.output  # type: ignore[attr-defined]


def test_participants_list_reports_problems_on_stderr(isolated: Path) -> None:
    write(isolated / "participants" / "x.yaml", "name: X\nalias: x\ntype: sometimes\n")
    r = CliRunner().invoke(cli, ["participants", "list"], catch_exceptions=False)
    assert r.exit_code == 0
    assert "@architect" in r.stdout
    assert r.stderr == (
        "Warning: participants/x.yaml:3: key 'type' must be one of voting, background, "
        "got 'sometimes' (skipped)\n"
    )
    r = CliRunner().invoke(cli, ["participants", "list", "--json"], catch_exceptions=False)
    assert [p["alias"] for p in json.loads(r.stdout)][0] == "advocate"
    problems = json.loads(r.stderr)["problems"]
    assert problems == [
        {
            "file": "participants/x.yaml",  # as the messages name it
            "line": 3,
            "message": "key 'type' must be one of voting, background, got 'sometimes'",
            "effect": "skipped",
        }
    ]
    r = CliRunner().invoke(cli, ["participants", "show", "x"], catch_exceptions=False)
    assert r.exit_code == 1 and "x.yaml: line 3: key 'type'" in r.stderr


# -------------------------------------------------------------------- broken template files


def test_a_broken_template_does_not_block_the_others(isolated: Path) -> None:
    path = write(
        isolated / "templates" / "bad.yaml", "name: bad\nphases:\n  - id: a\n    next: [x]\n"
    )
    ws = Workspace.discover()
    names = [t.name for t in ws.templates]
    assert "feature" in names and "bad" not in names
    assert [str(p) for p in ws.templates.problems] == [
        f"{path.resolve()}:4: key 'phases[0].next' must be text, not a list"
    ]
    assert ws.templates.find("bad") is None
    assert ws.templates.problem_for("bad") == ws.templates.problems[0]
    with pytest.raises(TemplateError) as err:
        ws.templates.get("bad")
    assert (
        str(err.value) == f"{path.resolve()}: line 4: key 'phases[0].next' must be text, not a list"
    )
    with pytest.raises(UnknownTemplate):
        ws.templates.get("nope")
    assert ws.problems == ws.templates.problems
    d = Discussion.create("Works", template="feature", workspace=ws)
    assert d.phase == "initial_feedback"
    r = CliRunner().invoke(cli, ["new", "Bad one", "--template", "bad"], catch_exceptions=False)
    assert r.exit_code == 1 and "bad.yaml: line 4: key 'phases[0].next'" in r.stderr


def test_templates_list_reports_problems(isolated: Path) -> None:
    write(isolated / "templates" / "bad.yaml", "name: bad\nphases: 3\n")
    r = CliRunner().invoke(cli, ["templates", "list"], catch_exceptions=False)
    assert r.exit_code == 0 and r.stdout.startswith("adr")
    assert r.stderr == (
        "Warning: templates/bad.yaml:2: key 'phases' must be a non-empty list, not 3 (skipped)\n"
    )
    r = CliRunner().invoke(cli, ["templates", "list", "--json"], catch_exceptions=False)
    names = [t["name"] for t in json.loads(r.stdout)]
    assert "feature" in names and "bad" not in names
    assert json.loads(r.stderr)["problems"][0]["line"] == 2


@pytest.mark.parametrize(
    "phase, key, problem",
    [
        ("next: [x]", "next", "must be text, not a list"),
        ("next: nowhere", "next", "names unknown phase 'nowhere' (a)"),
        ("title: {x: 1}", "title", "must be text, not a mapping"),
        ('title: "two\\nlines"', "title", "must be one line of printable text, found '\\n'"),
        ("instructions: [a]", "instructions", "must be text, not a list"),
        ("voting_mode: 'yes'", "voting_mode", "must be true or false"),
        ("auto_trigger: sometimes", "auto_trigger", "must be one of"),
        ("auto_trigger: [consensus]", "auto_trigger", "must be text, not a list"),
        ("max_rounds: 0", "max_rounds", "must be a whole number (1 or more)"),
        ("consensus_mode: coin", "consensus_mode", "must be one of votes, score"),
        ("score_threshold: 11", "score_threshold", "must be a whole number from 0 to 10"),
    ],
)
def test_phase_fields_are_typed(isolated: Path, phase: str, key: str, problem: str) -> None:
    path = write(isolated / "templates" / "t.yaml", f"name: t\nphases:\n  - id: a\n    {phase}\n")
    with pytest.raises(TemplateError) as err:
        Workspace.discover().templates.get("t")
    assert str(err.value).startswith(f"{path.resolve()}: line 4: key 'phases[0].{key}' {problem}")


@pytest.mark.parametrize(
    "text, key, problem",
    [
        ("name: [t]\n", "name", "must be text, not a list"),
        ("nam: t\n", "nam", "is not a template setting; did you mean 'name'?"),
        ("name: 'a b'\n", "name", "must be a plain name"),
        ("name: t\nstatus: 'OPEN\\n<!-- x -->'\n", "status", "must be one word"),
        ("name: t\ntitle_format: '{title} -->'\n", "title_format", "must not contain"),
        ("name: t\nparticipants: ['a\\nb']\n", "participants[0]", "must be letters, digits"),
        ("name: t\naliases: x\n", "aliases", "must be a list of text items"),
        ("name: t\nphases:\n  - id: 'a b'\n", "phases[0].id", "must be a plain name"),
        ("name: t\nphases:\n  - id: a\n  - id: a\n", "phases[1].id", "repeats phase 'a'"),
        ("name: t\nphases:\n  - [a]\n", "phases[0]", "must be a mapping of phase settings"),
    ],
)
def test_template_fields_are_validated(isolated: Path, text: str, key: str, problem: str) -> None:
    if "phases" not in text:
        text += "phases:\n  - id: a\n"
    path = write(isolated / "templates" / "t.yaml", text)
    [found] = Workspace.discover().templates.problems
    assert found.file == path.resolve() and found.line > 0
    assert found.message.startswith(f"key '{key}' {problem}")


# -------------------------------------------------------------------- configured participants


def test_configured_participants_only_when_set(isolated: Path, userdir: Path) -> None:
    assert Config.load().configured_participants is None
    write(userdir / "config.yaml", "default_participants: ['@Security', architect]\n")
    assert Config.load().configured_participants == ["security", "architect"]
    write(isolated / "discussions.yaml", "default_participants: [pragmatist]\n")
    assert Config.load().configured_participants == ["pragmatist"]
    write(isolated / "discussions.yaml", "default_participants: []\n")
    assert Config.load().configured_participants is None
    assert Config.load().default_participants == []


# ------------------------------------------------------------------------- output.directory


def test_output_directory_that_is_a_file(isolated: Path) -> None:
    write(isolated / "notes.txt", "hello\n")
    write(isolated / "discussions.yaml", "output:\n  directory: notes.txt\n")
    with pytest.raises(ConfigError) as err:
        _ = Config.load().output_directory
    assert str(err.value).startswith(
        f"{isolated.resolve() / 'discussions.yaml'}: key 'output.directory' is "
    )
    assert "which is a file, not a folder" in str(err.value)
    r = CliRunner().invoke(cli, ["new", "Auth"], catch_exceptions=False)
    assert r.exit_code == 1 and "which is a file, not a folder" in r.stderr


@pytest.mark.parametrize("directory", ["../outside", "/tmp/elsewhere", "a/../../outside"])
def test_a_project_cannot_write_outside_itself(isolated: Path, directory: str) -> None:
    write(isolated / "discussions.yaml", f"output:\n  directory: {directory}\n")
    with pytest.raises(ConfigError) as err:
        _ = Config.load().output_directory
    message = str(err.value)
    assert message.startswith(f"{isolated.resolve() / 'discussions.yaml'}: key 'output.directory'")
    assert "outside the project folder" in message
    r = CliRunner().invoke(cli, ["new", "Auth"], catch_exceptions=False)
    assert r.exit_code == 1 and "outside the project folder" in r.stderr
    assert not (isolated.parent / "outside").exists()


def test_a_project_link_out_of_itself_is_refused(isolated: Path, tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    (isolated / "discussions").symlink_to(tmp_path / "target")
    write(isolated / "discussions.yaml", "consensus:\n  threshold_ready: 0.5\n")
    with pytest.raises(ConfigError, match="outside the project folder"):
        _ = Config.load().output_directory


def test_a_project_directory_does_not_expand_variables(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t")
    write(isolated / "discussions.yaml", "output:\n  directory: ./$SECRET_TOKEN\n")
    assert Config.load().output_directory == isolated.resolve() / "$SECRET_TOKEN"


def test_the_users_own_directory_may_be_anywhere(
    isolated: Path, userdir: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(userdir / "config.yaml", f"output:\n  directory: {elsewhere}\n")
    write(isolated / "discussions.yaml", "consensus:\n  threshold_ready: 0.5\n")
    assert Config.load().output_directory == elsewhere
    write(isolated / "discussions.yaml", "output:\n  directory: talk\n")
    assert Config.load().output_directory == isolated.resolve() / "talk"


def test_output_directory_must_be_text(isolated: Path) -> None:
    write(isolated / "discussions.yaml", "output:\n  directory: [a]\n")
    with pytest.raises(ConfigError) as err:
        Config.load()
    assert str(err.value) == (
        f"{isolated.resolve() / 'discussions.yaml'}: line 2: "
        "key 'output.directory' must be the path of a folder (text), not a list"
    )


# ------------------------------------------------------------------------------- summaries


@pytest.fixture
def discussion(isolated: Path) -> Discussion:
    d = Discussion.create("Auth")
    d.save()
    return d


def test_summary_on_a_read_only_file_system(
    discussion: Discussion, monkeypatch: pytest.MonkeyPatch
) -> None:
    from discussions.model import summary

    real_open = os.open

    def refuse(path: str, flags: int, *args: int, **kwargs: object) -> int:
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(DiscussionsError) as err:
        summary.write_summary(discussion)
    assert str(err.value) == (
        f"cannot write the summary {summary.summary_path(discussion.path)}: "
        "read-only file system; nothing was written"
    )


def test_summary_read_only_is_left_alone(discussion: Discussion) -> None:
    from discussions.model import summary

    target = summary.summary_path(discussion.path)
    target.write_text("mine\n", encoding="utf-8")
    target.chmod(0o444)
    with pytest.raises(DiscussionsError, match="it is read-only; make it writable"):
        summary.write_summary(discussion)
    assert target.read_text(encoding="utf-8") == "mine\n"
    r = CliRunner().invoke(cli, ["summary", str(discussion.path)], catch_exceptions=False)
    assert r.exit_code == 1 and "it is read-only" in r.stderr


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_summary_on_a_full_disk_leaves_no_partial_file(
    discussion: Discussion, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    from discussions.model import summary

    target = summary.summary_path(discussion.path)
    target.write_text("previous\n", encoding="utf-8")
    before = sorted(os.listdir(target.parent))

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, where, full)
    with pytest.raises(DiscussionsError) as err:
        summary.write_summary(discussion)
    assert str(err.value) == (
        f"cannot write the summary {target}: disk full; the previous version is unchanged"
    )
    assert target.read_text(encoding="utf-8") == "previous\n"
    assert sorted(os.listdir(target.parent)) == before


def test_summary_keeps_the_permissions_of_the_discussion(discussion: Discussion) -> None:
    from discussions.model import summary

    discussion.path.chmod(0o640)
    target = summary.write_summary(discussion)
    assert target.stat().st_mode & 0o777 == 0o640
    target.chmod(0o664)
    summary.write_summary(discussion)
    assert target.stat().st_mode & 0o777 == 0o664
