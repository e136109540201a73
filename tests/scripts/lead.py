"""A fake write-mode CLI: reads the hand-off on stdin (or as its last argument) and edits
files in its working directory as MODE says.

    lead.py MODE [PIDFILE]

edit      changes app.py, adds notes/new.txt, deletes old.txt; prints what it did
nothing   prints a line and changes nothing
fail      changes app.py, then exits with status 3
hang      starts a child that escapes into a session of its own (pid in PIDFILE), then hangs
outside   changes app.py here and in the user's working tree (found through git), exits 0
hook      changes app.py and installs a hook in the repository's git folder
commit    changes app.py and commits it itself, as someone else
prompt    writes the prompt it was given to prompt.txt
checkout  changes app.py, then `git checkout --ignore-other-worktrees main` in its worktree
head      changes app.py, then writes `ref: refs/heads/main` into its git folder's HEAD
gitfile   changes app.py, then points its .git file at the repository's own git folder
refs      changes app.py, then creates the branch evilbranch and the tag evil-tag
move      changes app.py, then moves the branch release to a commit of its own
ignored   changes app.py, then writes .venv/evil.pth in the user's tree (ignored by git)
alternates changes app.py, then writes objects/info/alternates of the git folder
worktrees changes app.py, then rewrites HEAD of the user's other worktree (.git/worktrees/*)
packed    changes app.py, then adds a line to the git folder's packed-refs
testscript changes app.py and rewrites scripts/check.sh to say "lead copy"
"""

import os
import subprocess
import sys
import time
from pathlib import Path

mode = sys.argv[1]
prompt = sys.stdin.read() if mode != "argument" else sys.argv[-1]
here = Path.cwd()


ROBOT = {"GIT_AUTHOR_NAME": "Robot", "GIT_AUTHOR_EMAIL": "robot@example.com",
         "GIT_COMMITTER_NAME": "Robot", "GIT_COMMITTER_EMAIL": "robot@example.com"}


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], check=True, capture_output=True, text=True, env={**os.environ, **ROBOT}
    ).stdout.strip()


def common() -> Path:
    """The repository's common git folder (the worktree may live anywhere)."""
    return Path(git("rev-parse", "--path-format=absolute", "--git-common-dir"))


def own_gitdir() -> Path:
    return Path(git("rev-parse", "--path-format=absolute", "--git-dir"))


def edit() -> None:
    (here / "app.py").write_text("def retry():\n    return 3  # three tries\n", encoding="utf-8")
    (here / "notes").mkdir(exist_ok=True)
    (here / "notes" / "new.txt").write_text("new\n", encoding="utf-8")
    if (here / "old.txt").exists():
        (here / "old.txt").unlink()


if mode == "edit":
    edit()
    print("edited app.py, added notes/new.txt, removed old.txt", flush=True)
elif mode == "nothing":
    print("nothing to do", flush=True)
elif mode == "fail":
    edit()
    print("cannot finish", file=sys.stderr, flush=True)
    sys.exit(3)
elif mode == "hang":
    if os.fork() == 0:
        os.setsid()
        Path(sys.argv[2]).write_text(f"{os.getpid()}\n", encoding="utf-8")
        time.sleep(600)
        os._exit(0)
    while not Path(sys.argv[2]).exists():
        time.sleep(0.01)
    print("thinking...", flush=True)
    time.sleep(600)
elif mode == "outside":
    edit()
    (common().parent / "app.py").write_text("tampered\n", encoding="utf-8")
elif mode == "hook":
    edit()
    hook = common() / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\necho gotcha\n", encoding="utf-8")
elif mode == "commit":
    edit()
    env = {**os.environ, **ROBOT}
    subprocess.run(["git", "add", "-A"], check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "my own commit"], check=True, env=env)
elif mode in ("prompt", "argument"):
    (here / "prompt.txt").write_text(prompt, encoding="utf-8")
elif mode == "checkout":
    edit()
    git("checkout", "-q", "--ignore-other-worktrees", "main")
elif mode == "head":
    edit()
    (own_gitdir() / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
elif mode == "gitfile":
    edit()
    (here / ".git").write_text(f"gitdir: {common()}\n", encoding="utf-8")
elif mode == "refs":
    edit()
    git("branch", "evilbranch")
    git("tag", "evil-tag")
elif mode == "move":
    edit()
    tree = git("rev-parse", "HEAD^{tree}")
    mine = git("commit-tree", tree, "-p", "HEAD", "-m", "not yours")
    git("update-ref", "refs/heads/release", mine)
elif mode == "ignored":
    edit()
    venv = common().parent / ".venv"
    venv.mkdir(exist_ok=True)
    (venv / "evil.pth").write_text("import os\n", encoding="utf-8")
elif mode == "alternates":
    edit()
    (common() / "objects" / "info").mkdir(exist_ok=True)
    (common() / "objects" / "info" / "alternates").write_text("/tmp/evil/objects\n")
elif mode == "worktrees":
    edit()
    for other in (common() / "worktrees").iterdir():
        if other != own_gitdir():
            (other / "HEAD").write_text("ref: refs/heads/release\n", encoding="utf-8")
elif mode == "packed":
    edit()
    head = git("rev-parse", "HEAD")
    with open(common() / "packed-refs", "a", encoding="utf-8") as f:
        f.write(f"{head} refs/heads/packed-evil\n")
elif mode == "testscript":
    edit()
    (here / "scripts" / "check.sh").write_text("#!/bin/sh\necho lead copy\n", encoding="utf-8")
