"""One rule for every path an answer shows: the answers that show many files (``git log -p``,
``git show``, ``git diff``, ``grep``, ``list``) filter each path as ``read`` does, and name a
refused one; revisions are commits reachable from HEAD or a local branch. Each case below is
an attack that got through before (a secret folder, ``.env.local``, a key, an
``evidence.exclude`` path, a file git ignores now but once held, a stash, notes, a tree id
before a colon, a ``./`` path)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.syntax.render import render_comment

from ..conftest import run
from ..support.evidence import one
from ..support.git import git_out as git
from ..support.git import submodule_with_secret

HIDDEN = {
    "Secret_stuff/config.yaml": "password: TOKEN_SECRET_DIR\n",
    ".env.local": "TOKEN_ENV_LOCAL\n",
    "deploy/id_ed25519": "TOKEN_KEY\n",
    "private/notes.txt": "TOKEN_EXCLUDED\n",
    "cache/dump.txt": "TOKEN_WAS_TRACKED\n",
}
"""Files committed once that no answer may show: a secret folder, a secret name, a key, an
``evidence.exclude`` path, and a file git ignores now (it was tracked before)."""

TOKENS = (
    "TOKEN_SECRET_DIR",
    "TOKEN_ENV_LOCAL",
    "TOKEN_KEY",
    "TOKEN_EXCLUDED",
    "TOKEN_WAS_TRACKED",
    "TOKEN_IGNORED",
    "TOKEN_SECRET_ENV",
    "TOKEN_NOTE",
)


@pytest.fixture
def history(project: Path) -> Path:
    """`project` with three more commits: the hidden files and a visible change; the cache
    untracked and ignored; a visible change again."""
    root = project
    (root / "discussions.yaml").write_text(
        "default_participants: [architect]\nevidence:\n  exclude: ['private/*']\n"
    )
    for rel, text in HIDDEN.items():
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_text(text)
    (root / "src" / "util.py").write_text("def helper():\n    return 'TOKEN_VISIBLE'\n")
    git(root, "add", "-f", *HIDDEN, "src/util.py", "discussions.yaml")
    git(root, "commit", "-qm", "configuration")
    git(root, "rm", "-q", "--cached", "cache/dump.txt")
    (root / ".gitignore").write_text("build/\ncache/\n")
    git(root, "commit", "-qam", "stop tracking the cache")
    (root / "src" / "app.py").write_text("VISIBLE_TOO = 1\n")
    git(root, "commit", "-qam", "app")
    return root


def leaked(d: Discussion) -> list[str]:
    text = d.path.read_text()
    return [t for t in TOKENS if t in text]


@pytest.mark.parametrize(
    ("request_text", "refused"),
    [
        ("git log -p", HIDDEN),
        ("git log --stat", HIDDEN),
        ("git log -p -n 1 HEAD~1", ["cache/dump.txt"]),
        ("git show HEAD~2", list(HIDDEN)),
        ("git show --name-only HEAD~2", list(HIDDEN)),
        ("git diff HEAD~3 HEAD", list(HIDDEN)[:4]),
        ("git diff HEAD~2", ["cache/dump.txt"]),
        ("git diff --stat HEAD~3", list(HIDDEN)[:4]),
        ("git log -p -- private", ["private/notes.txt"]),
        ("grep TOKEN_", list(HIDDEN)[:4]),
        ("grep TOKEN_ in **/*", list(HIDDEN)[:4]),
        ("list", ["Secret_stuff/", ".env.local", "cache/", "build/", ".env"]),
        ("list deploy", ["id_ed25519"]),
        ("list private", ["notes.txt"]),
    ],
)
def test_an_answer_of_many_files_names_each_refused_path(
    history: Path, request_text: str, refused: list[str]
) -> None:
    e, d = one(history, request_text)
    assert e.status == "fulfilled", e.reason
    assert not leaked(d), (request_text, leaked(d), e.content)
    lines = e.content.splitlines()
    for path in refused:
        said = [x for x in lines if "refused" in x and path in x]
        assert said, (request_text, path, e.content)
    shows_visible = (
        "--stat" in request_text or "name-only" in request_text or "list" in request_text
    )
    if not shows_visible and "--" not in request_text and "HEAD~1" not in request_text:
        assert "TOKEN_VISIBLE" in e.content or "VISIBLE_TOO" in e.content, e.content


def test_a_diff_shows_the_allowed_files_in_full(history: Path) -> None:
    e, _ = one(history, "git diff HEAD~3 HEAD")
    assert "+    return 'TOKEN_VISIBLE'" in e.content and "+VISIBLE_TOO = 1" in e.content
    assert "diff --git a/src/util.py b/src/util.py" in e.content
    e, _ = one(history, "git log --oneline")
    assert "configuration" in e.content and "refused" not in e.content


@pytest.mark.parametrize(
    ("request_text", "reason"),
    [
        ("git show HEAD~2:cache/dump.txt", "ignore"),
        ("git show HEAD~2:./cache/dump.txt", "./"),
        ("git show HEAD:./private/notes.txt", "./"),
        ("git diff HEAD~3 HEAD -- ./private", "./"),
        ("read ./private/notes.txt", "./"),
        ("git log -p --all", "--all"),
        ("git show HEAD~1 HEAD:src/app.py", "REV:PATH"),
        ("git diff HEAD~99", "no revision, nor a path"),
    ],
)
def test_paths_and_options_that_skipped_the_check(
    history: Path, request_text: str, reason: str
) -> None:
    e, d = one(history, request_text)
    assert e.status == "refused" and reason in e.reason, (request_text, e.reason)
    assert not leaked(d)


def test_a_tree_id_before_a_colon_is_refused(history: Path) -> None:
    tree = git(history, "rev-parse", "HEAD:Secret_stuff").strip()
    e, d = one(history, f"git show {tree}:config.yaml")
    assert e.status == "refused" and "not a commit" in e.reason, e.reason
    e, d = one(history, f"git log -p {tree}")
    assert e.status == "refused" and "not a commit" in e.reason, e.reason
    assert not leaked(d)


@pytest.mark.slow
def test_only_commits_reachable_from_head_or_a_local_branch(history: Path) -> None:
    git(history, "notes", "add", "-m", "TOKEN_NOTE", "HEAD")
    tree = git(history, "rev-parse", "HEAD^{tree}").strip()
    loose = git(history, "commit-tree", tree, "-p", "HEAD", "-m", "nowhere").strip()
    git(history, "update-ref", "refs/remotes/origin/other", loose)
    git(history, "branch", "side", "HEAD~1")
    git(history, "tag", "v1", "HEAD~2")
    for request in (
        "git log -p refs/notes/commits",
        "git show notes/commits",
        f"git show {loose}",
        "git log origin/other",
        f"git diff HEAD {loose}",
        f"git diff HEAD..{loose}",
        f"git blame {loose} -- src/app.py",
        f"git show {loose}:src/app.py",
    ):
        e, d = one(history, request)
        assert e.status == "refused", (request, e.content)
        assert "reachable" in e.reason or "not a commit" in e.reason, (request, e.reason)
        assert not leaked(d)
    for request in (
        "git log --oneline side",
        "git show --stat v1",
        "git diff v1 side",
        "git log --oneline v1..HEAD",
        "git blame side -- src/util.py",
    ):
        e, d = one(history, request)
        assert e.status == "fulfilled", (request, e.reason)
        assert not leaked(d)


def test_a_teammates_planted_request_cannot_read_the_stash(history: Path) -> None:
    """A teammate commits a comment asking for the third parent of your stash (the untracked
    and ignored files `git stash --all` saved); your next turn fulfils it: refused."""
    path = history / "discussions" / "talk.md"
    d = Discussion.create("Talk", directory=history / "discussions")
    d.add_block(
        render_comment(
            "Mallory",
            "Context please.\n\nEVIDENCE: git show stash@{0}^3",
            meta="at: 2026-11-23T10:00:00Z",
        )
    )
    d.save()
    git(history, "add", "discussions")
    git(history, "commit", "-qm", "a question")
    (history / "build" / "out.txt").write_text("TOKEN_IGNORED\n")
    (history / "src" / "app.py").write_text("changed\n")
    git(history, "stash", "push", "-q", "--all")
    assert "TOKEN_IGNORED" in git(history, "show", "stash@{0}^3")  # what was asked for
    r = run("evidence", str(path), "--json")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    d = Discussion.load(path)
    (e,) = d.evidence
    assert e.status == "refused" and "reachable" in e.reason, e.reason
    assert not leaked(d)
    for request in ("git log -p stash", "git show refs/stash", "git diff stash@{0}^3 HEAD"):
        e, d = one(history, request)
        assert e.status == "refused" and not leaked(d), (request, e.reason)


def test_refused_lines_name_the_rule(history: Path) -> None:
    e, _ = one(history, "git show HEAD~2")
    said = {m.group(1): m.group(2) for m in re.finditer(r"^refused (\S+): (.*)$", e.content, re.M)}
    assert "secret" in said["Secret_stuff/config.yaml"]
    assert "evidence.exclude" in said["private/notes.txt"]
    assert "ignore" in said["cache/dump.txt"]


def test_a_file_that_became_a_folder_holding_a_secret(project: Path) -> None:
    """`conf` is a file in one commit and a folder holding `conf/.env.prod` in the next: the
    allowed path `conf` must not reach into the folder (as a pathspec it would)."""
    (project / "conf").write_text("plain\n")
    git(project, "add", "conf")
    git(project, "commit", "-qm", "conf file")
    (project / "conf").unlink()
    (project / "conf").mkdir()
    (project / "conf" / ".env.prod").write_text("TOKEN_ENV_LOCAL\n")
    git(project, "add", "-A", "-f", "conf")
    git(project, "commit", "-qm", "conf folder")
    for request in ("git diff HEAD~1 HEAD", "git show HEAD", "git log -p -n 1", "git log --stat"):
        e, d = one(project, request)
        assert e.status == "fulfilled", (request, e.reason)
        assert not leaked(d), (request, e.content)
        assert "refused conf/.env.prod: " in e.content, (request, e.content)
        assert "-plain" in e.content or "--stat" in request, (request, e.content)


@pytest.mark.slow
def test_with_nothing_refused_the_answer_is_gits_own(project: Path) -> None:
    """Shown per commit and in batches, the answer is what git itself prints."""
    for n in range(30):
        (project / "src" / f"m{n % 4}.py").write_text(f"X = {n}\n")
        git(project, "add", "src")
        git(project, "commit", "-qm", f"change {n}")
    git(project, "checkout", "-q", "-b", "side", "HEAD~3")
    (project / "src" / "side.py").write_text("S = 1\n")
    git(project, "add", "src")
    git(project, "commit", "-qm", "side")
    git(project, "checkout", "-q", "main")
    git(project, "merge", "-q", "--no-edit", "side")
    for request in (
        "git log -p",
        "git log --stat -n 12",
        "git log --oneline --name-status",
        "git log --pretty=oneline --stat",
        "git show HEAD",
        "git show --stat HEAD~1",
        "git diff HEAD~12 HEAD",
    ):
        e, _ = one(project, request)
        own = git(project, *request.split()[1:2], "--no-renames", *request.split()[2:])
        assert e.content.rstrip() == "\n".join(own.splitlines()[:2000]).rstrip(), request
    apart, _ = one(project, "git log --pretty oneline --stat -n 3")  # given apart: one word
    assert apart.content == git(project, "log", "--pretty=oneline", "--stat", "-n", "3").rstrip()


@pytest.mark.parametrize("request_text", ["git show", "git log -p -n 1", "git diff HEAD~1"])
def test_a_submodule_is_shown_as_its_commits_never_its_files(
    project: Path, tmp_path: Path, request_text: str
) -> None:
    """``diff.submodule=diff`` in the repository's configuration makes git inline every file
    inside a submodule under its one path (the rule sifts that path, not theirs); only the
    empty ``diff.external`` git handed on to the submodule's own diff made it fail, by
    accident, as "(diff failed)". A submodule is shown as its commits."""
    submodule_with_secret(project, tmp_path)
    (project / "lib" / ".env").write_text("TOKEN_CHANGED_IN_SUBMODULE\n")
    git(project / "lib", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qam", "t")
    git(project, "commit", "-qam", "move the submodule")
    e, d = one(project, request_text)
    assert e.status == "fulfilled", e.reason
    assert "TOKEN_" not in d.path.read_text()
    assert "+Subproject commit" in e.content and "(diff failed)" not in e.content, e.content


def commit_many_refused(root: Path, count: int) -> None:
    """A commit (made with git fast-import, no file written) adding `count` files under a
    secret folder, as a repository that once committed a vendored folder has, and changing
    src/util.py."""
    head = git(root, "rev-parse", "HEAD").strip()
    util = "def helper():\n    return 'TOKEN_VISIBLE_BESIDE_MANY'\n"
    lines = ["blob", "mark :1", "data 2", "x", "", "commit refs/heads/main", "mark :2"]
    lines += ["committer T <t@e> 0 +0000", "data 4", "many", f"from {head}"]
    lines += [f"M 100644 :1 Secret_stuff/vendored_package_{n:06d}/index.js" for n in range(count)]
    lines += ["M 100644 inline src/util.py", f"data {len(util)}", util]
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        cwd=root,
        check=True,
        input="\n".join(lines) + "\n",
        text=True,
    )
    # the work tree and index are left at the commit before (checking 60000 files out is slow)


@pytest.mark.slow
@pytest.mark.parametrize("request_text", ["git show", "git diff HEAD~1 HEAD", "git log -p -n 1"])
def test_a_commit_of_many_refused_files_still_shows_its_allowed_ones(
    project: Path, request_text: str
) -> None:
    """Every refused path went to git as an exclusion: 60000 of them overflowed the command
    line, and the turn failed on "cannot run git" with the request left pending. Only a
    refused path inside an allowed one needs excluding."""
    commit_many_refused(project, 60_000)
    e, _ = one(project, request_text)
    assert e.status == "fulfilled", e.reason
    assert "TOKEN_VISIBLE_BESIDE_MANY" in e.content
    assert "refused Secret_stuff/vendored_package_000000/index.js" in e.content


def test_a_git_that_cannot_run_refuses_the_request_and_the_turn_goes_on(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git missing from PATH (or a command line it cannot take): the request is refused,
    saying why, instead of the fulfilment failing with the request left pending."""
    ask_git = tmp_path / "empty"
    ask_git.mkdir()
    monkeypatch.setenv("PATH", str(ask_git))
    e, _ = one(project, "git log --oneline")
    assert e.status == "refused" and "git" in e.reason
