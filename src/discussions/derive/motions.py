"""Motions, seconds, ballots and passes, read back from the file (the council).

Two derive rules (see `derive.RULES`), pure like the others:

* `rule_passes`: each ``<!-- PASS: name | provider: P -->`` engine block (a participant had
  nothing to add; the provider field is absent in older files).
* `rule_motions`: ``MOTION: text`` lines (from anyone who votes), then ``SECOND: yes|no`` and
  ``BALLOT: YES|NO|ABSTAIN`` lines, each belonging to the latest motion before it; and
  ``<!-- MOTION-RESULT: ... | line: n -->`` engine blocks that record how motion ``n`` ended.

A motion is ``open`` until it is seconded by someone other than its proposer and balloted on,
or lapses. Without an engine record the rule decides by itself, so a motion driven entirely by
hand-written markers ends too: it lapses when every other required voter wrote ``SECOND: no``,
and it is counted when every required voter has a ballot. Required voters are the discussion's
voting participants and the people named in ``consensus.human_required`` (a list of names):
the council. Only the council seconds and casts ballots that count (names compared ignoring
case); a ``SECOND:`` or ``BALLOT:`` from anyone else is reported and kept in `Motion.not_counted`.
A motion made while another is open supersedes it (the earlier one lapses). A passed motion is
a decision of the discussion. The count (`tally`) is arithmetic in code, never a model's word:
YES must be strictly more than ``majority_threshold`` (per phase, default 0.5) of the ballots
that count; ABSTAIN is left out, or counts as NO with ``abstain_counts_as_no``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..syntax.markers import BALLOTS, Marker, normalise_ballot, normalise_second
from ..syntax.meta import engine_fields
from ..syntax.record import Record
from .speakers import council_seat

if TYPE_CHECKING:
    from collections.abc import Callable

    from .state import Item, State

_NOT_ON_COUNCIL = (
    "{what} from {author}, who is not on the council (the discussion's voting participants "
    "and the people in consensus.human_required); not counted"
)
RESULTS = ("open", "lapsed", "passed", "failed")


class Motion(Record):
    """A motion and what became of it."""

    __slots__ = (
        "text",
        "by",
        "line",
        "phase",
        "seconded_by",
        "declined_by",
        "ballots",
        "ballot_lines",
        "not_counted",
        "ballot_comments",
        "result",
        "counts",
        "result_line",
        "recorded",
    )
    text: str
    """What is moved (the text after ``MOTION:``)."""
    by: str
    """Who moved it."""
    line: int
    """Line of the ``MOTION:`` line."""
    phase: str
    """The phase it was moved in (its thresholds apply)."""
    seconded_by: list[str]
    """Who seconded it (``SECOND: yes``), the proposer excepted."""
    declined_by: list[str]
    """Who declined to second it (``SECOND: no``)."""
    ballots: dict[str, str]
    """Each voter's ballot: YES, NO or ABSTAIN (the latest counts)."""
    ballot_lines: list[int]
    """Lines of the ballots that count."""
    not_counted: dict[str, str]
    """Ballots from authors who are not on the council: recorded, never counted."""
    ballot_comments: list[int]
    """``Name:`` lines of the comments that carry a ballot on it, counted or not (sealed from
    other participants' prompts until the result is recorded, see `visibility`)."""
    result: str
    """``open``, ``lapsed``, ``passed`` or ``failed``."""
    counts: dict[str, int]
    """YES / NO / ABSTAIN counts of a counted motion."""
    result_line: int
    """Where it ended: the engine's record, or the line that completed it."""
    recorded: bool
    """Whether the engine recorded the result (a MOTION-RESULT block)."""

    def __init__(
        self,
        text: str,
        by: str,
        line: int,
        phase: str = "",
        seconded_by: list[str] | None = None,
        declined_by: list[str] | None = None,
        ballots: dict[str, str] | None = None,
        ballot_lines: list[int] | None = None,
        not_counted: dict[str, str] | None = None,
        ballot_comments: list[int] | None = None,
        result: str = "open",
        counts: dict[str, int] | None = None,
        result_line: int = 0,
        recorded: bool = False,
    ) -> None:
        self.text = text
        self.by = by
        self.line = line
        self.phase = phase
        self.seconded_by = [] if seconded_by is None else seconded_by
        self.declined_by = [] if declined_by is None else declined_by
        self.ballots = {} if ballots is None else ballots
        self.ballot_lines = [] if ballot_lines is None else ballot_lines
        self.not_counted = {} if not_counted is None else not_counted
        self.ballot_comments = [] if ballot_comments is None else ballot_comments
        self.result = result
        self.counts = {} if counts is None else counts
        self.result_line = result_line
        self.recorded = recorded

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "by": self.by,
            "line": self.line,
            "phase": self.phase,
            "seconded_by": list(self.seconded_by),
            "ballots": dict(self.ballots),
            "not_counted": dict(self.not_counted),
            "result": self.result,
            "counts": dict(self.counts),
            "result_line": self.result_line,
        }


