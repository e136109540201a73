"""Evidence in the file format: the request a participant writes, and the block the engine
appends with what was read.

* A request is a marker line in a comment, ``EVIDENCE: read src/app.py:1-20`` (found by
  `markers.extract` like ``Q:``); the forms are `_REQUEST_FORMS`. `parse_request` checks the
  shape only; what may be read is decided when it is fulfilled.
* The engine's block, appended after the comment like a phase transition::

      <!-- EVIDENCE: 3 | request: read src/app.py:1-20 | by: AI-Architect | ref: blob 1a2b |
           digest: 0f3c... | status: fulfilled | at: 2026-11-23T10:00:00Z -->

      *Evidence 3 for AI-Architect: read src/app.py:1-20 (blob 1a2b)*

      ````text
      ...the content, in a fence longer than any backtick run inside it...
      ````

  (the marker is one line). ``status`` is ``fulfilled``, ``refused`` (with ``reason``, and no
  fence) or ``same`` (with ``see``: the number of the earlier block with the same request at
  the same ref). ``digest`` is `content_digest` of the fenced content as it stands in the file,
  so `check` notices an edit. Field values escape ``&``, ``|`` and ``-->``.

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .fences import fence_block
from .render import neutralise, visible_name

_REQUEST_FORMS = (
    "read PATH[:START-END]",
    "grep TEXT [in GLOB]",
    "list DIR",
    "git log|show|diff|blame ARGS",
    "run NAME",
    "web URL",
    "search QUERY",
)
"""How a request is written, after ``EVIDENCE:``."""

KINDS = ("read", "grep", "list", "git", "run", "web", "search")

STATUSES = ("fulfilled", "refused", "same", "pending")

NL = "\n"

_MAX_REQUEST = 500
"""Characters a request's arguments may have."""


@dataclass(slots=True, frozen=True)
class Request:
    """One evidence request, its words split off."""

    kind: str
    """``read``, ``grep``, ``list``, ``git``, ``run``, ``web`` or ``search``."""
    args: str
    """Everything after the kind, spaces collapsed."""

    @property
    def text(self) -> str:
        """The request as recorded: ``read src/app.py:1-20``."""
        return f"{self.kind} {self.args}".strip()


class RequestError(ValueError):
    """A request that is not one of `_REQUEST_FORMS`."""


def parse_request(text: str) -> Request:
    """``read  src/a.py`` -> Request("read", "src/a.py"); `RequestError` for anything else."""
    words = text.replace("`", " ").split()
    if not words:
        raise RequestError("an empty request; write one of: " + "; ".join(_REQUEST_FORMS))
    kind = words[0].lower()
    if kind not in KINDS:
        raise RequestError(
            f"unknown request '{words[0]}'; write one of: " + "; ".join(_REQUEST_FORMS)
        )
    if len(words) == 1 and kind != "list":
        raise RequestError(f"`{kind}` needs an argument: " + _form(kind))
    args = " ".join(words[1:])
    if len(args) > _MAX_REQUEST:
        raise RequestError(f"a request of more than {_MAX_REQUEST} characters")
    return Request(kind, args)


def _form(kind: str) -> str:
    return next(f for f in _REQUEST_FORMS if f.startswith(kind))


def normal_request(text: str) -> str:
    """The form requests are compared in (one block per request): `Request.text`, or the text
    with its spaces collapsed when it does not parse."""
    try:
        return parse_request(text).text
    except RequestError:
        return " ".join(text.split())


def content_digest(content: str) -> str:
    """The digest a block records of its fenced content (sha256, 16 hex digits)."""
    import hashlib  # only for a file with evidence: not on every command's start-up

    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def escape_field(value: str) -> str:
    """A value that can stand in a marker field: one line, no ``|``, no ``-->``."""
    value = " ".join(value.split())
    return value.replace("&", "&amp;").replace("|", "&#124;").replace("-->", "--&gt;")


def _unescape_field(value: str) -> str:
    return value.replace("--&gt;", "-->").replace("&#124;", "|").replace("&amp;", "&")


@dataclass(slots=True)
class Block:
    """What the engine writes for one request."""

    number: int
    request: str
    by: str
    status: str
    """``fulfilled``, ``refused`` or ``same``."""
    at: str
    """When it was written (`clock.now_stamp`)."""
    ref: str = ""
    """What it was read at: ``blob <sha1>``, ``commit <sha1>``, ``output <digest>``."""
    content: str = ""
    reason: str = ""
    """Why it was refused; for a fulfilled block, a cap that was hit (said in the block)."""
    see: int = 0
    """For ``same``: the number of the earlier block."""


