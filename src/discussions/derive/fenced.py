"""The fenced content of an engine block read back and checked against the digest its marker
recorded: one reader for the evidence, draft and apply blocks, warning when the fence is lost
or the digest no longer matches (so `check` fails on an edited or cut-short block)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..syntax.evidence import content_digest, fenced_content

if TYPE_CHECKING:
    from .state import State


def checked_content(
    s: State,
    lines: list[str],
    line: int,
    what: str,
    recorded: str,
    digest: Callable[[str | None], str] | None = None,
    *,
    fenced: bool = True,
    lost: str = "fenced content",
) -> tuple[str | None, bool]:
    """(the fenced content under the marker on `line`, None when lost or not `fenced`; whether
    the block matches the `recorded` digest). `digest` computes the block's digest from the
    content (None for a block without a fence; default: `content_digest` of the content alone).
    A lost fence is the warning ``<what> has lost its <lost>`` (none when `lost` is empty: the
    caller reports it), a mismatch the warning ``<what> does not match the digest...``."""
    content = fenced_content(lines, line) if fenced else None
    if fenced and content is None:
        if lost:
            s.warn(line, f"{what} has lost its {lost}")
        return None, False
    actual = content_digest(content or "") if digest is None else digest(content)
    if actual == recorded:
        return content, True
    s.warn(
        line,
        f"{what} does not match the digest the engine recorded: it was edited, or cut short "
        "by an interrupted write",
    )
    return content, False