def tally(
    ballots: dict[str, str], threshold: float = 0.5, abstain_counts_as_no: bool = False
) -> tuple[str, dict[str, int]]:
    """``passed`` or ``failed``, and the counts. YES must be strictly more than `threshold` of
    the ballots that count (two-decimal precision); no ballot that counts: failed."""
    counts = {b: 0 for b in BALLOTS}
    for choice in ballots.values():
        if choice in counts:
            counts[choice] += 1
    total = counts["YES"] + counts["NO"] + (counts["ABSTAIN"] if abstain_counts_as_no else 0)
    passed = total > 0 and counts["YES"] * 100 > round(threshold * 100) * total
    return ("passed" if passed else "failed"), counts


def _required_voters(s: State) -> list[str]:
    """The council: names whose ballots a motion waits for, and the only ones that second and
    ballot: the voting participants of the discussion and the people listed in
    ``consensus.human_required``."""
    registry = s.registry
    names: list[str] = []
    for alias in s.participants:
        if alias in registry:
            p = registry.get(alias)
            if p.votes:
                names.append(p.name)
    required = s.workspace.config.section("consensus").get("human_required")
    if isinstance(required, list):
        names += [" ".join(str(n).split()) for n in required if str(n).strip()]
    return list(dict.fromkeys(names))


def thresholds(s: State, phase: str) -> tuple[float, bool]:
    info = s.template.phase(phase) if s.template else None
    if info is None:
        return 0.5, False
    return info.majority_threshold, info.abstain_counts_as_no


# --------------------------------------------------------------------------- rules


def rule_passes(s: State) -> None:
    """Each ``PASS`` block: who passed, where."""
    markers = s.doc.engine_markers
    s.passes = [(pass_fields(m.target)[0], m.line) for m in markers if m.kind == "pass"]


def pass_fields(args: str) -> tuple[str, str]:
    """A ``PASS`` marker's text -> (who passed, the provider that answered; "" when not
    recorded): ``AI-Ada | provider: mock`` -> ("AI-Ada", "mock")."""
    fields = engine_fields(args)
    return fields[""], fields.get("provider", "")


def rule_motions(s: State) -> None:
    """Motions with their seconds, ballots and results; a passed motion is a decision."""
    if not s.holds("MOTION", "SECOND", "BALLOT") and all(
        e.kind != "motion-result" for e in s.doc.engine_markers
    ):
        return  # no motion (and the comments' decisions are in file order already)
    registry = s.registry
    events: list[tuple[int, str, Marker | None, dict[str, str], int]] = []
    for c in s.comments:
        participant = registry.for_author(c.author)
        if participant is not None and not participant.votes:
            continue  # background participants neither move, second nor vote
        for m in c.markers:
            if m.kind in ("MOTION", "SECOND", "BALLOT"):
                events.append((m.line, c.author, m, {}, c.line))
    for e in s.doc.engine_markers:
        if e.kind == "motion-result":
            events.append((e.line, "", None, engine_fields(e.target), 0))
    events.sort(key=lambda ev: ev[0])
    phase_at = _phase_lines(s)
    required = _required_voters(s)
    motions: list[Motion] = []
    by_line: dict[int, Motion] = {}
    current: Motion | None = None
    for line, author, marker, fields, comment_line in events:
        if marker is None:
            _record(s, line, fields, by_line)
            continue
        if (
            marker.kind == "BALLOT"
            and current is not None
            and not current.recorded
            and comment_line not in current.ballot_comments
        ):
            current.ballot_comments.append(comment_line)
        if marker.kind == "MOTION":
            if current is not None and current.result == "open":
                current.result, current.result_line = "lapsed", line  # superseded
            current = Motion(" ".join(marker.text.split()), author, line, phase_at(line))
            motions.append(current)
            by_line[line] = current
        elif current is None or current.result != "open":
            s.warn(line, f"{marker.kind} with no open motion before it; not counted")
        else:
            (_second if marker.kind == "SECOND" else _ballot)(s, current, author, marker, required)
            _settle(s, current, required)  # complete: later markers no longer count
    for motion in motions:
        if motion.result == "passed":
            s.items["DECISION"].append(_decision(motion))
    s.items["DECISION"].sort(key=lambda item: item.line)
    s.motions = motions


