"""Bytes to text: decoding with warnings, newlines, byte-order marks."""

from __future__ import annotations

import re

from .document import ParseWarning
from .lazyre import Lazy
from .stamps import normalise_newlines as normalise_newlines

BOM = "\ufeff"


_LINE_START_BOMS = Lazy(r"^\ufeff+", re.M)


def decode(data: bytes) -> tuple[str, list[ParseWarning]]:
    """Decode file bytes: UTF-8, BOM tolerated; invalid bytes replaced and reported."""
    warnings: list[ParseWarning] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        warnings.append(
            ParseWarning(line, "file is not valid UTF-8; undecodable bytes shown as U+FFFD")
        )
        text = data.decode("utf-8", errors="replace")
    if text.startswith(BOM):
        text = text[1:]
    return text, warnings


def detect_newline(text: str) -> str:
    """The line ending a file uses: the first one found, ``\\n`` by default."""
    i = text.find("\n")
    if i > 0 and text[i - 1] == "\r":
        return "\r\n"
    return "\n"


def strip_line_start_boms(text: str) -> tuple[str, list[int]]:
    """Remove byte-order marks (U+FEFF, zero width no-break space) standing at line starts;
    return the text and the 1-based numbers of the lines they were on. Line numbers do not
    change. A BOM in the middle of a file (files concatenated) would otherwise hide a ``---``
    or ``Name:`` line from the parser while GitHub still shows it."""
    if BOM not in text:
        return text, []
    lines: list[int] = []
    line = 1
    pos = 0
    for m in _LINE_START_BOMS.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        lines.append(line)
    return _LINE_START_BOMS.sub("", text), lines


_SLUG = Lazy(r"[^\w]+")


def slugify(title: str) -> str:
    """A file name for `title`: letters of every script are kept (accents folded where that
    is lossless), everything else becomes ``-``. A title with no letters or digits at all
    (emoji, punctuation) gets ``discussion-`` and a short hash, so distinct titles stay
    distinct."""
    import unicodedata  # only to name a new file: the merge driver imports this module

    folded = unicodedata.normalize("NFKD", title.lower())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    folded = unicodedata.normalize("NFC", folded)
    slug = _SLUG.sub("-", folded).strip("-_")[:60].strip("-_")
    if slug:
        return slug
    import hashlib  # only for a title with no letters to make a name of

    digest = hashlib.sha256(title.strip().encode("utf-8")).hexdigest()[:8]
    return f"discussion-{digest}"
