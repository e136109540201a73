"""Every kind of record a discussion file holds, declared once: the engine's blocks
(``<!-- ROUND: ... -->``) and the markers people and participants write (``VOTE:``,
``DECISION:``). The parser's patterns, the marker reader, the merge's kind classes and the
state's item lists are built from these two tables; the rule that reads a kind (`reader`)
lives in `derive`.

Adding a kind is one line here and one rule in `derive.rules.RULES`. (A slotted `Record`,
not a dataclass: the merge driver imports this at start-up.)
"""

from __future__ import annotations

from .record import Record

_MOVE = "move"
"""An engine block that moves the discussion: ``a -> b`` (``→`` and ``=>`` too)."""
VALUE = "value"
"""An engine block whose arguments are kept whole (``n | key: value | ...``)."""
MOVE_OR_VALUE = "move-or-value"
"""``a -> b``, or a bare value (a status change written with its target only)."""

STATE = "state"
"""A block that changes phase or status: the merge keeps the sides' moves in one order and
ends a phase segment at it (`git.units`)."""
_BLOCK = "block"
"""A block merged like a comment: a unit of its own, placed by when it was written."""


class EngineKind(Record):
    """One kind of engine block: `name` as written (``PHASE-TRANSITION``), its `form` (how
    the parser reads its arguments: `_MOVE`, `VALUE`, `MOVE_OR_VALUE`), how the merge driver
    treats it (`merges`: `STATE` or `_BLOCK`), and the name of the `derive` rule that reads it
    (`reader`; a rule loaded only for files holding such a block asks by that name; empty:
    kept for people, read by no rule), and what it records, for a reader (`says`, with
    ``{args}`` for its arguments: an editor's hover)."""

    __slots__ = ("name", "form", "merges", "reader", "says")

    def __init__(self, name: str, form: str, merges: str, reader: str, says: str) -> None:
        self.name, self.form, self.merges, self.reader = name, form, merges, reader
        self.says = says

    @property
    def kind(self) -> str:
        """The name as `EngineMarker.kind` holds it (``phase-transition``)."""
        return self.name.lower()


ENGINE_KINDS: tuple[EngineKind, ...] = (
    EngineKind(
        "PHASE-TRANSITION",
        _MOVE,
        STATE,
        "engine_markers",
        "The phase changed here ({args}); votes cast before it no longer count.",
    ),
    EngineKind(
        "VOTE-RESET",
        VALUE,
        STATE,
        "engine_markers",
        "Votes restart here: only votes after this line count in phase {args}.",
    ),
    EngineKind(
        "STATUS-CHANGE",
        MOVE_OR_VALUE,
        STATE,
        "engine_markers",
        "The discussion's status changed here ({args}).",
    ),
    EngineKind("ROUND", VALUE, _BLOCK, "runs", "A round of a run started here: {args}."),
    EngineKind("RUN-STOP", VALUE, _BLOCK, "runs", "A run stopped here: {args}."),
    EngineKind("ESCALATION", VALUE, _BLOCK, "runs", "A run asked a person to step in: {args}."),
    EngineKind("FALLBACK", VALUE, _BLOCK, "", "The chair fell back to a plan of its own: {args}."),
    EngineKind("PASS", VALUE, _BLOCK, "passes", "A participant had nothing to add: {args}."),
    EngineKind(
        "MOTION-RESULT", VALUE, _BLOCK, "motions", "The council's motion was settled: {args}."
    ),
    EngineKind("FAILED", VALUE, _BLOCK, "usage", "No provider of a participant answered: {args}."),
    EngineKind(
        "EVIDENCE",
        VALUE,
        _BLOCK,
        "evidence",
        "What a participant was shown from the repository: {args}.",
    ),
    EngineKind(
        "CONTRARIAN",
        VALUE,
        _BLOCK,
        "contrarian",
        "Agreement came too fast; the contrarian was asked for the case against: {args}.",
    ),
    EngineKind("DRAFT", VALUE, _BLOCK, "drafts", "A documentation loop's draft: {args}."),
    EngineKind("APPLY", VALUE, _BLOCK, "applies", "A decision carried into code: {args}."),
    EngineKind(
        "APPLY-REVIEW",
        VALUE,
        _BLOCK,
        "applies",
        "The council's review of an applied change: {args}.",
    ),
    EngineKind(
        "RETRIAL",
        VALUE,
        _BLOCK,
        "retrials",
        "The first ballot asked again of another provider or model: {args}.",
    ),
    EngineKind(
        "CHOICE",
        VALUE,
        _BLOCK,
        "choices",
        "What a person chose after the consensus (the King's Choice): {args}.",
    ),
    EngineKind(
        "RECHECK",
        VALUE,
        _BLOCK,
        "rechecks",
        "The council's recheck of the code a decision governs, as it is now: {args}.",
    ),
)

