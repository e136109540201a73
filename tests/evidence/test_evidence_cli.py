"""The evidence commands: `evidence FILE`, `new --files`, `review --with-files`, `trust`."""

from __future__ import annotations

import json
from pathlib import Path

from discussions.model.discussion import Discussion
from discussions.providers.trust import evidence_trusted

from ..conftest import run
from ..support.evidence import ask
from ..support.git import git_out as git


def test_evidence_command_fulfils_by_hand(project: Path) -> None:
    d = ask(project, "Rob", "read src/app.py:7", "read .env")
    r = run("evidence", str(d.path))
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    out = r.output  # type: ignore[attr-defined]
    assert "Evidence 1 for Rob: read src/app.py:7 (fulfilled" in out
    assert "Evidence 2 for Rob: read .env (refused: `.env` looks like a secret" in out
    assert "No evidence request is pending." in run("evidence", str(d.path)).output  # type: ignore[attr-defined]
    d = ask(project, "Rob", "list src")
    data = json.loads(run("evidence", str(d.path), "--json").output)  # type: ignore[attr-defined]
    assert data["blocks"][0]["status"] == "fulfilled"
    status = json.loads(run("status", str(d.path), "--json").output)  # type: ignore[attr-defined]
    assert [e["status"] for e in status["evidence"]] == ["fulfilled", "refused", "fulfilled"]
    assert "Evidence: 2 fulfilled, 1 refused" in run("status", str(d.path)).output  # type: ignore[attr-defined]


def test_new_with_files(project: Path) -> None:
    r = run("new", "Auth", "--files", "src/**", "--files", "README.md", "--files", ".env")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    d = Discussion.load(project / "discussions" / "auth.md")
    got = [(e.request, e.status) for e in d.evidence]
    assert got == [
        ("read src/app.py", "fulfilled"),
        ("read src/util.py", "fulfilled"),
        ("read README.md", "fulfilled"),
        ("read .env", "refused"),
    ]
    assert all(e.asked_line == 0 for e in d.evidence)
    assert "TOKEN_SECRET_ENV" not in d.path.read_text()
    assert run("check", str(d.path)).exit_code == 0  # type: ignore[attr-defined]


def test_review_with_files(project: Path) -> None:
    (project / "src" / "util.py").write_text("def helper():\n    return 'TOKEN_REVIEWED'\n")
    r = run("review", "--with-files", "--json")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    data = json.loads(r.output)  # type: ignore[attr-defined]
    (e,) = data["evidence"]
    assert e["request"] == "read src/util.py" and e["status"] == "fulfilled"
    assert "TOKEN_REVIEWED" in Path(data["file"]).read_text()


def test_turn_says_up_front_when_an_attached_file_is_gone(project: Path) -> None:
    run("new", "Auth", "--files", "src/util.py")
    (project / "src" / "util.py").unlink()
    r = run("turn", "discussions/auth.md", "@architect")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    out = r.output  # type: ignore[attr-defined]
    assert "attached src/util.py (evidence 1) no longer exists" in out
    assert "No AI CLI is installed" in out
    assert out.index("no longer exists") < out.index("Invoking")


def test_trust_covers_evidence_commands(project: Path) -> None:
    (project / "discussions.yaml").write_text(
        "evidence:\n  commands:\n    tests: \"python -c 'print(1)'\"\n"
    )
    commands = {"tests": "python -c 'print(1)'"}
    assert not evidence_trusted(project, commands)
    r = run("trust", "--yes")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert "tests: python -c 'print(1)'" in r.output  # type: ignore[attr-defined]
    assert evidence_trusted(project, commands)
    assert not evidence_trusted(project, {"tests": "python -c 'print(2)'"})
    r = run("trust", "--revoke")
    assert "Trust withdrawn for evidence.commands." in r.output  # type: ignore[attr-defined]
    assert not evidence_trusted(project, commands)
    git(project, "status")


def test_trust_asks_once_for_providers_and_evidence_commands(project: Path) -> None:
    from click.testing import CliRunner

    from discussions.cli import cli
    from discussions.providers.trust import is_trusted

    (project / "discussions.yaml").write_text(
        "evidence:\n  commands:\n    tests: \"python -c 'print(1)'\"\n"
    )
    (project / "providers.yaml").write_text(
        "providers:\n  - name: local\n    command: python -c 'print(2)'\n"
    )
    r = CliRunner().invoke(cli, ["trust"], input="y\n")
    assert r.exit_code == 0, r.output
    assert r.output.count("Allow `discussions` to run") == 1
    assert "local: python -c 'print(2)'" in r.output and "tests: python -c 'print(1)'" in r.output
    assert evidence_trusted(project, {"tests": "python -c 'print(1)'"})
    assert is_trusted(project / "providers.yaml")
    r = CliRunner().invoke(cli, ["trust", "--revoke"])
    r = CliRunner().invoke(cli, ["trust"], input="n\n")  # refused: neither is trusted
    assert r.exit_code == 1 and r.output.count("Allow `discussions` to run") == 1
    assert not evidence_trusted(project, {"tests": "python -c 'print(1)'"})
    assert not is_trusted(project / "providers.yaml")


def test_watch_fulfils_a_saved_request(project: Path) -> None:
    from discussions.ops.watch import Watcher
    from discussions.settings.workspace import Workspace

    run("new", "Watched")
    path = project / "discussions" / "watched.md"
    logs: list[str] = []
    w = Watcher(Workspace.discover(), log=logs.append, provider="mock", debounce=0)
    w.add(path)
    r = run(
        "comment", str(path), "Before we decide:\n\nEVIDENCE: read src/app.py:7", "--author", "Rob"
    )
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    w.process(path)
    (e,) = Discussion.load(path).evidence
    assert e.status == "fulfilled" and "TOKEN_APP_7" in e.content
    assert any("Evidence 1 for Rob: read src/app.py:7 (fulfilled" in line for line in logs)
    w.process(path)  # our own append: nothing more
    assert len(Discussion.load(path).evidence) == 1


def test_check_fails_on_an_edited_evidence_block(project: Path) -> None:
    d = ask(project, "Rob", "read src/app.py:7")
    run("evidence", str(d.path))
    assert run("check", str(d.path)).exit_code == 0  # type: ignore[attr-defined]
    d.path.write_text(d.path.read_text().replace("only-here", "forged"))
    r = run("check", str(d.path))
    assert r.exit_code == 1  # type: ignore[attr-defined]
    assert "evidence block 1 does not match the digest" in r.output  # type: ignore[attr-defined]
