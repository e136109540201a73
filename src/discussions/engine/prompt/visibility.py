"""What one participant may see of a discussion in a blind or anonymous phase.

* ``blind: true``: the participant sees the discussion's context (the header and the text
  before the first comment) and its own earlier comments, and no comment by anybody else,
  person or participant, from any phase.
* ``anonymous: true``: every other author's comments are shown, signed "Participant A",
  "Participant B"... (letters by order of first appearance in the file); their names and
  ``@aliases`` in the text are replaced by the same labels, and the header's participant list
  is left out. The file keeps the real names; only the prompt changes.

Engine blocks (rounds, stops, escalations, transitions) are left out of the view: they name
participants and state their positions. Outside such phases there is no view (None) and the
prompt shows the file as it is.

In every phase, ballots are sealed (`sealed_for`): until a motion's result is recorded, each
comment that carries a ballot on it is shown to the other participants as its ``Name:`` line
and `_SEALED_BALLOT` only (a ``MOTION:`` line in it stays); its reasons, its vote, everything
else in it is left out. The participant's own comments are shown as they are.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...derive.positions import ENGINE_LINE, own_words
from ...derive.state import Comment
from ...syntax.lazyre import Lazy
from ...syntax.markers import extract
from ...syntax.record import Record
from ...syntax.text import normalise_newlines

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ...settings.participants import Participant

_SEALED_BALLOT = "*(a sealed ballot)*"
_PARTICIPANTS_HEADER = Lazy(r"^<!--[ \t]*Participants[ \t]*:.*$", re.M | re.I)


class _View(Record):
    """The discussion as one participant sees it.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("text", "comments", "labels")
    text: str
    """The text, rebuilt: context, then the visible comments."""
    comments: list[Comment]
    """The visible comments, with line numbers in `text`."""
    labels: dict[str, str]
    """Real name -> label, for the other authors (anonymous phases)."""

    def __init__(self, text: str, comments: list[Comment], labels: dict[str, str]) -> None:
        self.text = text
        self.comments = comments
        self.labels = labels


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""`string.ascii_uppercase`, without importing `string` (and its regex) before a turn's call."""


def label(n: int) -> str:
    """0 -> ``Participant A`` ... 25 -> ``Participant Z``, then ``Participant 27``..."""
    return f"Participant {_LETTERS[n] if n < 26 else n + 1}"


def view_for(d: Discussion, participant: Participant) -> _View | None:
    """The view of `d` for `participant` in its current phase; None when the phase is neither
    blind nor anonymous."""
    info = d.phase_info
    if info is None or not (info.blind or info.anonymous):
        return None
    registry = d.workspace.participants
    mine = {participant.name, participant.alias}
    comments = d.comments
    text = normalise_newlines(d.text)
    head = _context(text, comments[0].line if comments else 0)
    if info.anonymous:
        head = _PARTICIPANTS_HEADER.sub("", head)
    labels: dict[str, str] = {}
    aliases: dict[str, str] = {}
    if info.anonymous:
        others = [c.author for c in comments] + [
            registry.get(a).name for a in d.participants if a in registry
        ]
        for name in dict.fromkeys(others):
            if name not in mine:
                labels[name] = label(len(labels))
                p = registry.for_author(name)
                if p is not None:
                    aliases[p.alias] = labels[name]
    shown = [c for c in comments if c.author in mine or not info.blind]
    out = head.rstrip("\n") + "\n"
    visible: list[Comment] = []
    for c in shown:
        body = _own_body(c.body)
        author = labels.get(c.author, c.author)
        if info.anonymous:
            body = _replace_names(body, labels, aliases)
        block = f"\n---\n\nName: {author}\n\n{body}\n"
        name_line = out.count("\n") + 4
        found = extract(body, name_line + 2)
        visible.append(
            Comment(
                author=author,
                line=name_line,
                end_line=name_line + 2 + body.count("\n"),
                body=body,
                vote=found.vote,
                markers=found.markers,
                mentions=list(dict.fromkeys(m.alias for m in found.mentions)),
            )
        )
        out += block
    return _View(out, visible, labels)


def _context(text: str, first_comment_line: int) -> str:
    """The text before the first comment (without its separator and engine blocks)."""
    lines = text.split("\n")
    if first_comment_line:
        lines = lines[: first_comment_line - 1]
        while lines and lines[-1].strip() in ("", "---"):
            lines.pop()
    head = "\n".join(lines)
    cut = ENGINE_LINE.search(head)
    return head[: cut.start()] if cut else head


def _own_body(body: str) -> str:
    """A comment's own words: no engine metadata line, no engine blocks appended after it."""
    lines = own_words(normalise_newlines(body)).rstrip().split("\n")
    while lines and lines[-1].strip() in ("", "---"):
        lines.pop()
    return "\n".join(lines).strip("\n")


def _replace_names(body: str, labels: dict[str, str], aliases: dict[str, str]) -> str:
    """Other authors' names and @aliases replaced by their labels (longest names first)."""
    for name in sorted(labels, key=len, reverse=True):
        body = re.sub(rf"(?<![\w@]){re.escape(name)}(?!\w)", labels[name], body)
    for alias in sorted(aliases, key=len, reverse=True):
        body = re.sub(rf"@{re.escape(alias)}(?![\w-])", aliases[alias], body, flags=re.I)
    return body


def sealed_for(d: Discussion, participant: Participant) -> Discussion:
    """`d` as `participant` may see it: the comments of others that carry a ballot on a motion
    whose result is not recorded yet are sealed (see the module docstring), with every line
    number kept. `d` itself when there is nothing to seal."""
    if "BALLOT" not in d.text:
        return d  # no ballot anywhere (the common case): no parse needed
    sealed = {line for m in d.motions if not m.recorded for line in m.ballot_comments}
    if not sealed:
        return d
    registry = d.workspace.participants
    lines = normalise_newlines(d.text).split("\n")
    changed = False
    engine_lines = set(d.engine_marker_lines)
    for c in d.comments:
        if c.line not in sealed:
            continue
        p = registry.for_author(c.author)
        if p is not None and p.alias == participant.alias:
            continue  # one's own ballot
        _seal(lines, c, engine_lines)
        changed = True
    return d.seen_as("\n".join(lines)) if changed else d


def _seal(lines: list[str], c: Comment, engine_lines: set[int]) -> None:
    """Blank the text of comment `c` in `lines` (1-based line numbers), up to the first engine
    block the parser found after it (`engine_lines`: a line that only looks like one, typed by
    hand or inside code, is text and sealed too); keep its ``---`` lines and ``MOTION:`` lines;
    show `_SEALED_BALLOT`."""
    keep = {m.line for m in c.markers if m.kind == "MOTION"}
    blanked: list[int] = []
    for n in range(c.line + 1, min(c.end_line, len(lines)) + 1):
        text = lines[n - 1]
        if n in engine_lines:
            break
        if n in keep or text.strip() == "---":
            continue
        lines[n - 1] = ""
        blanked.append(n)
    if blanked:
        at = blanked[1] if len(blanked) > 1 and blanked[0] == c.line + 1 else blanked[0]
        lines[at - 1] = _SEALED_BALLOT
