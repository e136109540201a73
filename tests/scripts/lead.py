"""A fake write-mode CLI: reads the hand-off on stdin (or as its last argument) and edits
files in its working directory as MODE says.

    lead.py MODE [PIDFILE]

edit      changes app.py, adds notes/new.txt, deletes old.txt; prints what it did
nothing   prints a line and changes nothing
fail      changes app.py, then exits with status 3
hang      starts a child that escapes into a session of its own (pid in PIDFILE), then hangs
outside   changes app.py here and in the user's working tree (three folders up: the worktree
          is .git/discussions-apply/SLUG), then exits 0
hook      changes app.py and installs a hook in the repository's git folder (two folders up)
commit    changes app.py and commits it itself, as someone else
prompt    writes the prompt it was given to prompt.txt
"""

import os
import subprocess
import sys
import time
from pathlib import Path

mode = sys.argv[1]
prompt = sys.stdin.read() if mode != "argument" else sys.argv[-1]
here = Path.cwd()


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
    (here / ".." / ".." / ".." / "app.py").write_text("tampered\n", encoding="utf-8")
elif mode == "hook":
    edit()
    hook = here / ".." / ".." / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\necho gotcha\n", encoding="utf-8")
elif mode == "commit":
    edit()
    env = {**os.environ, "GIT_AUTHOR_NAME": "Robot", "GIT_AUTHOR_EMAIL": "robot@example.com",
           "GIT_COMMITTER_NAME": "Robot", "GIT_COMMITTER_EMAIL": "robot@example.com"}
    subprocess.run(["git", "add", "-A"], check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "my own commit"], check=True, env=env)
elif mode in ("prompt", "argument"):
    (here / "prompt.txt").write_text(prompt, encoding="utf-8")
