"""A comment's metadata line: what the tool recorded (provider, usage, digest, time)."""

from __future__ import annotations

from .document import ENGINE_LINE
from .stamps import META_LINES as META_LINES
from .stamps import comment_stamp, meta_line, recorded_stamp, unit_lines
from .stamps import meta_fields as meta_fields


def comment_meta(body: str) -> str | None:
    """What the tool recorded about a comment: the inside of its metadata line, else None.

    The metadata line is an HTML comment on a line of its own among the comment's first
    `META_LINES` lines, indented at most three spaces, whose inside starts with ``provider:``
    (an AI's answer: ``provider: x | duration: 1s | ... | at: T``) or ``at:`` (a person's
    comment written by the tool: ``at: T``). `neutralise` leaves no such line in untrusted
    text (outside code it starts with ``&lt;``, inside code it is indented four spaces), and
    the tool writes its own line first, so the first one found is always the tool's."""
    if "<!--" not in body:
        return None
    found = meta_line(body.split("\n", META_LINES)[:META_LINES])
    return None if found is None else found[1]


def comment_meta_line(lines: list[str]) -> int | None:
    """The index of the metadata line (see `comment_meta`) in a comment's `lines`, else None."""
    found = meta_line(lines)
    return None if found is None else found[0]


def engine_fields(args: str) -> dict[str, str]:
    """The value and ``key: value`` fields of an engine block's arguments (keys lower-cased):
    ``passed | yes: 2 | line: 12`` -> {"": "passed", "yes": "2", "line": "12"}."""
    value, _, rest = args.partition("|")
    fields = {"": value.strip()}
    for part in rest.split("|"):
        key, sep, val = part.partition(":")
        if sep:
            fields[key.strip().lower()] = val.strip()
    return fields


def written_at(unit: str) -> str:
    """When a comment or an engine block says it was written, as `utc_stamp` writes it; ``""``
    when it does not say. `unit` is what the merge driver cuts a file into: optional blank
    lines, then a ``Name:`` line and the comment's body (the ``at:`` field of its metadata
    line, `stamps.comment_stamp`), or an engine marker line (the ``at:`` field of its
    arguments, as a ``PASS`` has)."""
    lines = unit_lines(unit)
    stamp = comment_stamp(lines)
    if stamp is not None:
        return stamp
    m = ENGINE_LINE.match(lines[0])
    inner = None if m is None else m.group(2).partition("|")[2]
    if not inner:
        return ""
    return recorded_stamp(meta_fields(inner).get("at", ""))
