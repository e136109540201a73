"""Whether one version of a discussion only adds to another (pure): what the merge driver
and `check --since` accept as appends."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .plain import head_name
from .units import content_of, split_blocks, units_of


def split_appended(base: str, side: str) -> tuple[str, str] | None:
    """Cut `side` after its version of the base's last terminated block, so the base's edits
    can be merged line by line and what follows block by block. The base's last block may
    itself be edited (a typo fixed in the last comment): the side's blocks that replace the
    base's last ones are paired with them one for one, each like the one it replaces. None
    when the base ends with an unfinished comment the side does not hold exactly once after
    the cut (closed, maybe moved by a merge), or the side deleted or rewrote blocks at its end
    beyond recognition. Returns ``(head, appended)``: the side's version of the base (edits
    and all, ending with a separator line) and the blocks it appended after it."""
    blocks, rest = split_blocks(base)
    if not blocks:
        return None
    side_blocks, side_rest = split_blocks(side)
    if side_rest:
        side_blocks.append(side_rest)
    import difflib  # only when needed: it is slow to import

    n = len(blocks)
    matcher = difflib.SequenceMatcher(None, blocks, side_blocks, autojunk=False)
    cut = None
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if i2 != n or i1 == i2:
            continue
        if op == "equal":
            cut = j2
        elif (
            op == "replace"
            and j2 - j1 >= i2 - i1
            and all(_alike(blocks[i1 + k], side_blocks[j1 + k]) for k in range(i2 - i1))
        ):
            cut = j1 + (i2 - i1)
        else:
            return None
    if cut is None:
        return None
    head = "".join(side_blocks[:cut])
    if rest.strip():
        said = content_of(rest)
        if sum(content_of(u.text) == said for u in units_of(side_blocks[cut:])) != 1:
            return None
    return head, side[len(head) :]


def _alike(old: str, new: str) -> bool:
    """Whether `new` is `old` edited (same first line, most lines kept), not another block."""
    import difflib

    a, b = old.strip().splitlines(), new.strip().splitlines()
    if not a or not b or a[0].strip() != b[0].strip():
        return False
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.5


_ENGINE_START = re.compile(r"\A(?:[ \t]*\r?\n)*[ ]{0,3}<!--[ \t]*[A-Z][A-Z-]*[ \t]*:")


def _starts_unit(block: str) -> bool:
    """Whether a block starts a comment or an engine block (the merge driver only ever
    inserts whole units, so what follows an insertion starts one too)."""
    return head_name(block) is not None or bool(_ENGINE_START.match(block))


def _inserts_units(blocks: list[str], j: int) -> bool:
    """Whether the blocks inserted at `j` start a unit. A block of only a ``---`` line (a
    hand-typed comment's own separator after the engine's) belongs to the comment after it:
    several ``---`` lines before ``Name:`` are one boundary."""
    if _starts_unit(blocks[j]):
        return True
    return _SEPARATOR_ONLY.match(blocks[j]) is not None and (
        j + 1 < len(blocks) and head_name(blocks[j + 1]) is not None
    )


_SEPARATOR_ONLY = re.compile(r"\A(?:[ \t]*\r?\n)*---[ \t]*(?:\r?\n)?\Z")


@dataclass(slots=True)
class _NotAppended:
    """Where and how a newer version of a file changed what an older one said."""

    offset: int
    """Offset in the newer text of the first difference."""
    kind: str
    """``changed`` (text rewritten), ``removed`` (text deleted, from the end or the middle)
    or ``inside`` (text inserted into an existing comment)."""


def appended_only(old: str, new: str) -> _NotAppended | None:
    """None when `new` is `old` with blocks added only as merges and appends add them: every
    block of `old` in `new`, unchanged and in order, new comments and engine blocks between
    them (a merge orders both sides' comments), and an unfinished last comment of `old`
    closed, moved by a merge or continued. Otherwise where `new` first differs."""
    if new.startswith(old):
        return None
    old_blocks, old_rest = split_blocks(old)
    blocks, rest = split_blocks(new)
    if rest:
        blocks.append(rest)
    offsets = [0]
    for b in blocks:
        offsets.append(offsets[-1] + len(b))
    j = 0
    for block in old_blocks:
        k = j
        while k < len(blocks) and blocks[k] != block:
            k += 1
        if k == len(blocks):
            return _first_difference(block, blocks, j, offsets)
        if k > j and not (_inserts_units(blocks, j) and _starts_unit(block)):
            return _NotAppended(offsets[j], "inside")
        j = k + 1
    if not old_rest.strip():
        return None
    if j < len(blocks) and blocks[j].startswith(old_rest):
        return None  # closed or continued where it was
    said = content_of(old_rest)
    if any(content_of(u.text) == said for u in units_of(blocks[j:])):
        return None  # closed, and a merge placed other comments before it
    return _first_difference(old_rest, blocks, j, offsets)


def _first_difference(old: str, blocks: list[str], j: int, offsets: list[int]) -> _NotAppended:
    """Where block `old`, missing from ``blocks[j:]``, went: rewritten (a block there is like
    it, maybe after new comments a merge placed first), or removed (at block `j`)."""
    j = next((k for k in range(j, len(blocks)) if _alike(old, blocks[k])), j)
    if j == len(blocks) or not _alike(old, blocks[j]):
        return _NotAppended(offsets[j] if j < len(blocks) else offsets[-1], "removed")
    current = blocks[j]
    limit = min(len(old), len(current))
    p = 0
    while p < limit and old[p] == current[p]:
        p += 1
    return _NotAppended(offsets[j] + p, "changed")


def _said_blocks(text: str) -> Counter[str]:
    """What `text` says, block by block (`content_of` each, an unfinished last comment as if
    closed), counted; separators alone say nothing."""
    blocks, rest = split_blocks(text)
    found: Counter[str] = Counter()
    for block in (*blocks, rest):
        said = content_of(block)
        if said.strip("-\t ") or said.count("\n"):
            found[said] += 1
    return found


def lost_blocks(merged: str, parent: str, others: list[tuple[str, list[str]]]) -> list[str]:
    """The blocks of `parent` that a merge result `merged` does not hold (each as `parent` has
    it), in `parent`'s order: what a merge must never drop, whichever tool made it. Excused:
    a block of a merge base that another parent changed or removed (that parent's edit, which
    the append-only check judges on its own commits). `others`: each other parent's text with
    its merge bases with `parent`."""
    have = _said_blocks(merged)
    mine = _said_blocks(parent)
    excused: Counter[str] = Counter()
    for other, bases in others:
        theirs = _said_blocks(other)
        for base in bases:
            for said, n in _said_blocks(base).items():
                excused[said] = max(excused[said], n - theirs[said])
    short = {s: n - have[s] - excused[s] for s, n in mine.items() if n > have[s] + excused[s]}
    lost: list[str] = []
    blocks, rest = split_blocks(parent)
    for block in reversed((*blocks, rest)):  # the last copies of a block are the lost ones
        said = content_of(block)
        if short.get(said, 0) > 0:
            short[said] -= 1
            lost.append(block)
    return lost[::-1]
