"""Markers a writer translated: ``STEM: GEREED`` where ``VOTE: READY`` was meant.

A discussion held in another language (`settings.language`) keeps its markers in their fixed
English form, so every tool reads it alike. A model asked to answer in Dutch may translate
them anyway; such a line is no marker, and its vote or question would be lost without a word.
This rule reports it: a line outside code that starts (after an optional list bullet or bold)
with a word of `TRANSLATIONS`, in capitals as markers are written, and a colon is a warning at
its line naming the marker it stands for, so `check` fails and says what to write instead.
``Besluit: ...`` in running Dutch prose is left alone, and so are English words. A bad
``Language:`` header value is reported too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

from ..settings.language import language_problem
from ..syntax.code import CodeLines
from ..syntax.lazyre import Lazy

if TYPE_CHECKING:
    from .state import State

TRANSLATIONS: dict[str, str] = {
    **dict.fromkeys(("STEM", "STEMMING", "STIMME", "ABSTIMMUNG", "VOTO", "VOTUM"), "VOTE"),
    **dict.fromkeys(("VRAAG", "FRAGE", "PREGUNTA", "DOMANDA", "PERGUNTA"), "Q"),
    **dict.fromkeys(
        ("ACTIE", "ACTIEPUNT", "AUFGABE", "À FAIRE", "A FAIRE", "TAREA", "DA FARE"),
        "TODO",
    ),
    **dict.fromkeys(
        (
            "BESLUIT",
            "BESLISSING",
            "ENTSCHEIDUNG",
            "BESCHLUSS",
            "DÉCISION",
            "DECISIÓN",
            "DECISIONE",
            "DECISÃO",
        ),
        "DECISION",
    ),
    **dict.fromkeys(
        (
            "ZORG",
            "BEZWAAR",
            "BEDENKING",
            "BEDENKEN",
            "SORGE",
            "PRÉOCCUPATION",
            "INQUIÉTUDE",
            "PREOCUPACIÓN",
            "PREOCCUPAZIONE",
            "PREOCUPAÇÃO",
        ),
        "CONCERN",
    ),
    **dict.fromkeys(
        ("TOEGEWEZEN", "ZUGEWIESEN", "ASSIGNÉ", "ASIGNADO", "ASSEGNATO", "ATRIBUÍDO"), "ASSIGNED"
    ),
    **dict.fromkeys(("GEDAAN", "ERLEDIGT", "TERMINÉ", "HECHO", "FATTO", "FEITO"), "DONE"),
}
"""Marker words in Dutch, German, French, Spanish, Italian and Portuguese, in capitals, and the
marker each stands for."""

_WORD = re.compile(
    "(" + "|".join(sorted(map(re.escape, TRANSLATIONS), key=len, reverse=True)) + ")"
    r"(?:\*\*|__)?[ \t]*:"
)
"""A translated marker word and its colon, anywhere: one scan of the text, which the regex
engine skips through by the words' first letters (capitals: most text has few)."""
_BEFORE = Lazy(r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\*\*|__)?")
"""What may stand before a marker on its line: indentation, a list bullet, an opening bold."""


def rule_translated_markers(s: State) -> None:
    """Warn at each translated marker line of a comment (module docstring), and at a
    ``Language:`` header value that names no language. One scan of the whole text: hits are
    rare, and only they are placed in their comment and checked against its code."""
    value = s.doc.header.get("language")
    if value is not None:
        problem = language_problem(value)
        if problem:
            s.warn(s.header_line("language"), f"Language {problem}")
    starts = [b.body_line for b in s.doc.comments]
    line, last = 1, 0
    for m in _WORD.finditer(s.text):
        begin = s.text.rfind("\n", 0, m.start()) + 1
        if not _BEFORE.fullmatch(s.text, begin, m.start()):
            continue  # not at the start of its line, or inside a longer word
        line += s.text.count("\n", last, begin)
        last = begin
        i = bisect_right(starts, line) - 1
        if i >= 0 and line <= s.doc.comments[i].end_line and not s.comments[i].forged:
            _check(s, i, line, m.group(1))


def _check(s: State, i: int, line: int, word: str) -> None:
    """Warn at `line` of comment `i` about the translated `word`, unless the line is code."""
    block = s.doc.comments[i]
    rel = line - block.body_line
    start = 0
    for _ in range(rel):
        start = block.body.find("\n", start) + 1
    if CodeLines(block.body).has(rel, start):
        return
    marker = TRANSLATIONS[word]
    s.warn(
        line,
        f"`{word}:` looks like the marker `{marker}:` translated; markers keep their "
        f"English form in any language (write `{marker}:`); not counted",
        code="translated-marker",
        subject=word,
        fix=marker,
    )
