"""A repository whose history departs from its decisions (issue 38, drift): the tests of
`discussions drift`, `check --since`, the language server, the web panel and the MCP tool
build it with real git and read it back."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax.apply import render_apply

from .apply import record
from .git import commit_all, commit_files, git, git_line, run_cli

AUTH = "discussions/auth-tokens.md"
RETRY = "discussions/retry-policy.md"


@dataclass(slots=True)
class Drifted:
    """What `drifted_repository` made: the commits by role, the decisions' lines."""

    recorded: str
    """The commit that recorded both decisions."""
    departs: str
    """Changed src/auth/jwt.py, naming nothing."""
    unrelated: str
    """Changed README.md only."""
    references: str
    """Changed config/auth.yaml; its message names auth-tokens.md."""
    touches: str
    """Changed src/auth/jwt.py and the discussion file."""
    applied: str
    """The apply's commit (src/net/retry.py), merged."""
    after_apply: str
    """Changed src/net/retry.py after the apply, naming nothing."""
    auth_line: int
    retry_line: int


def decide(title: str, decision: str) -> Path:
    """A discussion with Rob's decision, closed DECIDED; its path."""
    ws = Workspace.discover()
    d = Discussion.create(title, workspace=ws)
    d.save()
    d = Discussion.load(d.path, ws)
    d.add_comment("Rob", decision)
    d.save()
    assert run_cli("close", str(d.path), "--status", "DECIDED").exit_code == 0
    return d.path


def decision_line(path: Path) -> int:
    [decision] = Discussion.load(path, Workspace.discover()).decisions
    return decision.line


def drifted_repository(repo: Path) -> Drifted:
    """In `repo` (empty, on main): a decision governing src/auth/** and config/auth.yaml, and
    an applied decision governing what its apply changed (src/net/retry.py); then commits
    that depart from them, one that names the discussion, one that touches it."""
    assert run_cli("init").exit_code == 0
    commit_files(
        repo,
        {
            "src/auth/jwt.py": "ALGORITHM = 'ES256'\n",
            "config/auth.yaml": "keys: 2\n",
            "src/net/retry.py": "DELAY = 1\n",
            "README.md": "# app\n",
        },
        "the app",
    )
    auth = decide(
        "Auth tokens",
        "DECISION: tokens are signed with ES256\nGOVERNS: src/auth/**, `config/auth.yaml`",
    )
    retry = decide("Retry policy", "DECISION: retries back off exponentially")
    assert auth.name == Path(AUTH).name and retry.name == Path(RETRY).name
    commit_all(repo, "decide auth tokens and retries")
    recorded = git_line(repo, "rev-parse", "HEAD")
    applied = _apply(repo, retry)
    commit_files(repo, {"src/auth/jwt.py": "ALGORITHM = 'HS256'\n"}, "loosen the token check")
    departs = git_line(repo, "rev-parse", "HEAD")
    commit_files(repo, {"README.md": "# app\nmore\n"}, "say more")
    unrelated = git_line(repo, "rev-parse", "HEAD")
    commit_files(
        repo,
        {"config/auth.yaml": "keys: 3\n"},
        "rotate keys\n\nAs discussions/auth-tokens.md says.",
    )
    references = git_line(repo, "rev-parse", "HEAD")
    d = Discussion.load(auth, Workspace.discover())
    d.add_comment("Ann", "Moving the signing helper; the decision stands.")
    d.save()
    commit_files(repo, {"src/auth/sign.py": "def sign(): ...\n"}, "move the signing helper")
    touches = git_line(repo, "rev-parse", "HEAD")
    commit_files(repo, {"src/net/retry.py": "DELAY = 0\n"}, "retry at once")
    after_apply = git_line(repo, "rev-parse", "HEAD")
    return Drifted(
        recorded,
        departs,
        unrelated,
        references,
        touches,
        applied,
        after_apply,
        decision_line(auth),
        decision_line(retry),
    )


def _apply(repo: Path, retry: Path) -> str:
    """The retry decision applied: a commit on its apply branch, merged, and the APPLY block
    that records it, committed. The apply's commit."""
    base = git_line(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "discussions/apply/retry-policy-1")
    commit_files(repo, {"src/net/retry.py": "DELAY = 2 ** attempt\n"}, "back off exponentially")
    commit = git_line(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--no-edit", "discussions/apply/retry-policy-1")
    d = Discussion.load(retry, Workspace.discover())
    block = record(
        branch="discussions/apply/retry-policy-1",
        base=base,
        commit=commit,
        files=(("src/net/retry.py", 1, 1),),
    )
    d.add_block(render_apply(block))
    d.save()
    commit_all(repo, "record the apply of retry-policy")
    return commit
