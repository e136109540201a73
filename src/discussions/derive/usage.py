"""Tokens and cost per participant and per discussion, read back from the file.

Every AI answer carries the engine's metadata line; `Runner` writes what the provider
reported into it (``tokens: 1200 in / 300 out | cost: $0.004100``) or ``unknown``. Totals are
sums of what was reported: a call whose tokens were not reported counts in ``unknown_calls``
and adds nothing; a call whose cost was not reported counts in ``cost_unknown_calls``. The
built-in mock costs nothing and is counted as zero. A pass (an AI that had nothing to add)
records its call the same way, ``<!-- PASS: name | provider: ... | tokens: ... | cost: ... -->``;
a ``PASS`` block without them counts as a call of unknown usage.

One rule, `rule_usage`, fills `State.usage` (`Discussion.usage`); budgets, checked against
these totals, are in `model.budget`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import NOT_A_CALL
from ..syntax.record import Record

if TYPE_CHECKING:
    from .state import State

_TOKENS = re.compile(r"^(\d+) in / (\d+) out$")
_COST = re.compile(r"^\$(\d+(?:\.\d+)?)$")


class UsageTotals(Record):
    """Sums over AI calls recorded in a discussion."""

    __slots__ = (
        "calls",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "unknown_calls",
        "cost_unknown_calls",
        "largest_cost_usd",
        "largest_tokens",
        "failed_calls",
    )
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    unknown_calls: int
    """Calls whose token counts were not reported (they add nothing to the token sums)."""
    cost_unknown_calls: int
    """Calls whose cost was not reported (they add nothing to `cost_usd`)."""
    largest_cost_usd: float | None
    """The largest cost one call reported (None: no call reported a cost)."""
    largest_tokens: int | None
    """The most tokens (in + out) one call reported (None: no call reported tokens)."""
    failed_calls: int
    """Calls that gave no answer (``FAILED`` blocks, and the ``failed:`` entries of answers
    that came after a failure); they add nothing to the other figures."""

    def __init__(
        self,
        calls: int = 0,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost_usd: float = 0.0,
        unknown_calls: int = 0,
        cost_unknown_calls: int = 0,
        largest_cost_usd: float | None = None,
        largest_tokens: int | None = None,
        failed_calls: int = 0,
    ) -> None:
        self.calls = calls
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cost_usd = cost_usd
        self.unknown_calls = unknown_calls
        self.cost_unknown_calls = cost_unknown_calls
        self.largest_cost_usd = largest_cost_usd
        self.largest_tokens = largest_tokens
        self.failed_calls = failed_calls

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add_meta(self, meta: dict[str, str]) -> None:
        """Count one AI call from its comment's metadata (two with a ``follow-up``: the
        reported figures cover both), and the failed calls before it."""
        self.add_call(_Call(meta))

    def add_call(self, call: _Call) -> None:
        """`add_meta` of the metadata `call` was read from (read once for every total it
        counts in: the discussion's, its participant's, its provider's)."""
        n = call.n
        self.calls += n
        self.failed_calls += call.failed
        if call.mock:  # the built-in mock: no tokens, no cost
            self._largest(0.0, 0)
            return
        if call.tokens is not None:
            n_in, n_out = call.tokens
            self.input_tokens += n_in
            self.output_tokens += n_out
            self._largest(None, n_in + n_out)
        else:
            self.unknown_calls += n
        if call.cost is not None:
            self.cost_usd += call.cost
            self._largest(call.cost, None)
        else:
            self.cost_unknown_calls += n

    def _largest(self, cost: float | None, tokens: int | None) -> None:
        if cost is not None:
            self.largest_cost_usd = max(cost, self.largest_cost_usd or 0.0)
        if tokens is not None:
            self.largest_tokens = max(tokens, self.largest_tokens or 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "unknown_calls": self.unknown_calls,
            "calls": self.calls,
            "cost_unknown_calls": self.cost_unknown_calls,
            "failed_calls": self.failed_calls,
            "tokens_known": _known(self.calls, self.unknown_calls),
            "cost_known": _known(self.calls, self.cost_unknown_calls),
        }

    def text(self) -> str:
        """``3 call(s), tokens unknown, cost unknown``; figures only some calls reported are
        said to be partial, never shown as if they were the whole."""
        if not self.calls:
            return f"no answers, {self.failed_calls} failed call(s)"
        parts = [f"{self.calls} call(s)"]
        tokens = f"{self.input_tokens} tokens in / {self.output_tokens} out"
        cost = f"${self.cost_usd:.4f}"
        parts.append(_figure(tokens, "tokens", self.calls, self.unknown_calls, "token counts"))
        parts.append(_figure(cost, "cost", self.calls, self.cost_unknown_calls, "cost"))
        if self.failed_calls:
            parts.append(f"{self.failed_calls} failed call(s) without an answer")
        return ", ".join(parts)


class _Call:
    """What one AI call's metadata says for the totals (`UsageTotals.add_meta`)."""

    __slots__ = ("n", "failed", "mock", "tokens", "cost")

    def __init__(self, meta: dict[str, str]) -> None:
        self.n = 2 if "follow-up" in meta else 1
        self.failed = _failed_entries(meta.get("failed", ""))
        self.mock = meta.get("provider") == "mock"
        tokens = _TOKENS.match(meta.get("tokens", ""))
        self.tokens = (int(tokens.group(1)), int(tokens.group(2))) if tokens else None
        cost = _COST.match(meta.get("cost", ""))
        self.cost = float(cost.group(1)) if cost else None


def _figure(value: str, what: str, calls: int, unknown: int, missing: str) -> str:
    """A total as far as it is known: all, partial (at least), or unknown."""
    if unknown and unknown >= calls:
        return f"{what} unknown"
    if unknown:
        return f"at least {value} (partial: {unknown} call(s) without {missing})"
    return value


def _known(calls: int, unknown: int) -> str:
    return "none" if calls and unknown >= calls else "partial" if unknown else "all"


def _failed_entries(value: str) -> int:
    """How many calls a ``failed:`` metadata field records (providers not installed left
    out): ``a (exited with status 1); b (not installed: ...)`` -> 1."""
    entries = [e.strip() for e in value.split("; ") if e.strip()]
    return sum(1 for e in entries if not e.partition("(")[2].startswith(NOT_A_CALL))


class DiscussionUsage(Record):
    """Usage of a whole discussion and per participant (by display name)."""

    __slots__ = ("total", "by_participant", "by_provider")
    total: UsageTotals
    by_participant: dict[str, UsageTotals]
    by_provider: dict[str, UsageTotals]
    """By the provider that answered (the ``provider`` of the metadata line)."""

    def __init__(
        self,
        total: UsageTotals | None = None,
        by_participant: dict[str, UsageTotals] | None = None,
        by_provider: dict[str, UsageTotals] | None = None,
    ) -> None:
        self.total = UsageTotals() if total is None else total
        self.by_participant = {} if by_participant is None else by_participant
        self.by_provider = {} if by_provider is None else by_provider

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.total.to_dict(),
            "participants": {n: t.to_dict() for n, t in self.by_participant.items()},
        }


