"""A participant's notes for its later discussions: ``REMEMBER:`` and ``REVISIT-WHEN:`` lines.

``REMEMBER: text`` keeps something the author wants to be reminded of in its later discussions
(`model.memory`); ``REVISIT-WHEN: condition`` names a condition under which the author wants the
question looked at again: `status` and the decision ledger surface it when a later discussion
mentions it (`model.memory.revisits_for`). One rule, `rule_notes`, pure like the others: each
such marker of each comment, in file order, as an `Item` of kind ``REMEMBER`` or
``REVISIT-WHEN`` in `State.notes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .state import Item

if TYPE_CHECKING:
    from .state import State

_NOTE_KINDS = ("REMEMBER", "REVISIT-WHEN")


def rule_notes(s: State) -> None:
    """``REMEMBER:`` and ``REVISIT-WHEN:`` markers with a text, in file order."""
    if not s.holds(*_NOTE_KINDS):
        return
    for c in s.comments:
        for m in c.markers:
            if m.kind in _NOTE_KINDS and m.text.strip():
                s.notes.append(Item(m.kind, m.text.strip(), c.author, m.line))
