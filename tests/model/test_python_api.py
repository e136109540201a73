"""The Python API as the design document and the README show it, run end to end with the
built-in mock (no AI CLI on PATH)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from discussions import Discussion, DiscussionNotFound, Participant, Runner

from ..conftest import run
from ..documentation import section


@pytest.fixture
def no_ai_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH without any AI CLI, so every participant is answered by the built-in mock."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_load_finds_a_discussion_by_name_as_the_cli_does(isolated: Path) -> None:
    assert run("new", "Feature X").exit_code == 0  # type: ignore[attr-defined]
    in_folder = isolated / "discussions" / "feature-x.md"
    for name in ("feature-x.md", "feature-x", "discussions/feature-x.md", str(in_folder)):
        d = Discussion.load(name)
        assert d.path.resolve() == in_folder.resolve(), name
        assert d.title == "Feature X"
    with pytest.raises(DiscussionNotFound, match=r"no such discussion file: nope\.md \(also"):
        Discussion.load("nope.md")


def test_load_follows_the_configured_discussions_folder(isolated: Path) -> None:
    (isolated / "discussions.yaml").write_text("output:\n  directory: docs/talks\n")
    assert run("new", "Feature X").exit_code == 0  # type: ignore[attr-defined]
    assert Discussion.load("feature-x.md").path.parent.name == "talks"


def test_the_design_documents_api_example(isolated: Path, no_ai_cli: None) -> None:
    discussion = Discussion.create(
        title="Feature X", template="feature", context="We need to implement..."
    )
    assert discussion.title == "Feature X"
    assert discussion.phase == "initial_feedback"
    assert discussion.status == "OPEN"
    assert discussion.participants == ["architect", "security", "pragmatist"]
    assert discussion.votes == {} and discussion.questions == [] and discussion.decisions == []
    discussion.save()

    runner = Runner()
    responses = runner.run_turn(
        discussion=discussion,
        participants=["architect", "security"],
        callout="Please review the updated proposal.",
    )
    assert sorted(o.alias for o in responses.posted) == ["architect", "security"]
    assert all(o.provider == "mock" for o in responses.posted)

    discussion.add_comment(author="Rob", text="I agree with the security concerns.", vote="CHANGES")
    assert discussion.has_consensus() is False
    assert not discussion.consensus_result.reached
    discussion.save()

    loaded = Discussion.load("feature-x.md")
    assert loaded.path.resolve() == (isolated / "discussions" / "feature-x.md").resolve()
    authors = [c.author for c in loaded.comments]  # the AIs answer in parallel: any order
    assert sorted(authors[:2]) == ["AI-Architect", "AI-Security"] and authors[2] == "Rob"
    assert loaded.votes["Rob"] == "CHANGES"
    assert set(loaded.votes) >= {"Rob"}
    assert all(q.author and q.text for q in loaded.questions)
    assert all(d.author and d.text for d in loaded.decisions)
    result = loaded.consensus_result
    assert result.reached is False and result.counts.get("CHANGES", 0) >= 1
    assert loaded.has_consensus() is False
    assert isinstance(Participant, type)


def readme_python_example() -> str:
    """The example of docs/commands.md's "Python API" (it was the README's)."""
    found = re.search(r"```python\n(.+?)\n```", section("commands.md", "## Python API"), re.S)
    assert found is not None
    return found.group(1)


def test_the_readmes_python_example_runs(
    isolated: Path, no_ai_cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    exec(compile(readme_python_example(), "docs/commands.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("initial_feedback ")
    d = Discussion.load("feature-x.md")
    authors = [c.author for c in d.comments]
    assert sorted(authors[:2]) == ["AI-Architect", "AI-Security"] and authors[2] == "Rob"
    assert d.votes["Rob"] == "CHANGES"
