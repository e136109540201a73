"""The documentation loop: a leader drafts, the council votes, blockers come back, the leader
revises; all of it in the file, resumable from it (`engine.council.documentation`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion

from ..conftest import code, out, result_of, run, write


def prompts(tmp_path: Path, kind: str) -> list[str]:
    folder = tmp_path / "memory" / "prompts"
    return [p.read_text("utf-8") for p in sorted(folder.glob(f"*-{kind}.txt"))]


@pytest.mark.slow
def test_a_loop_ends_approved_after_one_revision(loop, isolated: Path, tmp_path: Path) -> None:
    path = loop({"voters": "once"})
    r = run("draft", "plan.md", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert (res["stage"], res["version"]) == ("approved", 2)
    doc = (isolated / "docs" / "out.md").read_text("utf-8")
    assert "Version 2 by architect." in doc
    assert "resolved: AI-Security: the draft lacks a rollback plan (asked by security)" in doc
    # the blockers reached the leader's revision prompt
    (revise,) = prompts(tmp_path, "architect-revise")
    assert "AI-Pragmatist: the draft lacks a rollback plan (asked by pragmatist)" in revise
    d = Discussion.load(path)
    assert [x.number for x in d.drafts] == [1, 2] and all(x.intact for x in d.drafts)
    assert d.status == "APPROVED"
    text = path.read_text("utf-8")
    assert text.count("<!-- DRAFT: ") == 2 and "*Draft 2 of the document, by AI-Architect*" in text
    assert text.count("CONCERN: the draft lacks a rollback plan") == 2
    assert d.comments[-1].author == "AI-Architect" and "Closing summary" in d.comments[-1].body
    assert code(run("check", "plan.md")) == 0
    # finished: running it again asks nobody and writes nothing
    before = path.read_text("utf-8")
    again = result_of(run("draft", "plan.md", "--json"))
    assert again["stage"] == "approved" and again["asked"] == []
    assert path.read_text("utf-8") == before
    assert "APPROVED" in out(run("status", "plan.md"))


def test_a_loop_ends_unapproved_with_its_blockers(loop, isolated: Path) -> None:
    path = loop({"voters": "always"}, revisions=1)
    r = run("draft", "plan.md")
    assert code(r) == 0, out(r)
    assert "Documentation: unapproved at draft 2." in out(r)
    assert not (isolated / "docs" / "out.md").exists()
    kept = (path.parent / "plan.doc.unapproved.md").read_text("utf-8")
    assert "Version 2 by architect." in kept
    assert "## Open blockers" in kept
    assert "- AI-Security: the draft lacks a rollback plan (asked by security)" in kept
    d = Discussion.load(path)
    assert d.status == "UNAPPROVED" and len(d.drafts) == 2
    assert "Status: UNAPPROVED" in out(run("status", "plan.md")) or "UNAPPROVED" in out(
        run("status", "plan.md")
    )


def test_an_edited_draft_fails_check(loop) -> None:
    path = loop({"voters": "ready"})
    assert code(run("draft", "plan.md")) == 0
    text = path.read_text("utf-8")
    path.write_text(text.replace("x = 1", "x = 2", 1), encoding="utf-8")
    r = run("check", "plan.md")
    assert code(r) != 0 and "does not match the digest" in out(r)


def test_an_existing_document_is_kept_without_force(loop, isolated: Path) -> None:
    loop({"voters": "ready"})
    write(isolated / "docs" / "out.md", "mine\n")
    r = run("draft", "plan.md")
    assert code(r) == 1 and "--force" in out(r)
    assert (isolated / "docs" / "out.md").read_text("utf-8") == "mine\n"
    r = run("draft", "plan.md", "--force")
    assert code(r) == 0, out(r)
    assert "Version 1 by architect." in (isolated / "docs" / "out.md").read_text("utf-8")


@pytest.mark.slow
def test_a_killed_loop_resumes_from_the_file(loop, isolated: Path, tmp_path: Path) -> None:
    path = loop({"voters": "once", "kill": "revise"})
    cmd = [sys.executable, "-m", "discussions", "draft", "plan.md"]
    killed = subprocess.run(cmd, cwd=isolated, env=os.environ, capture_output=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    d = Discussion.load(path)
    assert [x.number for x in d.drafts] == [1]  # the votes on it are in the file
    assert len([c for c in d.comments if c.vote == "CHANGES"]) == 2
    done = subprocess.run(cmd, cwd=isolated, env=os.environ, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    d = Discussion.load(path)
    assert [x.number for x in d.drafts] == [1, 2] and d.status == "APPROVED"
    assert len(prompts(tmp_path, "architect-draft")) == 1  # draft 1 was not asked for again
    assert len(prompts(tmp_path, "security-vote")) == 2  # once per draft


def test_run_starts_the_loop_at_the_decision(loop, isolated: Path) -> None:
    path = loop({"voters": "ready"}, decided=False)
    r = run("run", "plan.md", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] == "consensus"
    assert res["documentation"]["stage"] == "approved"
    assert (isolated / "docs" / "out.md").exists()
    assert Discussion.load(path).status == "APPROVED"


def test_a_draft_written_meanwhile_is_not_written_twice(loop, isolated: Path) -> None:
    path = isolated / "discussions" / "plan.md"
    loop({"voters": "ready", "race": str(path)})
    r = run("draft", "plan.md", "--json")
    assert code(r) == 0, out(r)
    d = Discussion.load(path)
    assert [(x.number, x.by) for x in d.drafts] == [(1, "AI-Other")]
    assert (isolated / "docs" / "out.md").read_text("utf-8") == "# Written meanwhile\n"


@pytest.mark.parametrize("where", ["ABSOLUTE", "../outside.md", ".git/hooks/post-merge"])
def test_a_template_cannot_send_the_document_out_of_the_project(
    loop, isolated: Path, tmp_path: Path, where: str
) -> None:
    """A template comes with a clone like any project file: its output path stays inside the
    project (no absolute path, no `..` out, nothing under `.git`)."""
    loop({"voters": "ready"})
    elsewhere = tmp_path / "elsewhere" / "doc.md"
    where = str(elsewhere) if where == "ABSOLUTE" else where
    template = (isolated / "templates" / "docs.yaml").read_text("utf-8")
    write(isolated / "templates" / "docs.yaml", template.replace("docs/out.md", where))
    r = run("draft", "plan.md")
    assert code(r) != 0 and "output.path" in out(r), out(r)
    assert not elsewhere.exists()
    assert not (isolated.parent / "outside.md").exists()
    assert not (isolated / ".git" / "hooks" / "post-merge").exists()
    assert "DRAFT:" not in (isolated / "discussions" / "plan.md").read_text("utf-8")


def _aim(isolated: Path, where: str) -> None:
    """The docs template's output.path set to `where`."""
    template = (isolated / "templates" / "docs.yaml").read_text("utf-8")
    write(isolated / "templates" / "docs.yaml", template.replace("docs/out.md", where))


