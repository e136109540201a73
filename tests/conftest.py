"""Shared fixtures: every test runs in its own project folder with its own user dir."""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest

# The shared fixtures beyond these (git repositories, the browser, fixtures that tests in more
# than one module use) live in tests/support, registered here once.
pytest_plugins = ["tests.support.fixtures"]

# A shell starts a background job with Ctrl-C ignored, and an ignored signal stays ignored in
# every process started from it: Python then installs no KeyboardInterrupt, and the tests that
# interrupt a run, a watch or a write saw a process that would not stop. Tests run as they
# would from a terminal: Ctrl-C raises here, and is default in the processes they start.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPTS = Path(__file__).parent / "scripts"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder as cwd; user dir, HOME and SmartTools dir inside tmp; no colours."""
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("DISCUSSIONS_HOME", str(tmp_path / "userdir"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SMARTTOOLS_HOME", str(home / ".smarttools"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)  # apply worktrees go to HOME/.cache
    return project


@pytest.fixture
def userdir(tmp_path: Path) -> Path:
    d = tmp_path / "userdir"
    d.mkdir(exist_ok=True)
    return d


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def signed(
    author: str, text: str = "", vote: str | None = None, provider: str = "mock", at: str = ""
) -> str:
    """A participant's comment as the engine writes it: its metadata line carries the digest
    of its text, without which a comment signed with a participant's name counts for nothing
    (`derive.signatures`); `at`: the time it was written."""
    from discussions.derive.signatures import render_signed

    meta = [f"provider: {provider}"] + ([f"at: {at}"] if at else [])
    return render_signed(author, text, meta, vote)


def sign_ai_comments(text: str) -> str:
    """`text` with every ``Name: AI-...`` comment that the engine's digest does not vouch for
    made into what the engine writes: the digest added to its metadata line, or a metadata
    line put in the blank line under ``Name:`` (inserted where there is none: the comment is
    one line longer). A hand-written fixture, signed as the engine would have."""
    from discussions.derive.rules import engine_meta
    from discussions.derive.signatures import body_digest, own_text
    from discussions.syntax.meta import comment_meta_line
    from discussions.syntax.parse import parse_document

    doc = parse_document(text)
    marker_lines = [m.line for m in doc.engine_markers]
    lines = text.split("\n")
    for block in reversed(doc.comments):
        if not block.author.startswith("AI-") or "digest" in engine_meta(block.body):
            continue
        digest = f"digest: {body_digest(own_text(block, marker_lines))}"
        at = comment_meta_line(block.body.split("\n"))
        if at is not None:
            i = block.body_line - 1 + at
            lines[i] = lines[i].replace(" -->", f" | {digest} -->", 1)
        elif not lines[block.line].strip():
            lines[block.line] = f"<!-- provider: mock | {digest} -->"
        else:
            lines.insert(block.line, f"<!-- provider: mock | {digest} -->")
    return "\n".join(lines)


def write_signed(path: Path, text: str) -> Path:
    """`write`, then `sign_ai_comments` on what was written."""
    write(path, text)
    path.write_text(sign_ai_comments(path.read_text(encoding="utf-8")), encoding="utf-8")
    return path


def script_command(name: str, *args: str) -> str:
    """A provider command line running one of tests/scripts with this Python."""
    import shlex

    return " ".join(shlex.quote(x) for x in (sys.executable, str(SCRIPTS / name), *args))


@pytest.fixture
def providers_file(userdir: Path):
    """Write the user's providers.yaml: {name: command}."""

    def make(entries: dict[str, str], **extra: dict[str, object]) -> Path:
        lines = ["providers:"]
        for name, command in entries.items():
            lines.append(f"  - name: {name}")
            lines.append(f"    command: {json.dumps(command)}")
            for key, value in (extra.get(name) or {}).items():
                lines.append(f"    {key}: {value}")
        path = userdir / "providers.yaml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return make


os.environ.setdefault("PYTHONHASHSEED", "0")


# -- the CLI in process: shared by the command tests -----------------------------------------


def run(*args: str) -> object:
    """Invoke the CLI in process (exceptions become the result's exit code)."""
    from click.testing import CliRunner

    from discussions.cli import cli

    return CliRunner().invoke(cli, list(args))


def out(r: object) -> str:
    return r.output  # type: ignore[attr-defined,no-any-return]


def code(r: object) -> int:
    return r.exit_code  # type: ignore[attr-defined,no-any-return]


def result_of(r: object) -> dict[str, object]:
    """The JSON object a command printed (after any lines before it)."""
    text = out(r)
    data: dict[str, object] = json.loads(text[text.index("{") :])
    return data
