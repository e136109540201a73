"""Consensus: pure arithmetic over the current votes.

Thresholds are fractions written to two decimal places, and compared that way: 0.67 is met by
two thirds (0.666... rounds to 0.67). ``threshold_reject`` defaults to 0.01, so one REJECT among
up to a hundred voters blocks.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..settings.config import VotingConfig
from ..syntax.record import Record

VOTES = ("READY", "CHANGES", "REJECT")
_HALF_POINT = 0.005  # thresholds are compared at two-decimal precision


class ConsensusResult(Record):
    """The outcome of counting votes."""

    __slots__ = (
        "reached", "outcome", "blocked_by", "counts", "reason", "waiting_for", "abstained",
        "excluded", "independent_sources",
    )  # fmt: skip

    reached: bool
    """Whether consensus is reached."""
    outcome: str | None
    """READY, CHANGES or REJECT: where the vote stands; None without votes."""
    blocked_by: list[str]
    """Voters standing in the way: REJECT voters when they block, else CHANGES voters."""
    counts: dict[str, int]
    """Votes per value."""
    reason: str
    """One line saying why."""
    waiting_for: list[str]
    """Expected voters who have not voted yet (they count as not READY)."""
    abstained: list[str]
    """Failed seats counted as abstentions (``consensus.failed_seats: abstain``): not READY."""
    excluded: list[str]
    """Failed seats left out of the total (``consensus.failed_seats: exclude``)."""
    independent_sources: int | None
    """How many independent sources the READY votes come from (`quorum`); None: not known."""

    def __init__(
        self,
        reached: bool,
        outcome: str | None,
        blocked_by: list[str] | None = None,
        counts: dict[str, int] | None = None,
        reason: str = "",
        waiting_for: list[str] | None = None,
        abstained: list[str] | None = None,
        excluded: list[str] | None = None,
        independent_sources: int | None = None,
    ) -> None:
        self.reached = reached
        self.outcome = outcome
        self.blocked_by = [] if blocked_by is None else blocked_by
        self.counts = {} if counts is None else counts
        self.reason = reason
        self.waiting_for = [] if waiting_for is None else waiting_for
        self.abstained = [] if abstained is None else abstained
        self.excluded = [] if excluded is None else excluded
        self.independent_sources = independent_sources

    @property
    def summary(self) -> str:
        """Where the vote stands in a few words: ``reached: READY``, ``CHANGES, not reached``,
        ``no votes`` (the lists of the terminal app and the web view show it)."""
        if self.reached:
            return f"reached: {self.outcome}"
        if self.outcome is None:
            return "no votes"
        return f"{self.outcome}, not reached"

    def to_dict(self) -> dict[str, object]:
        return {
            "reached": self.reached,
            "outcome": self.outcome,
            "blocked_by": list(self.blocked_by),
            "counts": dict(self.counts),
            "reason": self.reason,
            "waiting_for": list(self.waiting_for),
            "abstained": list(self.abstained),
            "excluded": list(self.excluded),
            "independent_sources": self.independent_sources,
        }


def _meets(part: int, total: int, threshold: float) -> bool:
    return total > 0 and part / total >= threshold - _HALF_POINT


def calculate_consensus(
    votes: Mapping[str, str],
    config: VotingConfig | None = None,
    *,
    humans: Collection[str] = (),
    expected: Collection[str] = (),
    failed: Collection[str] = (),
    ready_sources: int | None = None,
) -> ConsensusResult:
    """Count `votes` (voter -> READY/CHANGES/REJECT) under `config`.

    `humans` names the voters who are people; it matters only with ``human_required``.
    `expected` names voters who should vote (a discussion's voting participants): those who
    have not voted yet count towards the total as not READY, so one early READY is not
    consensus. `failed` names seats whose call failed (`quorum`): abstentions in the total,
    or left out with ``failed_seats: exclude``. `ready_sources` is how many independent
    sources the READY votes come from: below ``distinct_providers``, no consensus.
    """
    config = config or VotingConfig()
    result = _count(votes, config, expected, failed)
    result.independent_sources = ready_sources
    counts = result.counts
    total = sum(counts.values()) + len(result.waiting_for) + len(result.abstained)
    if sum(counts.values()) == 0:
        return result
    rejecters = [who for who, v in votes.items() if v == "REJECT"]
    if rejecters and _meets(len(rejecters), total, config.threshold_reject):
        return _settle(
            result, False, "REJECT", rejecters, "blocked by REJECT from " + ", ".join(rejecters)
        )
    if not _meets(counts["READY"], total, config.threshold_ready):
        holders = [who for who, v in votes.items() if v != "READY"]
        reason = f"{counts['READY']} of {total} READY, below threshold {config.threshold_ready:.2f}"
        reason += _absent(result)
        return _settle(result, False, "CHANGES" if holders else "READY", holders, reason)
    short = _too_few_sources(counts["READY"], ready_sources, config.distinct_providers)
    if short:
        return _settle(result, False, "READY", [], short)
    if config.human_required and not any(votes.get(h) == "READY" for h in humans):
        return _settle(
            result, False, "READY", [], "READY threshold met; waiting for a human READY vote"
        )
    reason = f"{counts['READY']} of {total} READY (threshold {config.threshold_ready:.2f})"
    return _settle(result, True, "READY", [], reason + _absent(result, waiting=False))


def _count(
    votes: Mapping[str, str],
    config: VotingConfig,
    expected: Collection[str],
    failed: Collection[str],
) -> ConsensusResult:
    """The counts, who is waited for and the failed seats (abstaining or excluded): the result
    as it stands without votes."""
    counts = {v: 0 for v in VOTES}
    for value in votes.values():
        if value in counts:
            counts[value] += 1
    dead = [f for f in dict.fromkeys(failed) if f not in votes]
    waiting = [e for e in expected if e not in votes and e not in dead]
    result = ConsensusResult(False, None, [], counts, "no votes yet", waiting)
    if config.failed_seats == "exclude":
        result.excluded = dead
    else:
        result.abstained = dead
    return result


def _settle(
    result: ConsensusResult, reached: bool, outcome: str, blocked_by: list[str], reason: str
) -> ConsensusResult:
    result.reached, result.outcome, result.reason = reached, outcome, reason
    result.blocked_by = blocked_by
    return result


def _absent(result: ConsensusResult, *, waiting: bool = True) -> str:
    """``; not voted yet: X; failed, abstaining: Y; failed, left out: Z``: who is missing."""
    parts = []
    if waiting and result.waiting_for:
        parts.append("not voted yet: " + ", ".join(result.waiting_for))
    if result.abstained:
        parts.append("failed, abstaining: " + ", ".join(result.abstained))
    if result.excluded:
        parts.append("failed, left out: " + ", ".join(result.excluded))
    return "".join("; " + p for p in parts)


def _too_few_sources(ready: int, sources: int | None, required: int) -> str:
    """Why `ready` READY votes from `sources` independent sources fall short of `required`
    (``consensus.distinct_providers``); "" when they do not."""
    if required <= 0 or (sources is not None and sources >= required):
        return ""
    got = "an unknown number of" if sources is None else str(sources)
    return (
        f"READY threshold met, but {ready} READY from {got} independent source(s); "
        f"consensus.distinct_providers needs {required}"
    )


def score_consensus(
    scores: Mapping[str, int],
    pending: Mapping[str, Collection[str]],
    *,
    expected: Collection[str],
    threshold: int = 9,
    humans: Collection[str] = (),
    human_required: bool = False,
) -> ConsensusResult:
    """Consensus by scores (TheRoundtAIble): every expected participant, and everyone else who
    scored, has a score at or above `threshold` and no pending issue. A participant with no
    score is not agreeing (never counted as absent), so one high score among silent peers is
    not consensus."""
    voters = list(dict.fromkeys([*expected, *scores]))
    waiting = [who for who in voters if who not in scores]
    low = [who for who in voters if who in scores and scores[who] < threshold]
    open_issues = [who for who in voters if pending.get(who)]
    counts = {"agree": len(voters) - len(set(waiting) | set(low) | set(open_issues))}
    counts["scored"] = len(scores)
    if not scores:
        return ConsensusResult(False, None, [], counts, "no scores yet", waiting)
    blockers = list(dict.fromkeys([*low, *open_issues]))
    if waiting or blockers:
        parts = []
        if low:
            parts.append("below " + str(threshold) + ": " + ", ".join(low))
        if open_issues:
            parts.append("pending issues from " + ", ".join(open_issues))
        if waiting:
            parts.append("no score yet: " + ", ".join(waiting))
        return ConsensusResult(False, "CHANGES", blockers, counts, "; ".join(parts), waiting)
    if human_required and not any(h in scores for h in humans):
        return ConsensusResult(
            False,
            "READY",
            [],
            counts,
            "every score meets the threshold; waiting for a human score",
            waiting,
        )
    return ConsensusResult(
        True,
        "READY",
        [],
        counts,
        f"all {len(voters)} scored {threshold} or more with no pending issues",
        waiting,
    )
