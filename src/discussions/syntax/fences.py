"""Code fences for text the engine embeds in a discussion: a fence its own content cannot close,
a raw diff recognised and fenced so it renders as code on GitHub, and the fence that closes a
code block left open at the end of a text."""

from __future__ import annotations

import re

from .fenceend import FencePairs as FencePairs
from .fenceend import open_fence_at_end as open_fence_at_end
from .lazyre import Lazy

_BACKTICKS = Lazy(r"`{3,}")


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
_PATCH_START = Lazy(r"(?:From|commit) [0-9a-f]{7,64}\b")


def fence_diff_context(text: str) -> str:
    """A raw diff fenced as ``diff`` code, so it renders as code on GitHub; anything else
    unchanged (for templates with ``context_format: diff``)."""
    return fence_block(text.strip("\n"), "diff").rstrip("\n") if looks_like_diff(text) else text


FENCE_LINE = Lazy(r"^[ ]{0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
"""A fence line at the top level of markdown (group 1 its run, group 2 its info string).
Here, not in `code`, so the merge driver (which closes a code block left open) imports this
small module rather than the code-block scanner."""
