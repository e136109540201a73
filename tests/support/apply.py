"""Applying a decision: a decided discussion in a git repository and the fake write-mode CLI
tests/scripts/lead.py as its lead (the apply command's tests and the tests of what a lead's
provider sees); APPLY and APPLY-REVIEW records and a discussion holding some."""

from __future__ import annotations

import sys
from pathlib import Path

from click.testing import CliRunner, Result
from hypothesis import strategies as st

from discussions.cli import cli
from discussions.derive.rules import derive
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax.apply import (
    RESULTS,
    TEST_RESULTS,
    ApplyRecord,
    ApplyReviewRecord,
    render_apply,
    render_apply_review,
)
from discussions.syntax.render import analyse_tail, join_blocks, render_header

from ..conftest import SCRIPTS, sign_ai_comments, write, write_signed
from .git import commit_all, git, init_repository

DISCUSSION = """
<!-- DISCUSSION -->
<!-- Title: Retry budget -->
<!-- Phase: initial_feedback -->
<!-- Status: {status} -->
<!-- Participants: lead, reader -->

# Retry budget

## Context
Calls to the catalogue fail now and then; the public API must not change.

---

Name: AI-Lead
We should implement three tries in the retry function.

DECISION: implement three tries in retry().
{extra}
VOTE: READY

---
"""

"""A decided discussion whose lead can write (`retry.md`): `discussion` fills it in."""

RETRY_POLICY = sign_ai_comments(
    """\
<!-- DISCUSSION -->
<!-- Title: Retry policy -->
<!-- Phase: consensus_vote -->
<!-- Status: DECIDED -->
<!-- Template: feature -->
<!-- Participants: architect, security, pragmatist -->

# Retry policy

## Context

The client retries forever.

---

Name: AI-Architect
Retry a bounded number of times.

DECISION: retry at most 3 times, with a constant RETRIES in app.py

VOTE: READY

---

Name: AI-Security
Agreed.

VOTE: READY

---

Name: AI-Pragmatist
Agreed.

VOTE: READY
"""
)
"""A decided discussion about app.py's endless retries: `decided_repository` commits it."""


def invoke(*args: str, input: str | None = None) -> Result:
    """The CLI in process (exceptions become the exit code)."""
    return CliRunner().invoke(cli, list(args), input=input)


def use_lead(userdir: Path, mode: str) -> None:
    """The user's providers: `fakewrite` (tests/scripts/lead.py MODE writes) and `readonly`."""
    lead = f"{sys.executable} {SCRIPTS / 'lead.py'} {mode}"
    write(
        userdir / "providers.yaml",
        f"""
        providers:
          - name: fakewrite
            command: {sys.executable} -c "print('reads only')"
            write_command: {lead}
          - name: readonly
            command: {sys.executable} -c "print('reads only')"
        """,
    )


def discussion(root: Path, status: str = "DECIDED", extra: str = "") -> Path:
    """discussions/retry.md in `root`: DISCUSSION with this status and extra lines."""
    text = DISCUSSION.format(status=status, extra=extra)
    return write_signed(root / "discussions" / "retry.md", text)


def make_apply_project(root: Path, userdir: Path) -> Path:
    """A git project with a decided discussion, a lead whose provider can write and a reader
    whose provider cannot; committed, then made dirty. Needs a git identity."""
    use_lead(userdir, "edit")
    for alias, role, does, capabilities, hint in (
        ("lead", "Implementer", "Writes the code.", "logic, testing", "fakewrite"),
        ("reader", "Reader", "Reads the code.", "docs", "readonly"),
    ):
        write(
            root / "participants" / f"{alias}.yaml",
            f"name: AI-{alias.title()}\nalias: {alias}\nrole: {role}\npersonality: {does}\n"
            f"capabilities: [{capabilities}]\nprovider_hint: {hint}\n",
        )
    write(root / "discussions.yaml", "providers:\n  fallback: []\n  detect: false\n")
    discussion(root)
    (root / "app.py").write_text("def retry():\n    return 1\n")
    (root / "old.txt").write_text("old\n")
    init_repository(root)
    commit_all(root, "first")
    (root / "app.py").write_text("def retry():\n    return 2  # the user's unsaved work\n")
    (root / "scratch.txt").write_text("untracked\n")
    return root


