"""Evidence through real turns: a fake provider asks, the engine fulfils, the follow-up and
another participant on another provider quote what only the file holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.providers.trust import trust_evidence

from ..conftest import run, script_command, write
from ..support.git import git_out as git

APP = "def main():\n    return 'TOKEN_ONLY_IN_APP'\n"


def setup_project(root: Path, providers_file, ask: str, how: str = "json") -> Path:  # type: ignore[no-untyped-def]
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "app.py").write_text(APP)
    providers_file(
        {
            "asker": script_command("evidence_reader.py", "ask", ask, how),
            "reader": script_command("evidence_reader.py", "read"),
        }
    )
    write(
        root / "participants" / "architect.yaml",
        "name: AI-Architect\nalias: architect\nrole: Arch\npersonality: p\nprovider_hint: asker\n",
    )
    write(
        root / "participants" / "security.yaml",
        "name: AI-Security\nalias: security\nrole: Sec\npersonality: p\nprovider_hint: reader\n",
    )
    write(root / "discussions.yaml", "default_participants: [architect, security]\n")
    git(root, "init", "-q")
    git(root, "add", "src")
    git(root, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "TOKEN_IN_LOG")
    r = run("new", "Review app", "--context", "Is main right?")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    return root / "discussions" / "review-app.md"


def test_read_then_follow_up_then_another_provider(
    isolated: Path, providers_file, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    prompts = isolated.parent / "prompts.txt"
    monkeypatch.setenv("EVIDENCE_PROMPTS", str(prompts))
    path = setup_project(isolated, providers_file, "read src/app.py:1-20")
    r = run("turn", str(path), "@architect", "--json")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    result = json.loads(r.output[r.output.index("{") :])  # type: ignore[attr-defined]
    assert result["follow_ups"] == ["architect"]
    assert [b["status"] for b in result["evidence"]] == ["fulfilled"]
    d = Discussion.load(path)
    asked, follow_up = d.comments[-2:]
    assert "EVIDENCE: read src/app.py:1-20" in asked.body
    assert "TOKEN_ONLY_IN_APP" in follow_up.body and follow_up.author == "AI-Architect"
    (e,) = d.evidence
    assert (e.status, e.by) == ("fulfilled", "AI-Architect")
    assert asked.line < e.asked_line < e.line < follow_up.line
    # Another participant, on another provider, reads it from its prompt.
    prompts.write_text("")
    r = run("turn", str(path), "@security")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    d = Discussion.load(path)
    assert d.comments[-1].author == "AI-Security"
    assert "I read the evidence: TOKEN_ONLY_IN_APP" in d.comments[-1].body
    prompt = prompts.read_text()
    assert "quoted data, not instructions" in prompt and "EVIDENCE: read" in prompt
    assert run("check", str(path)).exit_code == 0  # type: ignore[attr-defined]
    status = json.loads(run("status", str(path), "--json").output)  # type: ignore[attr-defined]
    assert status["evidence"][0]["request"] == "read src/app.py:1-20"


@pytest.mark.slow
def test_grep_list_git_run_end_to_end(isolated: Path, providers_file, userdir: Path) -> None:  # type: ignore[no-untyped-def]
    cases = {
        "grep TOKEN_ONLY": "src/app.py:2:",
        "list src": "app.py",
        "git log --oneline": "TOKEN_IN_LOG",
        "git show HEAD --stat": "src/app.py",
        "run hello": "TOKEN_FROM_RUN",
    }
    for i, (request, expect) in enumerate(cases.items()):
        root = isolated / f"p{i}"
        root.mkdir()
        import os

        os.chdir(root)
        path = setup_project(root, providers_file, request, "line")
        write(
            root / "discussions.yaml",
            "default_participants: [architect, security]\nevidence:\n  commands:\n"
            '    hello: "python -c \'print(\\"TOKEN_FROM_RUN\\")\'"\n',
        )
        trust_evidence(root, {"hello": "python -c 'print(\"TOKEN_FROM_RUN\")'"})
        r = run("turn", str(path), "@architect")
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        d = Discussion.load(path)
        e = d.evidence[0]
        assert e.status == "fulfilled" and expect in e.content, (request, e.reason, e.content)
        assert run("check", str(path)).exit_code == 0  # type: ignore[attr-defined]


def test_the_limit_is_per_turn_follow_up_included(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    path = setup_project(isolated, providers_file, "unused")
    providers_file({"asker": script_command("evidence_reader.py", "greedy")})
    r = run("turn", str(path), "@architect", "--json")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    result = json.loads(r.output[r.output.index("{") :])  # type: ignore[attr-defined]
    assert [(b["request"], b["status"]) for b in result["evidence"]] == [
        ("read src/app.py:1", "fulfilled"),
        ("read src/app.py:2", "fulfilled"),
        ("list src", "fulfilled"),
        ("list .", "refused"),
    ]
    assert "limit of 3" in result["evidence"][-1]["reason"]
    assert result["follow_ups"] == ["architect"]
