"""Every command that reads a file, given a missing file, a folder, a binary file or a file
that is not UTF-8: one ``Error:`` line and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from discussions.cli import cli

BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" * 8
LATIN1 = "<!-- DISCUSSION -->\n<!-- Title: Caf\xe9 -->\n\n# Caf\xe9\n".encode("latin-1")
KINDS = ("missing", "folder", "binary", "latin1")


def invoke(args: list[str], input: bytes | str | None = None) -> Result:
    return CliRunner().invoke(cli, args, input=input)


def one_error(r: Result, code: int = 1) -> str:
    """The single ``Error:`` line of a failed command (no traceback, the expected exit); a
    command given ``--json`` prints its error as ``{"error": message}``, shown here as the
    line it would be without."""
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    assert r.exit_code == code, r.output
    if r.output.startswith("{"):
        return f"Error: {json.loads(r.output)['error']}"
    errors = [line for line in r.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, r.output
    return errors[0]


def bad_input(folder: Path, kind: str, name: str) -> Path:
    """A file called `name` in `folder` of the given kind (`missing`: not there at all)."""
    path = folder / name
    if kind == "folder":
        path.mkdir()
    elif kind == "binary":
        path.write_bytes(BINARY)
    elif kind == "latin1":
        path.write_bytes(LATIN1)
    return path


@pytest.fixture
def good(isolated: Path) -> Path:
    assert invoke(["new", "Good one"]).exit_code == 0
    return isolated / "discussions" / "good-one.md"


# Commands given a discussion FILE. Those that write refuse a file that is not UTF-8; those
# that only read show it, with a warning (the parser tolerates damaged files).
FILE_COMMANDS: dict[str, tuple[list[str], bool]] = {
    "status": (["status", "{f}"], False),
    "status --json": (["status", "{f}", "--json"], False),
    "summary": (["summary", "{f}", "--stdout"], False),
    "export": (["export", "{f}", "--out", "-"], False),
    "comment": (["comment", "{f}", "hi", "--author", "Rob"], True),
    "advance": (["advance", "{f}"], True),
    "close": (["close", "{f}"], True),
    "reopen": (["reopen", "{f}"], True),
    "turn": (["turn", "{f}", "--provider", "mock"], True),
    "run": (["run", "{f}", "--provider", "mock", "--rounds", "1"], True),
    "adr": (["adr", "{f}"], True),
    "ui": (["ui", "{f}"], True),
    "watch": (["watch", "{f}"], True),
}


@pytest.mark.parametrize("kind", ["missing", "folder", "binary"])
@pytest.mark.parametrize("command", sorted(FILE_COMMANDS))
def test_a_file_argument_that_is_no_discussion(
    isolated: Path, good: Path, command: str, kind: str
) -> None:
    if command == "watch" and kind == "folder":
        return  # a folder is what watch watches by default
    path = bad_input(isolated, kind, "x.md")
    args = [a.format(f=path.name) for a in FILE_COMMANDS[command][0]]
    line = one_error(invoke(args))
    assert "x.md" in line
    expected = {"missing": "no such", "folder": "folder", "binary": "binary file"}[kind]
    assert expected in line


@pytest.mark.parametrize("command", sorted(c for c in FILE_COMMANDS if c not in ("ui", "watch")))
def test_a_discussion_that_is_not_utf8(isolated: Path, good: Path, command: str) -> None:
    """Readers and writers apply the one rule (`storage.discussion_problem`): a file that is not
    UTF-8 is not a discussion, said in one line, and nothing is written."""
    path = bad_input(isolated, "latin1", "x.md")
    before = path.read_bytes()
    args, _ = FILE_COMMANDS[command]
    assert "not UTF-8" in one_error(invoke([a.format(f=path.name) for a in args]))
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", KINDS)
def test_check_reports_a_bad_file_as_a_problem(isolated: Path, good: Path, kind: str) -> None:
    bad_input(isolated, kind, "x.md")
    r = invoke(["check", "x.md"])
    assert r.exit_code == 1 and r.exception is None or isinstance(r.exception, SystemExit)
    assert "Traceback" not in r.output
    assert any(line.startswith("x.md:") for line in r.output.splitlines()), r.output


@pytest.mark.parametrize("kind", KINDS)
def test_participants_add_from_file(isolated: Path, kind: str) -> None:
    path = bad_input(isolated, kind, "persona.yaml")
    line = one_error(invoke(["participants", "add", "x", "--from-file", str(path)]))
    expected = {
        "missing": "persona.yaml: no such file",
        "folder": "persona.yaml: is a folder",
        "binary": "persona.yaml: is a binary file",
        "latin1": "persona.yaml: line 2: not valid UTF-8",
    }[kind]
    assert expected in line
    assert not (isolated / "participants").exists()


def test_participants_add_from_file_names_the_line_of_a_bad_field(isolated: Path) -> None:
    path = isolated / "p.yaml"
    path.write_text("name: X\nalias: x\npersonality: p\ntype: sometimes\n", encoding="utf-8")
    line = one_error(invoke(["participants", "add", "x", "--from-file", str(path)]))
    assert "p.yaml: line 4: key 'type'" in line


@pytest.mark.parametrize(
    "args", [["comment", "good-one.md", "-", "--author", "Rob"], ["new", "Y", "--context", "-"]]
)
@pytest.mark.parametrize("data", [BINARY, LATIN1], ids=["binary", "latin1"])
def test_standard_input_that_is_not_utf8(good: Path, args: list[str], data: bytes) -> None:
    assert "standard input is not valid UTF-8" in one_error(invoke(args, input=data))


@pytest.mark.parametrize("command", ["list", "decisions", "chronicle"])
def test_a_dir_option_that_is_missing(isolated: Path, good: Path, command: str) -> None:
    assert "no discussions folder at nope" in one_error(invoke([command, "--dir", "nope"]))


@pytest.mark.parametrize("command", ["list", "decisions", "chronicle", "new", "ui"])
def test_a_dir_option_that_is_a_file(isolated: Path, good: Path, command: str) -> None:
    bad_input(isolated, "binary", "f.bin")
    args = [command, "X"] if command == "new" else [command]
    assert "f.bin" in one_error(invoke([*args, "--dir", "f.bin"]), code=2)


@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_merge_file_inputs(isolated: Path, kind: str) -> None:
    path = bad_input(isolated, kind, "base.md")
    line = one_error(invoke(["merge-file", str(path), str(path), str(path)]), code=2)
    assert "base.md" in line


@pytest.mark.parametrize("kind", KINDS)
def test_replay_recording(isolated: Path, good: Path, kind: str) -> None:
    path = bad_input(isolated, kind, "rec.md")
    r = invoke(["providers", "test", f"replay:{path.name}"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert isinstance(r.exception, SystemExit), repr(r.exception)


@pytest.mark.parametrize("kind", ["binary", "folder"])
def test_export_out_that_is_not_a_file(isolated: Path, good: Path, kind: str) -> None:
    """A folder given as the file, or a file where the file's folder would go (a missing
    folder is made: `test_export.py`)."""
    target = bad_input(isolated, kind, "sub")
    if kind == "binary":
        target = target / "x.html"  # its "folder" is a file
    assert "sub" in one_error(invoke(["export", "good-one.md", "--out", str(target)]))


# -- configuration files -----------------------------------------------------------------------

CONFIG_FILES = {
    "discussions.yaml": "discussions.yaml",
    "user config.yaml": "../userdir/config.yaml",
    "user providers.yaml": "../userdir/providers.yaml",
    "project providers.yaml": "providers.yaml",
    "smarttools providers.yaml": "../home/.smarttools/providers.yaml",
}


@pytest.mark.parametrize("kind", ["binary", "latin1"])
@pytest.mark.parametrize("which", sorted(CONFIG_FILES))
def test_a_settings_file_that_is_not_text(
    isolated: Path, good: Path, which: str, kind: str
) -> None:
    path = (isolated / CONFIG_FILES[which]).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    bad_input(path.parent, kind, path.name)
    command = ["providers", "list"] if "providers" in which else ["status", "good-one.md"]
    line = one_error(invoke(command))
    assert path.name in line
    assert ("binary file" if kind == "binary" else "line 2: not valid UTF-8") in line


@pytest.mark.parametrize("kind", ["binary", "latin1", "folder"])
@pytest.mark.parametrize("folder", ["participants", "templates"])
def test_a_definition_file_that_is_not_text_is_skipped_and_named(
    isolated: Path, good: Path, folder: str, kind: str
) -> None:
    (isolated / folder).mkdir()
    bad_input(isolated / folder, kind, "x.yaml")
    r = invoke(["status", "good-one.md"])
    assert r.exit_code == 0 and r.exception is None, r.output
    if kind != "folder":  # a folder called x.yaml is not a definition file: not read at all
        assert f"Warning: {folder}/x.yaml" in r.output


def test_a_trust_list_that_is_a_folder(isolated: Path, good: Path, userdir: Path) -> None:
    (isolated / "providers.yaml").write_text(
        "providers:\n  - name: x\n    command: echo hi\n", encoding="utf-8"
    )
    (userdir / "trust.yaml").mkdir()
    assert "trust.yaml: is not a file" in one_error(invoke(["trust"], input="y\n"))
