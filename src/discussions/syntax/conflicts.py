"""Unresolved merge-conflict lines (``<<<<<<<``, ``=======``, ``>>>>>>>``, ``|||||||``).

A file left in the middle of a merge is not a discussion anybody agreed on: `check` reports
the lines, `status` warns, and every writer refuses it. Lines inside fenced code (an example of
a conflict in a comment) are not conflicts. Pure functions; linear in the input.
"""

from __future__ import annotations

import mmap
import re

from .code import fenced_line_ranges
from .parse import parse_document
from .text import normalise_newlines

# Git writes seven characters (or the `conflict-marker-size` a repository's attributes set:
# more, never fewer), then a space and a label, or nothing; `=======` stands alone.
_CANDIDATE = re.compile(r"^(?:<{7,}|>{7,}|\|{7,})(?: [^\n]*)?$|^={7,}[ \t]*$", re.M)
_CANDIDATE_BYTES = re.compile(rb"^(?:<{7,}|>{7,}|\|{7,})(?: [^\n]*)?\r?$|^={7,}[ \t]*\r?$", re.M)


# Where a candidate may start: a line that starts with seven of the marker characters. From a
# newline, so a scan jumps from newline to newline (three to eight times faster on a large file
# than the candidate pattern, which tries ``^`` at every character); the first line apart.
_LINE_RUN = re.compile(r"\n[<>=|]{7}")
_LINE_RUN_BYTES = re.compile(rb"\n[<>=|]{7}")
_RUNS = ("<<<<<<<", ">>>>>>>", "=======", "|||||||")
_RUNS_BYTES = tuple(run.encode() for run in _RUNS)


def may_have_conflicts(data: bytes | mmap.mmap) -> bool:
    """A fast test on raw bytes: False means there is certainly no conflict line. A scan for a
    line that starts with a run of marker characters first; the line pattern only when there
    is one."""
    if data[:7] not in _RUNS_BYTES and _LINE_RUN_BYTES.search(data) is None:
        return False
    return _CANDIDATE_BYTES.search(data) is not None


def conflict_lines(text: str) -> list[int]:
    """1-based numbers of conflict-marker lines outside fenced code, in order."""
    text = normalise_newlines(text).removeprefix("\ufeff")
    if not text.startswith(_RUNS) and _LINE_RUN.search(text) is None:
        return []  # no line starts with a run: every file without conflicts, fast
    hits: list[int] = []
    sides = False  # a `<<<<<<<` or `>>>>>>>` line: git always writes one with `=======`
    longer: dict[int, list[tuple[int, str]]] = {}  # a larger marker size: its lines by size
    line = 1
    pos = 0
    for m in _CANDIDATE.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        kind = text[m.start()]
        size = len(m.group()) - len(m.group().lstrip(kind))
        if size > 7:
            longer.setdefault(size, []).append((line, kind))
            continue
        hits.append(line)
        sides = sides or kind in "<>"
    whole = _whole_conflicts(longer) if longer else []
    if whole:
        hits, sides = sorted(hits + whole), True
    if not hits or not sides:
        return []  # a lone `=======` is a heading underline, not a conflict
    if "```" not in text and "~~~" not in text:
        return hits
    code = _code_lines(text)
    return [n for n in hits if n not in code]


def _whole_conflicts(longer: dict[int, list[tuple[int, str]]]) -> list[int]:
    """The lines of marker runs longer than git's default seven (a repository's
    `conflict-marker-size`) that are conflicts: only a size with its ``<``, ``=`` and ``>``
    lines, as git writes them; a lone longer run is a rule or an underline."""
    return [
        line
        for found in longer.values()
        if {kind for _, kind in found} >= {"<", "=", ">"}
        for line, _ in found
    ]


def _code_lines(text: str) -> set[int]:
    """1-based lines inside fenced code, each fence scoped to its comment (or the preamble)."""
    doc = parse_document(text)
    lines = text.split("\n")
    first_comment = doc.comments[0].separator_line if doc.comments else len(lines) + 1
    segments = [(doc.preamble_line, first_comment - 1)]
    segments += [(c.body_line, c.end_line) for c in doc.comments]
    code: set[int] = set()
    for start, end in segments:
        if end < start:
            continue
        chunk = "\n".join(lines[start - 1 : end])
        for a, b in fenced_line_ranges(chunk):
            code.update(range(start + a, start + b + 1))
    return code