def render_block(block: Block) -> str:
    """The engine block for `block` (see the module docstring), ready to append."""
    fenced = ""
    if block.status == "fulfilled":
        fenced = neutralise(fence_block(block.content, "text"))
    fields = [
        str(block.number),
        f"request: {escape_field(block.request)}",
        f"by: {escape_field(block.by)}",
    ]
    if block.ref:
        fields.append(f"ref: {escape_field(block.ref)}")
    if fenced:
        fields.append(f"digest: {content_digest(fenced_content(fenced.split(NL)) or '')}")
    fields.append(f"status: {block.status}")
    if block.reason:
        fields.append(f"reason: {escape_field(block.reason)}")
    if block.see:
        fields.append(f"see: {block.see}")
    fields.append(f"at: {block.at}")
    lines = [f"<!-- EVIDENCE: {' | '.join(fields)} -->", "", _visible_line(block), ""]
    if fenced:
        lines.append(fenced.rstrip("\n"))
        lines.append("")
    return "\n".join(lines)


def _visible_line(block: Block) -> str:
    who = visible_name(block.by)
    what = visible_name(block.request)
    head = f"*Evidence {block.number} for {who}"
    if block.status == "refused":
        return f"{head}, refused: {what} ({visible_name(block.reason)})*"
    if block.status == "same":
        return f"{head}: {what}, unchanged since evidence {block.see}*"
    ref = f" at {visible_name(block.ref)}" if block.ref else ""
    note = f"; {visible_name(block.reason)}" if block.reason else ""
    return f"{head}: {what}{ref}{note}*"


def marker_fields(args: str) -> dict[str, str]:
    """The fields of an ``EVIDENCE`` marker's arguments: ``number`` and the named ones."""
    parts = args.split("|")
    fields = {"number": parts[0].strip()}
    for part in parts[1:]:
        key, _, value = part.partition(":")
        fields[key.strip()] = _unescape_field(value.strip())
    return fields


_FENCE_OPEN = re.compile(r"^(`{3,})[^`]*$")


def fence_span(lines: list[str], start: int = 0, limit: int = 6) -> tuple[int, int] | None:
    """(index of the opening fence, index of the closing fence) of the first fenced block in
    ``lines[start:]`` that opens within `limit` lines of `start` (only blank and ``*...*``
    lines may stand before it), else None (also when it is not closed before the next block).

    The closing fence is looked for up to the next line our parser could read as structure
    (`_ends_segment`: a marker or a comment header), which `neutralise` never leaves in the
    content of a block the engine wrote: a fence left open reads no further than its own
    block, so reading every block of a file reads each line about once."""
    i = start
    while i < len(lines) and i < start + limit:
        m = _FENCE_OPEN.match(lines[i])
        if m:
            fence = m.group(1)
            for j in range(i + 1, len(lines)):
                line = lines[j]
                if line.startswith(fence) and not line.strip("`").strip(" \t"):
                    return i, j
                if _ends_segment(line):
                    return None
            return None
        if lines[i].strip() and not lines[i].startswith("*"):
            return None
        i += 1
    return None


def _ends_segment(line: str) -> bool:
    """Whether `line` can end an engine block's segment: an HTML comment (a marker, a
    comment's metadata) indented at most three spaces, or a ``Name:`` comment header."""
    rest = line.lstrip(" ")
    return (rest.startswith("<!--") and len(line) - len(rest) <= 3) or line.startswith("Name:")


def fenced_content(lines: list[str], start: int = 0, limit: int = 6) -> str | None:
    """The content of the block `fence_span` finds, else None."""
    span = fence_span(lines, start, limit)
    return None if span is None else "\n".join(lines[span[0] + 1 : span[1]])


def is_marker_line(line: str, kinds: tuple[str, ...] = ("EVIDENCE",)) -> bool:
    """Whether `line` is an ``EVIDENCE`` marker (or one of `kinds`) as the engine writes it
    (indented at most three spaces; `neutralise` indents one in code by four)."""
    rest = line.lstrip(" ")
    return len(line) - len(rest) <= 3 and rest.startswith(tuple(f"<!-- {k}:" for k in kinds))