def _nothing_asked(isolated: Path, tmp_path: Path) -> None:
    """No AI was called (the stand-in saves every prompt) and no draft was written."""
    assert not (tmp_path / "memory" / "prompts").exists()
    assert "DRAFT:" not in (isolated / "discussions" / "plan.md").read_text("utf-8")


@pytest.mark.parametrize(
    "where",
    [
        "conftest.py",  # pytest runs it
        "tests/test_doc.py",
        "src/app/module.py",
        "pyproject.toml",
        "discussions.yaml",
        "templates/docs.yaml",
        "docs/notes.txt",
        "Makefile",
        ".github/workflows/doc.md",
        ".github/copilot-instructions.md",
        "CLAUDE.md",
        "docs/AGENTS.md",
        "GEMINI.md",
        "docs/AGENTS.override.md",  # codex reads it before AGENTS.md, in every folder
        "CONFTEST.PY",
        "discussions/plan.md",  # the discussion itself
    ],
)
def test_the_document_goes_only_where_a_documentation_file_belongs(
    loop, isolated: Path, tmp_path: Path, where: str
) -> None:
    """`output.path: conftest.py` put the AI's draft where pytest runs it: a template may name
    a markdown file of the project's documentation only, and a bad one is refused before any
    AI is asked."""
    loop({"voters": "ready"})
    before = (isolated / where).read_bytes() if (isolated / where).exists() else None
    _aim(isolated, where)
    r = run("draft", "plan.md")
    assert code(r) == 1 and "output.path" in out(r), out(r)
    _nothing_asked(isolated, tmp_path)
    after = (isolated / where).read_bytes() if (isolated / where).exists() else None
    assert after == before or where == "templates/docs.yaml"


