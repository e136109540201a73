"""Restated items collapsed: the same question, decision, TODO or concern said again.

Participants restate: an AI repeats the decision it agreed with in every round, a person asks
the same question twice. Listed as they stand in the file, a hand-off counted 8 decisions where
2 were distinct, and every view (status, side panels, ``decisions``, the chronicle, ADRs, posts)
repeated them. Here, once for every view, the items of one kind in one discussion with the same
`item_key` (the words of the text, case folded: ``Use JWT.`` and ``use  jwt`` are one) are one
item: the first, where it was first said, with each restatement after it in `Item.restated`
(who, and where). Every view and the JSON take the items from the state, so all get it.
"""

from __future__ import annotations

import re
import unicodedata

from .state import Item, Restatement, State

_WORD = re.compile(r"[^\W_]+")


def item_key(text: str) -> str:
    """What an item says, for telling restatements: its words (letters and digits, compatibility
    forms folded), case folded, joined by single spaces; markdown emphasis and punctuation
    left out."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def collapse(items: list[Item]) -> list[Item]:
    """`items` (of one kind, in file order) with each restatement folded into the first item
    that says the same (`item_key`): its author and line go to that item's `restated`, what
    it attached (`Item.details`) to that item's. Items whose text has no words are kept as
    they are."""
    first: dict[str, Item] = {}
    kept: list[Item] = []
    for item in items:
        key = item_key(item.text)
        seen = first.get(key) if key else None
        if seen is None:
            if key:
                first[key] = item
            kept.append(item)
            continue
        seen.restated.append(Restatement(item.author, item.line))
        for name, values in item.details.items():
            held = seen.details.setdefault(name, [])
            held += [v for v in values if v not in held]
    return kept


def rule_restatements(s: State) -> None:
    """Collapse the restated items of every kind (`collapse`); after every rule that adds items
    (comments, motions)."""
    for kind, items in s.items.items():
        if len(items) > 1:
            s.items[kind] = collapse(items)