ENGINE_BY_KIND: dict[str, EngineKind] = {k.kind: k for k in ENGINE_KINDS}
"""The engine kinds by `EngineMarker.kind` (``phase-transition``)."""


def engine_kinds(merges: str | None = None, reader: str | None = None) -> tuple[str, ...]:
    """The `EngineMarker.kind` names of the kinds that merge as `merges` and are read by
    `reader` (either left out: any)."""
    return tuple(
        k.kind
        for k in ENGINE_KINDS
        if (merges is None or k.merges == merges) and (reader is None or k.reader == reader)
    )


def alternation(names: tuple[str, ...] | list[str]) -> str:
    """A regex alternation of `names` in their order, except that a name comes after every
    longer name it starts (``APPLY-REVIEW`` before ``APPLY``), so none is taken for the start
    of a longer one. (The tables list the common kinds first: they are tried first.)"""
    starts = [sum(1 for other in names if other != n and other.startswith(n)) for n in names]
    return "|".join(n for _, n in sorted(zip(starts, names, strict=True), key=lambda p: p[0]))


ITEM = "item"
"""A marker whose lines are collected as items of the state (`State.items`)."""
VOTE = "vote"
"""The vote: its value is checked and normalised where it is read (`markers`)."""
_OTHER = "other"
"""A marker read by the rule that needs it (scores, motions, notes, ...)."""


class MarkerKind(Record):
    """One marker a comment's line can start with (``DECISION:``): its `name` and its `role`
    (`ITEM`, `VOTE`, `_OTHER`)."""

    __slots__ = ("name", "role")

    def __init__(self, name: str, role: str = _OTHER) -> None:
        self.name, self.role = name, role


MARKER_KINDS_TABLE: tuple[MarkerKind, ...] = (
    MarkerKind("VOTE", VOTE),
    MarkerKind("Q", ITEM),
    MarkerKind("TODO", ITEM),
    MarkerKind("DECISION", ITEM),
    MarkerKind("ASSIGNED", ITEM),
    MarkerKind("DONE", ITEM),
    MarkerKind("CONCERN", ITEM),
    MarkerKind("SCORE"),
    MarkerKind("PENDING"),
    MarkerKind("MOTION"),
    MarkerKind("SECOND"),
    MarkerKind("BALLOT"),
    MarkerKind("ROOT-CAUSE"),
    MarkerKind("CONFIDENCE"),
    MarkerKind("EVIDENCE"),
    MarkerKind("REMEMBER"),
    MarkerKind("REVISIT-WHEN"),
    MarkerKind("GOVERNS"),
    MarkerKind("OUTCOME"),
)

MARKER_KINDS: tuple[str, ...] = tuple(k.name for k in MARKER_KINDS_TABLE)
"""Every marker's name, in the table's order (what an editor offers to complete)."""

ITEM_KINDS: tuple[str, ...] = tuple(k.name for k in MARKER_KINDS_TABLE if k.role == ITEM)
"""The markers whose lines are items of the state: ``Q``, ``TODO``, ``DECISION``..."""