@pytest.mark.parametrize("where", ["docs/out.md", "docs/Decision.markdown", "README.md"])
def test_a_markdown_document_in_the_project_is_written(loop, isolated: Path, where: str) -> None:
    loop({"voters": "ready"})
    _aim(isolated, where)
    r = run("draft", "plan.md", "--force")
    assert code(r) == 0, out(r)
    assert "Version 1 by architect." in (isolated / where).read_text("utf-8")


@pytest.mark.parametrize("link", ["code", "outside", "folder"])
def test_a_link_cannot_carry_the_document_elsewhere(
    loop, isolated: Path, tmp_path: Path, link: str
) -> None:
    """docs/out.md a symbolic link to code in the project or to a markdown file outside it,
    or docs/ a link to a folder outside: the document's real place is what is checked."""
    loop({"voters": "ready"})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    write(isolated / "conftest.py", "# the project's own\n")
    (isolated / "docs").mkdir(exist_ok=True)
    if link == "folder":
        (isolated / "docs").rmdir()
        (isolated / "docs").symlink_to(outside, target_is_directory=True)
    else:
        target = isolated / "conftest.py" if link == "code" else outside / "out.md"
        (isolated / "docs" / "out.md").symlink_to(target)
    r = run("draft", "plan.md", "--force")
    assert code(r) == 1 and "output.path" in out(r), out(r)
    _nothing_asked(isolated, tmp_path)
    assert (isolated / "conftest.py").read_text("utf-8") == "# the project's own\n"
    assert list(outside.iterdir()) == []


def test_a_refused_output_path_is_a_json_error_and_run_asks_nobody(
    loop, isolated: Path, tmp_path: Path
) -> None:
    loop({"voters": "ready"})
    _aim(isolated, "conftest.py")
    r = run("draft", "plan.md", "--json")
    assert code(r) == 1
    error = result_of(r)["error"]
    assert isinstance(error, str) and "output.path" in error
    r = run("run", "plan.md")
    assert code(r) == 1 and "output.path" in out(r), out(r)
    _nothing_asked(isolated, tmp_path)
    assert not (isolated / "conftest.py").exists()


def test_a_reviewer_sees_the_draft_in_a_long_discussion(loop, tmp_path: Path) -> None:
    """More comments than `recent_comments`: the draft under review is still in every voter's
    prompt (it was said to "stand at the end of the discussion", and compaction dropped it)."""
    loop({"voters": "ready"})
    for n in range(12):
        said = f"Point {n}: " + ("@security @pragmatist a question?" if n < 4 else "a remark.")
        assert code(run("comment", "plan.md", said, "--author", "Rob")) == 0
    r = run("draft", "plan.md", "--json")
    assert code(r) == 0, out(r)
    votes = prompts(tmp_path, "vote")
    assert len(votes) == 2
    for prompt in votes:
        assert "Version 1 by architect." in prompt and "x = 1" in prompt


def test_a_draft_too_long_for_the_prompt_is_cut_and_the_cut_is_stated(
    loop, isolated: Path, tmp_path: Path
) -> None:
    loop({"voters": "ready"})
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: standin\n  detect: false\ncontext:\n  max_chars: 2000\n",
    )
    path = isolated / "discussions" / "plan.md"
    from discussions.model import storage
    from discussions.syntax.drafts import render_draft

    long = "# The decision\n\n" + "\n".join(f"Line {n} of a long document." for n in range(400))
    storage.append(path, [render_draft(1, "AI-Architect", long, "2026-11-23T10:00:00Z")])
    r = run("draft", "plan.md", "--json")
    assert code(r) == 0, out(r)
    for prompt in prompts(tmp_path, "vote"):
        assert "Line 0 of a long document." in prompt
        assert "Line 399 of a long document." not in prompt
        assert "draft 1 is cut" in prompt.lower()


def test_draft_refuses_an_undecided_discussion_before_any_call(
    loop, isolated: Path, tmp_path: Path
) -> None:
    """`draft` on an open discussion told the leader "the discussion has reached its
    decision", made its calls and marked it UNAPPROVED: refused as `apply` refuses it."""
    path = loop({"voters": "always"}, decided=False)
    before = path.read_bytes()
    r = run("draft", "plan.md")
    assert code(r) == 1, out(r)
    assert "not decided" in out(r) and "--force --reason" in out(r)
    assert path.read_bytes() == before
    _nothing_asked(isolated, tmp_path)
    r = run("draft", "plan.md", "--json")
    assert code(r) == 1 and "not decided" in str(result_of(r)["error"])
    r = run("draft", "plan.md", "--reason", "why not")
    assert code(r) == 2 and path.read_bytes() == before


