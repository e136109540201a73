"""Code comments that summon a council: `discussions summon` lists them in real files of a real
git repository (every comment syntax; never a secret, an ignored file or the discussions
folder), `--start` starts or continues each one's discussion with the code attached as
evidence and a link back to path:line, `watch --code` picks up a new one as it is saved, and
the pre-commit hook `init --hooks` installs lists them when `git commit` runs it. The source
files are never written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion

from ..conftest import code, out, result_of, run, write
from ..support.git import commit_all, git
from ..support.waiting import Output

SOURCES = {
    "src/app.py": "import time\n\n\ndef fetch():\n    while True:  # @discuss: should this retry forever?\n        time.sleep(1)\n",
    "src/ui.js": (
        "const a = 1; // @discuss: is a constant right here?\n"
        "/* @discuss: block comments count too */\n"
        'const s = "# @discuss: a string is no comment";\n'
    ),
    "db/schema.sql": "-- @discuss: do we need this index?\nCREATE INDEX i ON t (c);\n",
    "web/page.html": "<p>hi</p>\n<!-- @discuss: is this markup accessible? -->\n",
    ".env": "TOKEN=x  # @discuss: a secret is never read\n",
    "build/out.py": "# @discuss: an ignored file is never read\n",
}


@pytest.fixture
def project(repo: Path) -> Path:
    for rel, text in SOURCES.items():
        write(repo / rel, text)
    write(repo / ".gitignore", "build/\n")
    assert code(run("init")) == 0
    commit_all(repo, "sources")
    return repo


def _sources(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in SOURCES}


def test_summon_lists_the_comments_of_every_syntax_and_nothing_it_may_not_read(
    project: Path,
) -> None:
    r = run("summon", "--json")
    assert code(r) == 0, out(r)
    found = [(s["path"], s["line"], s["question"]) for s in result_of(r)["summons"]]  # type: ignore[union-attr]
    assert found == [
        ("db/schema.sql", 1, "do we need this index?"),
        ("src/app.py", 5, "should this retry forever?"),
        ("src/ui.js", 1, "is a constant right here?"),
        ("src/ui.js", 2, "block comments count too"),
        ("web/page.html", 2, "is this markup accessible?"),
    ]
    text = run("summon", "src")
    assert out(text).splitlines()[:3] == [
        "src/app.py:5: should this retry forever?",
        "src/ui.js:1: is a constant right here?",
        "src/ui.js:2: block comments count too",
    ]
    outside = run("summon", "../elsewhere")
    assert code(outside) != 0 and "outside the project" in out(outside)


def test_a_path_that_is_not_there_is_a_usage_error_on_the_argument(project: Path) -> None:
    r = run("summon", "scr/app.py")  # a typo: not "no comment here"
    assert code(r) == 2 and "scr/app.py" in out(r), out(r)
    assert "'PATHS'" in out(r) and "--paths" not in out(r)


def test_start_opens_a_discussion_with_the_code_and_a_link_then_continues_it(
    project: Path,
) -> None:
    before = _sources(project)
    r = run("summon", "--start", "src/app.py", "--json")
    assert code(r) == 0, out(r)
    [started] = result_of(r)["started"]  # type: ignore[misc]
    assert started["action"] == "started"
    path = project / "discussions" / "should-this-retry-forever.md"
    d = Discussion.load(path)
    assert d.title == "should this retry forever?"
    assert "[src/app.py:5](../src/app.py#L5)" in d.text
    [evidence] = d.evidence
    assert evidence.request == "read src/app.py:1-11" and evidence.status == "fulfilled"
    assert "5      while True:  # @discuss: should this retry forever?" in d.text
    again = run("summon", "--start", "src/app.py", "--json")
    assert result_of(again)["started"][0]["action"] == "unchanged"  # type: ignore[index]
    assert len(Discussion.load(path).evidence) == 1
    assert _sources(project) == before  # never written
    (project / "src/app.py").write_text("import time\n\n\n" + SOURCES["src/app.py"])
    moved = run("summon", "--start", "src/app.py", "--json")
    assert result_of(moved)["started"][0]["action"] == "continued"  # type: ignore[index]
    assert [e.request for e in Discussion.load(path).evidence] == [
        "read src/app.py:1-11",
        "read src/app.py:2-14",
    ]
    assert code(run("check", str(path))) == 0


def test_the_prefix_is_a_setting(project: Path) -> None:
    write(project / "tool.rb", "# @council: which queue?\n# @discuss: not with this prefix\n")
    with (project / "discussions.yaml").open("a") as f:
        f.write('summon:\n  prefix: "@council"\n')
    r = run("summon", "--json")
    assert [s["question"] for s in result_of(r)["summons"]] == ["which queue?"]  # type: ignore[union-attr]


def test_the_pre_commit_hook_lists_them_and_never_stops_a_commit(project: Path) -> None:
    r = run("init", "--hooks", "--json")
    assert code(r) == 0, out(r)
    step = [s for s in result_of(r)["steps"] if s["what"] == "pre-commit hook"]  # type: ignore[union-attr]
    assert step[0]["action"] == "created"
    write(project / "lib/net.go", "package net\n// @discuss: what timeout here?\n")
    git(project, "add", "lib/net.go")
    done = git(project, "commit", "-m", "net")
    said = done.stdout + done.stderr
    assert "1 code comment(s) in this commit summon a council" in said
    assert "lib/net.go:2: what timeout here?" in said
    assert "should this retry forever" not in said  # not in this commit
    assert git(project, "log", "-1", "--format=%s").stdout.strip() == "net"
    write(project / "README.md", "plain\n")
    git(project, "add", "README.md")
    quiet = git(project, "commit", "-m", "readme")
    assert "summon a council" not in quiet.stdout + quiet.stderr
    assert result_of(run("init", "--hooks", "--json"))["steps"][-1]["action"] == "unchanged"  # type: ignore[index]


def test_someone_elses_hook_is_left_alone(project: Path) -> None:
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\nexit 0\n")
    r = run("init", "--hooks", "--json")
    step = result_of(r)["steps"][-1]  # type: ignore[index]
    assert step["action"] == "skipped" and "summon --hook" in step["detail"]
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"


@pytest.mark.slow
def test_watch_code_starts_the_discussion_of_a_new_comment(project: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "discussions", "watch", "--code", "--debounce", "0.2"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    output = Output(proc.stdout)
    path = project / "discussions" / "who-owns-the-cache.md"
    try:
        output.wait_for("comments")  # "watching the code under ... for new @discuss: comments"
        write(project / "src" / "cache.py", "CACHE = {}  # @discuss: who owns the cache?\n")
        # the line is said once the discussion is written with its evidence (not the file
        # alone: it exists a moment before the line, and Ctrl-C then would cut the line off)
        output.wait_for("-> started discussions/who-owns-the-cache.md", 30)
        assert Discussion.load(path).evidence
    finally:
        proc.send_signal(signal.SIGINT)
        text = output.finish(proc, 20)
    assert proc.returncode == 0, text
    assert (
        "src/cache.py:1: who owns the cache? -> started discussions/who-owns-the-cache.md" in text
    )
    assert not (project / "discussions" / "should-this-retry-forever.md").exists()  # not new
    assert json.loads(out(run("status", str(path), "--json")))["title"] == "who owns the cache?"


def test_hooks_with_no_git_say_the_hook_was_skipped(isolated: Path) -> None:
    steps = result_of(run("init", "--no-git", "--hooks", "--json"))["steps"]  # type: ignore[index]
    assert {"what": "pre-commit hook", "action": "skipped", "detail": "--no-git"} in steps  # type: ignore[operator]


def test_hook_refuses_what_it_would_ignore(project: Path) -> None:
    for extra in (["--start"], ["--json"], ["src"]):
        r = run("summon", "--hook", *extra)
        assert code(r) == 2 and "--hook" in out(r), (extra, out(r))