def rule_usage(s: State) -> None:
    """`State.usage`: the totals over the comments that carry the engine's metadata (AI
    answers), the ``PASS`` blocks (calls whose answer was a pass) and the ``FAILED`` ones."""
    result = s.usage
    for c in s.comments:
        if "provider" not in c.meta:
            continue
        call = _Call(c.meta)
        result.total.add_call(call)
        result.by_participant.setdefault(c.author, UsageTotals()).add_call(call)
        result.by_provider.setdefault(c.meta["provider"], UsageTotals()).add_call(call)
    for by, fields in s.engine_blocks("pass"):  # an AI call whose answer was a pass
        meta = fields if "provider" in fields else _PASS
        result.total.add_meta(meta)
        result.by_participant.setdefault(by, UsageTotals()).add_meta(meta)
        if "provider" in fields:
            result.by_provider.setdefault(fields["provider"], UsageTotals()).add_meta(fields)
    for by, fields in s.engine_blocks("failed"):  # no provider answered a participant
        n = int(fields["calls"]) if fields.get("calls", "").isdigit() else 1
        result.total.failed_calls += n
        result.by_participant.setdefault(by, UsageTotals()).failed_calls += n


_PASS = {"provider": "(pass)"}
"""A ``PASS`` block without its call's provider and usage (as written before they were
recorded) counts as a call of unknown usage."""
