"""A provider that rewrites an AI CLI's project configuration during a turn (as qwen 0.15
does with .qwen/settings.json, no flag stopping it) is reported to the user."""

from __future__ import annotations

import sys
from pathlib import Path

from ..conftest import code, out, result_of, run, write

REWRITE = """
import pathlib, shutil, sys
sys.stdin.read()
p = pathlib.Path(".qwen/settings.json")
if sys.argv[1] == "rewrite":
    shutil.copy(p, str(p) + ".orig")
    p.write_text('{"$version": 3}')
print("VOTE: READY")
"""


def setup(project: Path, providers_file, rewrite: bool) -> None:  # type: ignore[no-untyped-def]
    script = project.parent / "cli.py"
    script.write_text(REWRITE)
    mode = "rewrite" if rewrite else "keep"
    providers_file({"cli": f"{sys.executable} {script} {mode}"})
    write(project / "discussions.yaml", "providers:\n  default: cli\n  fallback: []\n")
    write(project / ".qwen" / "settings.json", "{}\n")
    write(project / "participants" / "r.yaml", "name: AI-R\nalias: r\nrole: R\npersonality: p\n")
    head = "<!-- DISCUSSION -->\n<!-- Title: T -->\n<!-- Phase: initial_feedback -->\n"
    write(project / "d.md", head + "<!-- Status: OPEN -->\n<!-- Participants: r -->\n\n# T\n")


def test_a_rewritten_cli_config_is_said_in_plain_and_json_output(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    setup(isolated, providers_file, rewrite=True)
    r = run("turn", "d.md", "@r")
    assert code(r) == 0, out(r)
    assert "Warning: .qwen/settings.json was changed by an AI CLI" in out(r)
    assert "Warning: .qwen/settings.json.orig was added" in out(r)
    write(isolated / ".qwen" / "settings.json", "{}\n")
    (isolated / ".qwen" / "settings.json.orig").unlink()
    data = result_of(run("turn", "d.md", "@r", "--json"))
    assert [w.split(" by ")[0] for w in data["warnings"]] == [  # type: ignore[union-attr]
        ".qwen/settings.json was changed",
        ".qwen/settings.json.orig was added",
    ]


def test_a_run_says_it_too(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    setup(isolated, providers_file, rewrite=True)
    r = run("run", "d.md", "--rounds", "1")
    assert "Warning: .qwen/settings.json was changed by an AI CLI" in out(r), out(r)


def test_nothing_is_said_when_nothing_changed(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    setup(isolated, providers_file, rewrite=False)
    r = run("turn", "d.md", "@r")
    assert code(r) == 0, out(r)
    assert "Warning" not in out(r)
