"""Completion: ``@`` mentions, markers at the start of a line, the values of ``VOTE:``,
``BALLOT:`` and ``SECOND:``, and a new comment block."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types

from ..syntax.kinds import MARKER_KINDS
from ..syntax.markers import BALLOTS
from ..syntax.render import VOTE_VALUES

if TYPE_CHECKING:
    from .buffer import Buffer

VALUES: dict[str, tuple[str, ...]] = {
    "VOTE": VOTE_VALUES,
    "BALLOT": BALLOTS,
    "SECOND": ("yes", "no"),
}
"""The values each marker takes, in the words `check` accepts."""

_VALUE_AT = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*)?(VOTE|BALLOT|SECOND)(?:\*\*)?\s*:\s*(\w*)$")
_MENTION_AT = re.compile(r"(?<![\w@./\\:`-])@([\w-]*)$")
_LINE_START = re.compile(r"^\s*(?:[-*+]\s+)?([A-Z-]*)$")

MARKER_HELP = {
    "VOTE": "your vote in this phase: READY, CHANGES or REJECT",
    "Q": "a question; it stays open until answered",
    "TODO": "something to do",
    "DECISION": "a decision taken",
    "ASSIGNED": "a task given to someone",
    "DONE": "a task finished",
    "CONCERN": "a concern to address",
    "SCORE": "a score from 0 to 10",
    "MOTION": "a motion for the council to second and ballot on",
    "SECOND": "second the open motion: yes or no",
    "BALLOT": "your ballot on the seconded motion: YES, NO or ABSTAIN",
}


def complete(
    b: Buffer, line: int, character: int, author: str, snippets: bool = False
) -> list[types.CompletionItem]:
    """What may be typed at 0-based (`line`, `character`) of the buffer (`snippets`: whether
    the client takes snippets, with a place for the cursor)."""
    before = b.line(line + 1)[:character]
    value = _VALUE_AT.match(before)
    if value:
        return [
            types.CompletionItem(v, kind=types.CompletionItemKind.EnumMember)
            for v in VALUES[value.group(1)]
        ]
    mention = _MENTION_AT.search(before)
    if mention:
        return _mentions(b)
    start = _LINE_START.match(before)
    if start:
        return _markers() + [_comment_snippet(author, snippets)]
    return []


def _mentions(b: Buffer) -> list[types.CompletionItem]:
    """Participants (alias, with name and role) and the people who have commented."""
    ws = b.discussion.workspace
    items: list[types.CompletionItem] = []
    seen: set[str] = set()
    in_discussion = set(b.discussion.participants)
    for p in ws.participants:
        seen.add(p.alias)
        items.append(
            types.CompletionItem(
                p.alias,
                kind=types.CompletionItemKind.Reference,
                detail=f"{p.name} · {p.role}" if p.role else p.name,
                sort_text=("0" if p.alias in in_discussion else "1") + p.alias,
                filter_text=f"{p.alias} {p.name}",
            )
        )
    registry = ws.participants
    for c in b.discussion.comments:
        if registry.for_author(c.author) is not None:
            continue
        alias = registry.author_alias(c.author)
        if alias not in seen:
            seen.add(alias)
            items.append(
                types.CompletionItem(
                    alias,
                    kind=types.CompletionItemKind.Reference,
                    detail=f"{c.author} (commented)",
                    sort_text="2" + alias,
                )
            )
    return items


def _markers() -> list[types.CompletionItem]:
    return [
        types.CompletionItem(
            f"{kind}:",
            kind=types.CompletionItemKind.Keyword,
            detail=MARKER_HELP.get(kind, "a marker the state is read from"),
            insert_text=f"{kind}: ",
        )
        for kind in MARKER_KINDS
    ]


def _comment_snippet(author: str, snippets: bool) -> types.CompletionItem:
    text = f"---\n\nName: {author}\n\n"
    return types.CompletionItem(
        "--- Name:",
        kind=types.CompletionItemKind.Snippet,
        detail=f"a new comment by {author}",
        insert_text=text + "$0" if snippets else text,
        insert_text_format=(
            types.InsertTextFormat.Snippet if snippets else types.InsertTextFormat.PlainText
        ),
    )