def test_draft_force_with_a_reason_documents_an_undecided_discussion_and_records_why(
    loop, isolated: Path, tmp_path: Path
) -> None:
    path = loop({"voters": "ready"}, decided=False)
    r = run("draft", "plan.md", "--force", "--reason", "a write-up before the vote", "--json")
    assert code(r) == 0, out(r)
    d = Discussion.load(path)
    assert [(x.number, x.forced) for x in d.drafts] == [(1, "a write-up before the vote")]
    assert "without a decision (--force): a write-up before the vote" in path.read_text("utf-8")
    assert d.status == "APPROVED" and code(run("check", "plan.md")) == 0
    (asked,) = prompts(tmp_path, "architect-draft")
    assert "has not reached a decision" in asked and "reached its decision" not in asked


def test_draft_resumes_a_loop_under_way_whatever_the_status(loop, isolated: Path) -> None:
    """The rule is for starting a loop: one that ended UNAPPROVED (not a decision) is done,
    and running `draft` again says so rather than refusing."""
    loop({"voters": "always"}, revisions=0)
    assert code(run("draft", "plan.md")) == 0
    again = run("draft", "plan.md", "--json")
    assert code(again) == 0, out(again)
    assert result_of(again)["stage"] == "unapproved" and result_of(again)["asked"] == []


def test_the_draft_under_review_is_in_a_prompt_once(loop, tmp_path: Path) -> None:
    """The draft is in the voters' and the reviser's task; the discussion part shows its
    block as one line, so a prompt does not carry the document twice."""
    loop({"voters": "once"})
    r = run("draft", "plan.md", "--json")
    assert code(r) == 0, out(r)
    votes, revise = prompts(tmp_path, "vote"), prompts(tmp_path, "architect-revise")
    assert len(votes) == 4 and len(revise) == 1
    for prompt in [*votes, *revise]:
        number = re.search(r"(?:wrote|approve) draft (\d)", prompt).group(1)  # type: ignore[union-attr]
        assert prompt.count(f"Version {number} by architect.") == 1, prompt
        assert f"[Draft {number}" in prompt and "quoted under Your task" in prompt


def test_the_loop_asks_through_any_asker(isolated: Path) -> None:
    """`draft_document` takes an asker, not a runner: a recorder that answers each question
    sees the leader asked for a draft, the voters for their votes, the leader for a summary."""
    from discussions.engine.council.documentation import draft_document
    from discussions.settings.workspace import Workspace

    from ..support.asking import RecordingAsker
    from ..support.documentation import TEMPLATE

    write(isolated / "templates" / "docs.yaml", TEMPLATE.format(revisions=1))
    assert code(run("new", "Plan", "--template", "docs")) == 0
    assert code(run("close", "plan.md", "--status", "DECIDED")) == 0
    path = isolated / "discussions" / "plan.md"

    def answer(alias: str, prompt: str) -> str:
        if "You are the leader of its documentation" in prompt:
            return "# Plan\n\nRetry at most three times."
        if "Vote whether it is ready" in prompt:
            return '{"comment": "Clear enough.", "vote": "READY"}'
        return '{"comment": "Closing summary: approved at draft 1."}'

    asker = RecordingAsker(Workspace.discover(), answer)
    outcome = draft_document(asker, Discussion.load(path))
    assert (outcome.stage, outcome.version) == ("approved", 1)
    assert asker.checked == [["architect", "security", "pragmatist"]]
    who = [a.alias for a in asker.asked]
    assert who[0] == "architect" and "You are the leader" in asker.asked[0].prompt
    assert sorted(who[1:3]) == ["pragmatist", "security"]
    assert all("Retry at most three times." in a.prompt for a in asker.asked[1:3])
    assert who[3:] == ["architect"] and "has ended" in asker.asked[3].prompt
    doc = (isolated / "docs" / "out.md").read_text("utf-8")
    assert "Retry at most three times." in doc
    assert code(run("check", "plan.md")) == 0, out(run("check", "plan.md"))
