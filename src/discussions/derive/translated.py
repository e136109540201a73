"""Markers a writer translated: ``STEM: GEREED`` where ``VOTE: READY`` was meant.

A discussion held in another language (`settings.language`) keeps its markers in their fixed
English form, so every tool reads it alike. A model asked to answer in Dutch may translate
them anyway; such a line is no marker, and its vote or question would be lost without a word.
This rule reports it: a line outside code that starts (after an optional list bullet or bold)
with a word in capitals from `TRANSLATIONS` and a colon is a warning at its line naming the
marker it stands for, so `check` fails and says what to write instead. Only capitals count,
as markers are written: ``Besluit: ...`` in running Dutch prose is left alone. A bad
``Language:`` header value is reported too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..settings.language import language_problem
from ..syntax.code import CodeLines

if TYPE_CHECKING:
    from .state import State

TRANSLATIONS: dict[str, str] = {
    **dict.fromkeys(("STEM", "STEMMING", "STIMME", "ABSTIMMUNG", "VOTO", "VOTUM"), "VOTE"),
    **dict.fromkeys(("VRAAG", "FRAGE", "QUESTION", "PREGUNTA", "DOMANDA", "PERGUNTA"), "Q"),
    **dict.fromkeys(
        ("ACTIE", "ACTIEPUNT", "AUFGABE", "AFAIRE", "À FAIRE", "A FAIRE", "TAREA", "DA FARE"),
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

_LINE = re.compile(
    r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\*\*|__)?"
    r"([^\W\d_][^\W\d_]*(?: [^\W\d_]+)?)"  # a word, or two
    r"(?:\*\*|__)?[ \t]*:",
    re.M,
)


def rule_translated_markers(s: State) -> None:
    """Warn at each translated marker line of a comment (module docstring), and at a
    ``Language:`` header value that names no language."""
    value = s.doc.header.get("language")
    if value is not None:
        problem = language_problem(value)
        if problem:
            s.warn(s.header_line("language"), f"Language {problem}")
    for block, comment in zip(s.doc.comments, s.comments, strict=False):
        if ":" in block.body and not comment.forged:
            _check_body(s, block.body, block.body_line)


def _check_body(s: State, body: str, first_line: int) -> None:
    code: CodeLines | None = None
    for m in _LINE.finditer(body):
        word = m.group(1)
        marker = TRANSLATIONS.get(word) if word.isupper() else None
        if marker is None:
            continue
        code = code or CodeLines(body)
        rel = body.count("\n", 0, m.start())
        if code.has(rel, m.start()):
            continue
        s.warn(
            first_line + rel,
            f"`{m.group(1)}:` looks like the marker `{marker}:` translated; markers keep their "
            f"English form in any language (write `{marker}:`); not counted",
            code="translated-marker",
            subject=m.group(1),
            fix=marker,
        )
