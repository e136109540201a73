"""The quick end of the process after a command: nothing written is lost, statuses are kept."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).parent.parent.parent / "src" / "discussions"
ENV = {**os.environ, "PYTHONPATH": str(SRC.parent)}


def host(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """Run `body` in a fresh Python, then `exiting.finish` with the code it leaves in CODE."""
    script = tmp_path / "host.py"
    script.write_text(
        "import atexit, sys, threading, time\nfrom pathlib import Path\n"
        "from discussions.cli.exiting import finish\nCODE = 0\n"
        + textwrap.dedent(body)
        + "\nfinish(CODE)\n",
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_atexit_handlers_and_buffered_output_survive(tmp_path: Path) -> None:
    r = host(
        tmp_path,
        """
        atexit.register(lambda: Path("atexit.txt").write_text("ran"))
        sys.stdout.write("no newline, still buffered")
        sys.stderr.write("err")
        CODE = 3
        """,
    )
    assert (r.returncode, r.stdout, r.stderr) == (3, "no newline, still buffered", "err")
    assert (tmp_path / "atexit.txt").read_text() == "ran"


@pytest.mark.slow
def test_a_running_thread_is_waited_for(tmp_path: Path) -> None:
    r = host(
        tmp_path,
        """
        def late():
            time.sleep(0.5)
            Path("thread.txt").write_text("done")
        threading.Thread(target=late).start()
        """,
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "thread.txt").read_text() == "done"


@pytest.mark.parametrize(
    ("code", "status", "err"), [("None", 0, ""), ("'bad input'", 1, "bad input\n")]
)
def test_statuses_python_prints_are_left_to_python(
    tmp_path: Path, code: str, status: int, err: str
) -> None:
    r = host(tmp_path, f"CODE = {code}")
    assert (r.returncode, r.stderr) == (status, err)


@pytest.mark.slow
def test_the_command_line_keeps_its_exit_statuses(isolated: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "discussions", *args],
            env={**ENV, "NO_COLOR": "1"},
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert cli("new", "Quick exit", "--file", "q").returncode == 0
    r = cli("comment", "q.md", "Written before the end.", "--author", "Robin")
    assert r.returncode == 0, r.stderr
    assert "Written before the end." in (isolated / "discussions" / "q.md").read_text()
    missing = cli("status", "nowhere.md")
    assert missing.returncode == 1 and missing.stderr.startswith("Error: ")
    assert cli("status", "--no-such-option").returncode == 2


def _opens_outside_with(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_with = {
        id(item.context_expr)
        for node in ast.walk(tree)
        if isinstance(node, (ast.With, ast.AsyncWith))
        for item in node.items
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in in_with:
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        base = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
        if name in ("open", "fdopen", "NamedTemporaryFile") and base not in ("os", "webbrowser"):
            found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    return found


@pytest.mark.slow
def test_every_file_the_package_opens_is_closed_by_a_with_block() -> None:
    """What lets the quick end skip Python's teardown: no file object outlives its block
    with bytes not yet written (descriptors from `os.open` are closed by their callers)."""
    found = [hit for p in sorted(SRC.rglob("*.py")) for hit in _opens_outside_with(p)]
    assert found == []


def test_the_collector_is_on_again_once_the_command_is_loaded() -> None:
    """`main` turns the garbage collector off while the modules load; a command never runs
    without it (a long `watch` or `serve` would grow without bound)."""
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import gc, click\nfrom discussions.cli import cli\ngc.disable()\n"
            "ctx = click.Context(cli)\ncommand = cli.get_command(ctx, 'status')\n"
            "print(command.name, gc.isenabled(), gc.get_freeze_count() > 0)",
        ],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.stdout.split() == ["status", "True", "True"], r.stderr