def decided_repository(folder: Path) -> Path:
    """`folder` made a git repository (one commit, as Test User) holding RETRY_POLICY and the
    app it is about; the discussion's path."""
    path = write(folder / "discussions" / "retry-policy.md", RETRY_POLICY)
    (folder / "app.py").write_text("def fetch():\n    while True:\n        pass\n")
    init_repository(folder)
    git(folder, "config", "user.name", "Test User")
    git(folder, "config", "user.email", "test@example.com")
    commit_all(folder, "first")
    return path


# -- APPLY and APPLY-REVIEW records (the block format's tests and those reading them) ------


HEADER = render_header([("Title", "Apply"), ("Phase", "initial_feedback"), ("Status", "DECIDED")])


SHA = "4b8e" * 10


# One line, as marker fields hold them (white space collapsed); no control characters.
line_text = (
    st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=30)
    .map(lambda s: " ".join(s.split()))
    .filter(bool)
)


path_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)


count = st.one_of(st.none(), st.integers(0, 10**6))


BASE = HEADER + "\n# Apply\n\nShip it.\n"


AT = "2026-11-24T10:00:00Z"


def record(**kw: object) -> ApplyRecord:
    values: dict[str, object] = {
        "number": 1,
        "lead": "AI-Architect",
        "provider": "claude-write",
        "branch": "discussions/apply/apply-1",
        "base": SHA,
        "commit": "9c1d" * 10,
        "consented_by": "Rob <rob@example.com>",
        "result": "committed",
        "files": (("src/app.py", 3, 1), ("logo.png", None, None)),
        "tests": "passed",
        "test_command": "pytest -q",
        "duration": 41.25,
        "at": AT,
        "output": "3 passed in 0.1s",
    }
    values.update(kw)
    return ApplyRecord(**values)  # type: ignore[arg-type]


def review(**kw: object) -> ApplyReviewRecord:
    values: dict[str, object] = {
        "apply": 1,
        "revision": 0,
        "result": "changes",
        "commit": "9c1d" * 10,
        "yes": ("AI-A",),
        "no": ("AI-B",),
        "blockers": ("the migration is missing",),
        "at": AT,
    }
    values.update(kw)
    return ApplyReviewRecord(**values)  # type: ignore[arg-type]


def append(text: str, *blocks: str) -> str:
    return text + join_blocks(analyse_tail(text, at_file_start=True), list(blocks))


def state(text: str):  # noqa: ANN201
    return derive(text, Workspace.discover(), "x")


@st.composite
def apply_records(draw: st.DrawFn) -> ApplyRecord:
    stats = st.tuples(path_text, count, count).map(
        lambda t: (t[0], t[1], t[2]) if (t[1] is None) == (t[2] is None) else (t[0], None, None)
    )
    return ApplyRecord(
        number=draw(st.integers(1, 10**6)),
        lead=draw(line_text),
        provider=draw(line_text),
        branch=draw(line_text),
        base=draw(line_text),
        commit=draw(st.one_of(st.none(), line_text)),
        consented_by=draw(line_text),
        result=draw(st.sampled_from(RESULTS)),
        files=tuple(draw(st.lists(stats, max_size=5))),
        tests=draw(st.sampled_from(TEST_RESULTS)),
        test_command=draw(st.one_of(st.just(""), line_text)),
        duration=draw(st.floats(0, 1e6, allow_nan=False)),
        reason=draw(st.one_of(st.just(""), line_text)),
        forced=draw(st.one_of(st.just(""), line_text)),
        acknowledged=draw(st.integers(0, 50)),
        worktree=draw(st.one_of(st.just(""), line_text)),
        at=draw(line_text),
        output=draw(st.text(max_size=200)),
    )


def decided(folder: Path, status: str = "DECIDED") -> Discussion:
    ws = Workspace.discover()
    d = Discussion.create("Accounts", directory=folder, workspace=ws)
    d.save()
    d = Discussion.load(d.path, ws)
    d.add_comment("Rob", "DECISION: accounts use email logins")
    d.save()
    d.add_block(render_apply(record(number=1, commit="a" * 40)))
    d.add_block(render_apply_review(review(apply=1, commit="b" * 40, result="changes")))
    d.add_block(
        render_apply_review(
            review(apply=1, commit="c" * 40, result="implemented", revision=1, blockers=())
        )
    )
    d.add_block(render_apply(record(number=2, result="failed", commit=None, tests="not run")))
    d.save()
    d.add_comment("Ann", "DECISION: and passwords are hashed")
    d.save()
    d = Discussion.load(d.path, ws)
    if status != "OPEN":
        d.set_status(status)
        d.save()
    return Discussion.load(d.path, ws)
