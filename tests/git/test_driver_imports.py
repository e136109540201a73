"""What the merge driver loads for the usual merge (two sides that appended comments, some with
code blocks): git starts it once per merged file, so each module is paid on every merge. The
parser, the code-block scanner and `unicodedata` are for other merges (an engine block's
name in a new block, a new warning to check, a file to name)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from discussions.syntax.render import analyse_tail, join_blocks, render_comment, render_header

LOADED_ONLY_WHEN_NEEDED = (
    "discussions.syntax.parse",
    "discussions.syntax.code",
    "unicodedata",
    "collections.abc",
)


def _file(*names: str) -> str:
    text = render_header([("Title", "T"), ("Phase", "initial_feedback"), ("Status", "OPEN")])
    text += "\n# T\n"
    blocks = [
        render_comment(
            name,
            f"A thought from {name}:\n\n```python\nretry()\n```\n\n- one\n- two",
            meta=f"at: 2026-11-0{i + 1}T10:00:00Z",
        )
        for i, name in enumerate(names)
    ]
    return text + join_blocks(analyse_tail(text, at_file_start=True), blocks)


def test_appended_comments_merge_without_the_parser(tmp_path: Path) -> None:
    (tmp_path / "base.md").write_text(_file("Ann", "Bob"), encoding="utf-8")
    (tmp_path / "ours.md").write_text(_file("Ann", "Bob", "Rob"), encoding="utf-8")
    (tmp_path / "theirs.md").write_text(_file("Ann", "Bob", "Zoë", "Kim"), encoding="utf-8")
    probe = (
        "import sys\n"
        "from discussions.git.driver import driver_main\n"
        "status = driver_main(['base.md', 'ours.md', 'theirs.md'])\n"
        f"print(status, *[m for m in {LOADED_ONLY_WHEN_NEEDED!r} if m in sys.modules])\n"
    )
    r = subprocess.run(
        [sys.executable, "-P", "-c", probe], capture_output=True, text=True, cwd=tmp_path
    )
    assert r.stdout.split() == ["0"], r.stdout + r.stderr
    merged = (tmp_path / "ours.md").read_text(encoding="utf-8")
    assert all(f"Name: {n}" in merged for n in ("Ann", "Bob", "Rob", "Zoë", "Kim"))
