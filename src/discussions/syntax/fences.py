"""Code fences for text the engine embeds in a discussion: a fence its own content cannot close,
a raw diff recognised and fenced so it renders as code on GitHub, and the fence that closes a
code block left open at the end of a text."""

from __future__ import annotations

import re

_BACKTICKS = re.compile(r"`{3,}")


def fence_block(text: str, info: str = "") -> str:
    """`text` as a fenced code block whose fence its own content cannot close: a backtick
    run longer than any in `text` (at least three)."""
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{info}\n{body}{fence}\n"


def looks_like_diff(text: str) -> bool:
    """Whether `text` is a raw diff or patch (what `git diff` / `git format-patch` print)."""
    for line in text.lstrip("\n").splitlines()[:5]:
        if line.startswith(_DIFF_STARTS) or _PATCH_START.match(line):
            return True
    return False


_DIFF_STARTS = ("diff --git ", "--- ", "Index: ", "diff -")
_PATCH_START = re.compile(r"(?:From|commit) [0-9a-f]{7,64}\b")


def fence_diff_context(text: str) -> str:
    """A raw diff fenced as ``diff`` code, so it renders as code on GitHub; anything else
    unchanged (for templates with ``context_format: diff``)."""
    return fence_block(text.strip("\n"), "diff").rstrip("\n") if looks_like_diff(text) else text


FENCE_LINE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
"""A fence line at the top level of markdown (group 1 its run, group 2 its info string).
Here, not in `code`, so the merge driver (which closes a code block left open) imports this
small module rather than the code-block scanner."""


class FencePairs:
    """Fence lines at the top level paired as CommonMark pairs them, taken in order
    (`fence`): an opening fence of three or more backticks or tildes (a backtick fence whose
    info string holds no backtick), closed by a fence of the same character at least as long
    with nothing after it. The one walk of `open_fence_at_end` and of `syntax.code`'s
    `fenced_line_ranges` and `top_fences`."""

    __slots__ = ("ranges", "open_run", "open_line")

    def __init__(self) -> None:
        self.ranges: list[tuple[int, int]] = []
        """The closed blocks so far: 0-based inclusive line ranges, fences included."""
        self.open_run = ""
        """The run of the fence that opened the block still open (``""``: none is)."""
        self.open_line = 0

    def fence(self, line: int, run: str, info: str) -> bool:
        """Take the fence line `line` (its `run` of backticks or tildes, then `info`); whether
        it opens a block."""
        if self.open_run:
            if run[0] == self.open_run[0] and len(run) >= len(self.open_run) and not info.strip():
                self.ranges.append((self.open_line, line))
                self.open_run = ""
            return False
        if run[0] == "`" and "`" in info:
            return False
        self.open_run, self.open_line = run, line
        return True

    def end(self, last: int) -> list[tuple[int, int]]:
        """The ranges, a block still open running to line `last`."""
        if self.open_run:
            return [*self.ranges, (self.open_line, last)]
        return self.ranges


def open_fence_at_end(text: str) -> str | None:
    """The fence that would close a code block left open at the end of `text`, if any."""
    pairs = FencePairs()
    for m in FENCE_LINE.finditer(text):
        pairs.fence(0, m.group(1), m.group(2))
    return pairs.open_run or None
