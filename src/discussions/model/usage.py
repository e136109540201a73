"""Tokens and cost per participant and per discussion, read back from the file; budgets.

Every AI answer carries the engine's metadata line; `Runner` writes what the provider
reported into it (``tokens: 1200 in / 300 out | cost: $0.004100``) or ``unknown``. Totals are
sums of what was reported: a call whose tokens were not reported counts in ``unknown_calls``
and adds nothing; a call whose cost was not reported counts in ``cost_unknown_calls``. The
built-in mock costs nothing and is counted as zero. A pass (an AI that had nothing to add)
records its call the same way, ``<!-- PASS: name | provider: ... | tokens: ... | cost: ... -->``;
a ``PASS`` block without them counts as a call of unknown usage.

A budget (``budget:`` in discussions.yaml; ``run --max-cost/--max-calls``) is checked before
each call: the turn or run stops before a call that would go past it, and the engine records
why in the file (``RUN-STOP: budget``). For cost and tokens "would go past it" rests on the
evidence in the file: a call is estimated at the largest one seen in this discussion from the
providers that may answer it (`estimate_call`), and the calls started together in a parallel
turn are counted together. A provider never seen costs what the largest call of any provider
cost; with no reported figure at all, nothing can be estimated and the call is made.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:
    from .discussion import Discussion

_TOKENS = re.compile(r"^(\d+) in / (\d+) out$")
_COST = re.compile(r"^\$(\d+(?:\.\d+)?)$")


@dataclass(slots=True)
class UsageTotals:
    """Sums over AI calls recorded in a discussion."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unknown_calls: int = 0
    """Calls whose token counts were not reported (they add nothing to the token sums)."""
    cost_unknown_calls: int = 0
    """Calls whose cost was not reported (they add nothing to `cost_usd`)."""
    largest_cost_usd: float | None = None
    """The largest cost one call reported (None: no call reported a cost)."""
    largest_tokens: int | None = None
    """The most tokens (in + out) one call reported (None: no call reported tokens)."""

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add_meta(self, meta: dict[str, str]) -> None:
        """Count one AI call from its comment's metadata."""
        self.calls += 1
        if meta.get("provider") == "mock":  # the built-in mock: no tokens, no cost
            self._largest(0.0, 0)
            return
        tokens = _TOKENS.match(meta.get("tokens", ""))
        if tokens:
            n_in, n_out = int(tokens.group(1)), int(tokens.group(2))
            self.input_tokens += n_in
            self.output_tokens += n_out
            self._largest(None, n_in + n_out)
        else:
            self.unknown_calls += 1
        cost = _COST.match(meta.get("cost", ""))
        if cost:
            self.cost_usd += float(cost.group(1))
            self._largest(float(cost.group(1)), None)
        else:
            self.cost_unknown_calls += 1

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
        }

    def text(self) -> str:
        parts = [
            f"{self.calls} call(s)",
            f"{self.input_tokens} tokens in / {self.output_tokens} out",
            f"${self.cost_usd:.4f}",
        ]
        unknown = []
        if self.unknown_calls:
            unknown.append(f"{self.unknown_calls} without token counts")
        if self.cost_unknown_calls:
            unknown.append(f"{self.cost_unknown_calls} without cost")
        return ", ".join(parts) + (f" (unknown: {'; '.join(unknown)})" if unknown else "")


@dataclass(slots=True)
class DiscussionUsage:
    """Usage of a whole discussion and per participant (by display name)."""

    total: UsageTotals = field(default_factory=UsageTotals)
    by_participant: dict[str, UsageTotals] = field(default_factory=dict)
    by_provider: dict[str, UsageTotals] = field(default_factory=dict)
    """By the provider that answered (the ``provider`` of the metadata line)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.total.to_dict(),
            "participants": {n: t.to_dict() for n, t in self.by_participant.items()},
        }


def discussion_usage(d: Discussion) -> DiscussionUsage:
    """Totals over the comments that carry the engine's metadata (AI answers)."""
    result = DiscussionUsage()
    for c in d.comments:
        if "provider" not in c.meta:
            continue
        result.total.add_meta(c.meta)
        result.by_participant.setdefault(c.author, UsageTotals()).add_meta(c.meta)
        result.by_provider.setdefault(c.meta["provider"], UsageTotals()).add_meta(c.meta)
    for by, fields in d.pass_calls:  # an AI call whose answer was a pass
        meta = fields if "provider" in fields else _PASS
        result.total.add_meta(meta)
        result.by_participant.setdefault(by, UsageTotals()).add_meta(meta)
        if "provider" in fields:
            result.by_provider.setdefault(fields["provider"], UsageTotals()).add_meta(fields)
    return result


_PASS = {"provider": "(pass)"}
"""A ``PASS`` block without its call's provider and usage (as written before they were
recorded) counts as a call of unknown usage."""


# --------------------------------------------------------------------------- budgets


