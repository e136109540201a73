"""The King's Choice in the file format: what a person chose to do with a decided discussion
at the end of a ``discussions run`` that reached consensus (TheRoundtAIble's name for it):
apply it now, leave it to a person, or decide later. One engine line and a visible sentence::

    <!-- CHOICE: apply | by: Rob <rob@example.com> | digest: 5a0c... | at: 2026-11-28T10:00:00Z -->

    *The King's Choice: Rob <rob\\@example.com> chose to apply it now*

The first field is one of `CHOICES`; ``digest`` is `apply.block_digest` of the fields (no
fence), so `check` notices an edited line. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .controls import strip_controls
from .render import visible_name

CHOICES = ("apply", "person", "later")
"""Apply it now; leave it to a person; decide later."""

SAID = {
    "apply": "chose to apply it now",
    "person": "left it to a person to carry out",
    "later": "chose to decide later",
}


class ChoiceFormatError(ValueError):
    """A ``CHOICE`` line that cannot be read back."""


@dataclass(slots=True)
class ChoiceRecord:
    """What a person chose after a consensus."""

    choice: str
    """One of `CHOICES`."""
    by: str
    """Who chose: ``Name <email>`` (or a name)."""
    at: str = ""


def render_choice(rec: ChoiceRecord) -> str:
    """The ``CHOICE`` block of `rec`, ready to append."""
    from .apply import block_digest  # the syntax shared with apply and evidence blocks: see
    from .evidence import escape_field  # `parse_choice`

    if rec.choice not in CHOICES:
        raise ValueError(f"choice '{rec.choice}' is not one of {', '.join(CHOICES)}")
    by = escape_field(strip_controls(rec.by))
    fields = [rec.choice, f"by: {by}", f"at: {escape_field(rec.at)}"]
    fields.insert(-1, f"digest: {block_digest(' | '.join(fields), None)}")
    sentence = choice_sentence(rec, visible_name)
    return f"<!-- CHOICE: {' | '.join(fields)} -->\n\n*{sentence}*\n"


def choice_sentence(rec: ChoiceRecord, name: Callable[[str], str] = str) -> str:
    """``The King's Choice: Rob chose to apply it now``, as the file and `status` say it."""
    return f"The King's Choice: {name(rec.by)} {SAID[rec.choice]}"


def parse_choice(args: str) -> ChoiceRecord:
    """The record a ``CHOICE`` line's arguments stand for; `ChoiceFormatError` saying what is
    wrong (an unknown choice, no one who chose, a digest that does not match). The syntax it
    shares with the apply and evidence blocks is loaded here, once a file has a choice to
    read: every turn derives its discussion's state before its first call, choice or not."""
    from .apply import block_digest
    from .evidence import marker_fields

    f = marker_fields(args)
    choice = f["number"]
    if choice not in CHOICES:
        raise ChoiceFormatError(f"unknown choice '{choice}' (one of {', '.join(CHOICES)})")
    if not f.get("by"):
        raise ChoiceFormatError("the choice does not say who made it (by:)")
    if f.get("digest") != block_digest(args, None):
        raise ChoiceFormatError("the choice line was edited: its digest does not match")
    return ChoiceRecord(choice, f["by"], f.get("at", ""))
