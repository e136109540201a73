"""Terminal control sequences in someone else's text (a lead's output, a CLI's stderr): removed
whole, wherever the text goes (a terminal, a pipe, a file), since a log read later with ``cat``
or ``less -R`` acts on them as a terminal would.

    strip_controls("\x1b]0;owned\x07done \x1b[8mhidden\x1b[0m")  # 'done hidden'
    stream = ControlFilter(); stream.feed("\x1b]52;c;"); stream.feed("ZXZpbA==\x07ok")  # 'ok'

Removed: CSI sequences (colours, cursor moves, ``ESC[8m`` that hides text: the text stays,
visible), OSC strings (window title, ``OSC 52`` clipboard writes, hyperlinks) and the other
string controls (DCS, SOS, PM, APC) up to their terminator or the end of the text, every other
``ESC`` sequence, and every other C0 or C1 control character but tab and newline; a carriage
return that does not end a line becomes a newline (it would overwrite what came before).
`control_lines` finds the lines of a text that hold any control character (for `check`).

Pure: no I/O.
"""

from __future__ import annotations

import re

from .lazyre import Lazy

_STRING_START = "\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f]"
_SEQUENCE = Lazy(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI
    rf"|(?:{_STRING_START})[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|\Z)"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-OQ-WYZ\\`a-~]"  # any other escape sequence (charset, keypad, RIS...)
)
_LEFT = Lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_INTRODUCERS = "\x1b\x90\x98\x9b\x9d\x9e\x9f"
_HELD = 4096
"""Characters of an unfinished sequence at a chunk's end held back for the next chunk; a
longer one is dropped as garbage."""
_CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""A control character that has no business in a discussion file (tab and newline aside; a
carriage return too: newlines are normalised before this is asked)."""


def strip_controls(text: str) -> str:
    """`text` without terminal control sequences or control characters (module docstring)."""
    if not _CONTROL_CHARACTER.search(text):
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _LEFT.sub("", _SEQUENCE.sub("", text))


class ControlFilter:
    """`strip_controls` for text that arrives in chunks: a sequence cut between two chunks is
    held back until it is complete, so no part of it gets through."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        """What of `chunk` (after what was held back) can be shown now, filtered."""
        text, self._held = self._held + chunk, ""
        cut = _unfinished_from(text)
        if cut is not None and len(text) - cut <= _HELD:
            text, self._held = text[:cut], text[cut:]
        return strip_controls(text)

    def flush(self) -> str:
        """What is still held back, filtered (an unfinished string is dropped)."""
        text, self._held = self._held, ""
        return strip_controls(text)


def _unfinished_from(text: str) -> int | None:
    """Where an escape sequence (or a carriage return) that the next chunk may complete starts
    at the end of `text`, or None."""
    if text.endswith("\r"):
        return len(text) - 1
    last = max(text.rfind(c) for c in _INTRODUCERS)
    if last < 0:
        return None
    found = _SEQUENCE.match(text, last)
    if found is None or (found.end() == len(text) and not _terminated(found.group())):
        return last
    return None


def _terminated(sequence: str) -> bool:
    """Whether a matched sequence ended by itself rather than at the end of the text."""
    if re.match(_STRING_START, sequence):
        return sequence.endswith(("\x07", "\x1b\\", "\x9c"))
    return True


_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)])
"""The characters of `_CONTROL_CHARACTER` (all below 256), as Latin-1 bytes."""


def _has_control(text: str) -> bool:
    """Whether `text` holds a `_CONTROL_CHARACTER`. Every one is below 256, so a text that
    Latin-1 encodes (one byte a character, the same value: most files, any in English) holds
    one when deleting their bytes shortens it, a table lookup a byte where the regex engine
    calls its character-set test for each character (a long file's every read asks);
    other texts ask the regex."""
    try:
        data = text.encode("latin-1")
    except UnicodeEncodeError:
        return _CONTROL_CHARACTER.search(text) is not None
    return len(data.translate(None, _CONTROL_BYTES)) != len(data)


def control_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line, the first control character on it) for each line of `text` (newlines
    normalised) that holds a control character."""
    if not _has_control(text):
        return []
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        hit = _CONTROL_CHARACTER.search(line)
        if hit:
            found.append((number, hit.group()))
    return found
