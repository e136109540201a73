"""Budgets: limits on the calls, tokens and cost of a discussion, checked before each call.

A budget (``budget:`` in discussions.yaml; ``run --max-cost/--max-calls``) is checked before
each call: the turn or run stops before a call that would go past it, and the engine records
why in the file (``RUN-STOP: budget``). For cost and tokens "would go past it" rests on the
evidence in the file: a call is estimated at the largest one seen in this discussion from the
providers that may answer it (`estimate_call`), and the calls started together in a parallel
turn are counted together. A provider never seen costs what the largest call of any provider
cost; with no reported figure at all, nothing can be estimated and the call is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..syntax.record import FrozenRecord

if TYPE_CHECKING:
    from ..derive.usage import DiscussionUsage, UsageTotals
    from .discussion import Discussion


class Budget(FrozenRecord):
    """Limits for a discussion; None: no limit.
    (A frozen `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("max_cost_usd", "max_tokens", "max_calls")
    max_cost_usd: float | None
    max_tokens: int | None
    max_calls: int | None

    def __init__(
        self,
        max_cost_usd: float | None = None,
        max_tokens: int | None = None,
        max_calls: int | None = None,
    ) -> None:
        self._init(max_cost_usd, max_tokens, max_calls)

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


class CallEstimate(FrozenRecord):
    """What one upcoming call is expected to cost, on the evidence in the file.
    (A frozen `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("cost_usd", "tokens", "cost_basis", "tokens_basis", "seen")
    cost_usd: float
    tokens: int
    cost_basis: str
    """Where `cost_usd` comes from ("the largest call cost seen from claude"); empty: nothing."""
    tokens_basis: str
    seen: bool
    """A provider that may answer has answered in this discussion before."""

    def __init__(
        self,
        cost_usd: float = 0.0,
        tokens: int = 0,
        cost_basis: str = "",
        tokens_basis: str = "",
        seen: bool = False,
    ) -> None:
        self._init(cost_usd, tokens, cost_basis, tokens_basis, seen)


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
    return f"; {upcoming} more call(s) estimated at {amount} ({'; '.join(bases)}) would go past it"


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