def _decision(motion: Motion) -> Item:
    from .state import Item

    return Item("DECISION", motion.text, motion.by, motion.line)


def _second(s: State, motion: Motion, author: str, marker: Marker, council: list[str]) -> None:
    value = normalise_second(marker.text)
    if value is None:
        s.warn(marker.line, f"invalid second `{marker.text}` (expected yes or no); not counted")
        return
    seat = council_seat(author, council)
    if seat is None:
        s.warn(marker.line, _NOT_ON_COUNCIL.format(what="second", author=author))
        return
    if seat == (council_seat(motion.by, council) or motion.by):
        return  # the proposer's own second does not count
    for names in (motion.seconded_by, motion.declined_by):
        if seat in names:
            names.remove(seat)
    (motion.seconded_by if value == "yes" else motion.declined_by).append(seat)


def _ballot(s: State, motion: Motion, author: str, marker: Marker, council: list[str]) -> None:
    value = normalise_ballot(marker.text)
    if value is None:
        s.warn(
            marker.line,
            f"invalid ballot `{marker.text}` (expected YES, NO or ABSTAIN); not counted",
        )
        return
    if not motion.seconded_by:
        s.warn(marker.line, "ballot on a motion nobody has seconded; not counted")
        return
    seat = council_seat(author, council)
    if seat is None:
        s.warn(marker.line, _NOT_ON_COUNCIL.format(what="ballot", author=author))
        motion.not_counted.pop(author, None)
        motion.not_counted[author] = value
        return
    motion.ballots.pop(seat, None)
    motion.ballots[seat] = value
    motion.ballot_lines.append(marker.line)


def _record(s: State, line: int, fields: dict[str, str], by_line: dict[int, Motion]) -> None:
    """A MOTION-RESULT block: how the engine (or a person, by hand) closed a motion."""
    result = fields.get("", "").lower()
    target = by_line.get(_int(fields.get("line", "")))
    if target is None or result not in RESULTS[1:]:
        s.warn(line, "MOTION-RESULT names no motion before it, or no result; ignored")
        return
    if target.recorded:
        return  # recorded twice (two writers at once): the first record stands
    target.result, target.result_line, target.recorded = result, line, True
    if result != "lapsed":
        target.counts = {b: _int(fields.get(b.lower(), "0")) for b in BALLOTS}


def _settle(s: State, motion: Motion, required: list[str]) -> None:
    """What the markers alone decide about a motion nobody recorded a result for."""
    by = council_seat(motion.by, required) or motion.by
    others = [n for n in required if n != by]
    if not motion.seconded_by:
        if others and all(n in motion.declined_by for n in others):
            motion.result = "lapsed"
            motion.result_line = motion.line
        return
    if required and all(n in motion.ballots for n in required):
        threshold, as_no = thresholds(s, motion.phase)
        motion.result, motion.counts = tally(motion.ballots, threshold, as_no)
        motion.result_line = max(motion.ballot_lines)


def _phase_lines(s: State) -> Callable[[int], str]:
    """A function: line -> the phase the discussion was in at that line."""
    first = s.doc.header.get("phase") or (s.template.first_phase if s.template else "")
    changes = [(m.line, m.target) for m in s.doc.engine_markers if m.kind == "phase-transition"]

    def phase_at(line: int) -> str:
        phase = first
        for at, target in changes:
            if at > line:
                break
            phase = target
        return phase

    return phase_at


def _int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        return 0
