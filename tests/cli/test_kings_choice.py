"""The King's Choice at the end of `discussions run`: a run that reaches consensus (the
stand-in tests/scripts/deliberate.py agreeing from round two) asks the person at a real
pseudo-terminal to apply now, leave it to a person or decide later; the answer is a ``CHOICE``
line in the file, read back by `status`, checked by `check`, kept by the merge driver. Never
asked without a terminal, with --json or --yes. Real git throughout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from discussions.git.units import split_blocks
from discussions.model.discussion import Discussion
from discussions.ops.choice import choose
from discussions.settings.workspace import Workspace

from ..conftest import SCRIPTS, code, out, run, script_command, write
from ..support.dialogue import converse
from ..support.git import check_clean, commit_all, git

FILE = "discussions/rollout.md"


@pytest.fixture
def rollout(repo: Path, providers_file, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    """A committed discussion whose participants agree from round two (`deliberate.py`); the
    same provider can lead an apply (tests/scripts/lead.py edit)."""
    monkeypatch.delenv("CI", raising=False)
    lead = f"{sys.executable} {SCRIPTS / 'lead.py'} edit"
    providers_file(
        {"standin": script_command("deliberate.py", "agree2", str(tmp_path / "memory"))},
        standin={"write_command": json.dumps(lead)},
    )
    write(repo / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")
    (repo / "app.py").write_text("def retry():\n    return 1\n")
    (repo / "old.txt").write_text("old\n")
    assert code(run("new", "Rollout")) == 0
    commit_all(repo, "start")
    return repo / FILE


def _choice(path: Path) -> dict[str, object] | None:
    r = run("status", str(path), "--json")
    return json.loads(out(r))["choice"]  # type: ignore[no-any-return]


def test_on_a_terminal_the_choice_is_asked_and_recorded(rollout: Path) -> None:
    talk = converse(["run", FILE], [("Your choice", "p\r")], cwd=rollout.parents[1])
    assert talk.code == 0 and not talk.unanswered, talk.output
    assert "[a] apply it now" in talk.output and "[l] decide later" in talk.output
    text = rollout.read_text()
    assert text.count("<!-- CHOICE: person | by: ") == 1
    assert "*The King's Choice: Test User left it to a person to carry out*" in text
    chosen = _choice(rollout)
    assert chosen is not None and chosen["choice"] == "person" and chosen["by"] == "Test User"
    assert "The King's Choice: Test User left it to a person" in out(run("status", FILE))
    assert code(run("check", FILE)) == 0


def test_apply_now_goes_on_to_the_apply_and_its_consent(rollout: Path) -> None:
    root = rollout.parents[1]
    talk = converse(["run", FILE], [("Your choice", "a\r"), ("[y/N]", "y\r")], cwd=root)
    assert talk.code == 0 and not talk.unanswered, talk.output
    assert _choice(rollout)["choice"] == "apply"  # type: ignore[index]
    d = Discussion.load(rollout, Workspace.discover(root))
    assert [a.result for a in d.applies] == ["committed"]
    text = rollout.read_text()
    assert text.index("<!-- CHOICE: apply") < text.index("<!-- APPLY: 1")
    assert "return 3" in git(root, "show", f"{d.applies[0].branch}:app.py").stdout


def test_apply_now_leads_through_the_provider_the_run_was_given(
    rollout: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """`run --provider other`: every call of the run went to `other`, and so does the apply
    "apply now" starts (it took the default's first writer, `standin`)."""
    lead = json.dumps(f"{sys.executable} {SCRIPTS / 'lead.py'} edit")
    agreeing = script_command("deliberate.py", "agree2", str(tmp_path / "memory"))
    providers_file(
        {"standin": agreeing, "other": agreeing},
        standin={"write_command": lead},
        other={"write_command": lead},
    )
    root = rollout.parents[1]
    talk = converse(
        ["run", FILE, "--provider", "other"], [("Your choice", "a\r"), ("[y/N]", "y\r")], cwd=root
    )
    assert talk.code == 0 and not talk.unanswered, talk.output
    d = Discussion.load(rollout, Workspace.discover(root))
    assert {c.meta["provider"] for c in d.comments} == {"other"}
    assert [(a.result, a.provider) for a in d.applies] == [("committed", "other")]


@pytest.mark.parametrize("flag", [None, "--json", "--yes"])
def test_never_asked_without_a_terminal_or_with_json_or_yes(
    rollout: Path, flag: str | None
) -> None:
    if flag is None:
        r = run("run", FILE)
        assert code(r) == 0, out(r)
        assert "King's Choice" not in out(r)
    else:
        talk = converse(["run", FILE, flag], [], cwd=rollout.parents[1])
        assert talk.code == 0, talk.output
        assert "Your choice" not in talk.output
    assert "<!-- CHOICE:" not in rollout.read_text()
    assert Discussion.load(rollout, Workspace.discover()).status == "DECIDED"


def test_an_edited_choice_is_an_error_check_reports(rollout: Path) -> None:
    assert code(run("run", FILE, "--json")) == 0
    choose(Workspace.discover(), rollout, "later", "Ann")
    text = rollout.read_text()
    rollout.write_text(text.replace("<!-- CHOICE: later", "<!-- CHOICE: apply"))
    r = run("check", FILE)
    line = 1 + rollout.read_text().split("\n").index(
        next(ln for ln in rollout.read_text().split("\n") if ln.startswith("<!-- CHOICE:"))
    )
    assert code(r) == 1 and f"{line}: " in out(r) and "King's Choice" in out(r), out(r)
    assert _choice(rollout) is None


def test_a_choice_on_each_branch_is_kept_once_by_the_merge(rollout: Path) -> None:
    root = rollout.parents[1]
    assert code(run("init")) == 0
    assert code(run("run", FILE, "--json")) == 0
    commit_all(root, "decided")
    git(root, "checkout", "-q", "-b", "a")
    choose(Workspace.discover(), rollout, "later", "Ann")
    commit_all(root, "a")
    a_text = rollout.read_text()
    git(root, "checkout", "-q", "main")
    git(root, "checkout", "-q", "-b", "b")
    choose(Workspace.discover(), rollout, "person", "Bob")
    commit_all(root, "b")
    b_text = rollout.read_text()
    for into, other in (("a", "b"), ("b", "a")):
        git(root, "checkout", "-q", "-b", f"m-{into}", into)
        git(root, "merge", "-q", other, "-m", f"merge {other}")
        merged = rollout.read_text()
        for side in (a_text, b_text):
            assert set(split_blocks(side)[0]) <= set(split_blocks(merged)[0])
        assert merged.count("<!-- CHOICE: later | by: Ann") == 1
        assert merged.count("<!-- CHOICE: person | by: Bob") == 1
        check_clean(rollout)
        assert _choice(rollout) is not None


def test_a_choice_needs_a_decision(rollout: Path) -> None:
    with pytest.raises(Exception, match="follows a decision"):
        choose(Workspace.discover(), rollout, "apply", "Ann")
    assert subprocess.run(["git", "diff", "--quiet"], cwd=rollout.parents[1]).returncode == 0