@dataclass(slots=True, frozen=True)
class Budget:
    """Limits for a discussion; None: no limit."""

    max_cost_usd: float | None = None
    max_tokens: int | None = None
    max_calls: int | None = None

    @property
    def empty(self) -> bool:
        return self.max_cost_usd is None and self.max_tokens is None and self.max_calls is None

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> Budget:
        def number(key: str, kind: type) -> Any:
            value = section.get(key)
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(f"discussions.yaml: key 'budget.{key}' must be a number >= 0")
            if kind is int and not isinstance(value, int):
                raise ConfigError(f"discussions.yaml: key 'budget.{key}' must be a whole number")
            return kind(value)

        return cls(
            number("max_cost_usd", float), number("max_tokens", int), number("max_calls", int)
        )

    def merged(self, max_cost_usd: float | None, max_calls: int | None) -> Budget:
        """This budget with the command line's limits in place of the configured ones."""
        return Budget(
            max_cost_usd if max_cost_usd is not None else self.max_cost_usd,
            self.max_tokens,
            max_calls if max_calls is not None else self.max_calls,
        )

    @property
    def estimates(self) -> bool:
        """Whether this budget limits what calls cost or use (so calls must be estimated)."""
        return self.max_cost_usd is not None or self.max_tokens is not None

    def refusal(
        self, spent: UsageTotals, upcoming: int = 1, estimates: Sequence[CallEstimate] = ()
    ) -> str | None:
        """Why `upcoming` more calls would go past this budget, or None.

        Calls are counted exactly. Cost and tokens count as reported, and the upcoming calls
        as `estimates` (one per call; missing ones estimate nothing): the calls are refused
        when what was spent plus what they are estimated at goes past a limit."""
        if self.max_calls is not None and spent.calls + upcoming > self.max_calls:
            return (
                f"max_calls {self.max_calls}: {spent.calls} call(s) made, {upcoming} more "
                f"would go past it ({spent.unknown_calls} with unknown usage)"
            )
        if self.max_cost_usd is not None:
            ahead = sum(e.cost_usd for e in estimates)
            if _past(spent.cost_usd, ahead, self.max_cost_usd):
                return (
                    f"max_cost_usd {self.max_cost_usd:g}: ${spent.cost_usd:.4f} spent"
                    + _ahead_note(upcoming, f"${ahead:.4f}", estimates, "cost")
                    + _unknown_note(spent.cost_unknown_calls, "cost")
                )
        if self.max_tokens is not None:
            ahead_tokens = sum(e.tokens for e in estimates)
            if _past(spent.tokens, ahead_tokens, self.max_tokens):
                return (
                    f"max_tokens {self.max_tokens}: {spent.tokens} tokens used"
                    + _ahead_note(upcoming, f"{ahead_tokens} tokens", estimates, "tokens")
                    + _unknown_note(spent.unknown_calls, "token counts")
                )
        return None


@dataclass(slots=True, frozen=True)
class CallEstimate:
    """What one upcoming call is expected to cost, on the evidence in the file."""

    cost_usd: float = 0.0
    tokens: int = 0
    cost_basis: str = ""
    """Where `cost_usd` comes from ("the largest call cost seen from claude"); empty: nothing."""
    tokens_basis: str = ""
    seen: bool = False
    """A provider that may answer has answered in this discussion before."""


def estimate_call(usage: DiscussionUsage, providers: Sequence[str]) -> CallEstimate:
    """One call that one of `providers` (the chain that may answer it) will make: the largest
    call seen in this discussion from those providers; where none of them has answered yet,
    the largest call of any provider. A provider that answered without reporting a figure
    estimates nothing for it: what it spends is never reported, so never counted."""
    names = [p for p in providers if p in usage.by_provider]
    pool = [usage.by_provider[p] for p in names] if names else [usage.total]
    where = f"from {', '.join(names)}" if names else "here"
    costs = [t.largest_cost_usd for t in pool if t.largest_cost_usd is not None]
    tokens = [t.largest_tokens for t in pool if t.largest_tokens is not None]
    return CallEstimate(
        max(costs, default=0.0),
        max(tokens, default=0),
        f"the largest call cost seen {where}" if costs else "",
        f"the largest call seen {where}" if tokens else "",
        bool(names),
    )


def _past(spent: float, ahead: float, limit: float) -> bool:
    """Spent already reaches the limit, or the calls ahead would take it past (reported costs
    carry 6 decimals: a sum that lands on the limit is not past it)."""
    return spent >= limit or spent + ahead > limit + 1e-9


def _ahead_note(upcoming: int, amount: str, estimates: Sequence[CallEstimate], kind: str) -> str:
    bases = [e.cost_basis if kind == "cost" else e.tokens_basis for e in estimates]
    bases = list(dict.fromkeys(b for b in bases if b))
    if not bases:
        return ""
    return (
        f"; {upcoming} more call(s) estimated at {amount} ({'; '.join(bases)}) "
        "would go past it"
    )


def _unknown_note(n: int, what: str) -> str:
    return f" (plus {n} call(s) of unknown {what}, not counted)" if n else ""


def configured_budget(d: Discussion) -> Budget:
    return Budget.from_config(d.workspace.config.section("budget"))


def render_budget_stop(reason: str, rounds: int, run_tag: str = "") -> str:
    """The engine block recording a budget stop (read back like any ``RUN-STOP``); `run_tag`:
    the fields naming the run it ends (`runlog.identity`), if a run stopped."""
    clean = " ".join(reason.replace("-->", "->").replace("|", "/").split())
    plural = "s" if rounds != 1 else ""
    tag = f" | {run_tag}" if run_tag else ""
    return (
        f"<!-- RUN-STOP: budget | rounds: {rounds}{tag} -->\n\n"
        f"*Run stopped after {rounds} round{plural}: the budget is used up ({clean}).*\n"
    )
