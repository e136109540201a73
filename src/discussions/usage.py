"""Tokens and cost per participant and per discussion, read back from the file; budgets.

Every AI answer carries the engine's metadata line; `Runner` writes what the provider
reported into it (``tokens: 1200 in / 300 out | cost: $0.004100``) or ``unknown``. Totals are
sums of what was reported: a call whose tokens were not reported counts in ``unknown_calls``
and adds nothing; a call whose cost was not reported counts in ``cost_unknown_calls``. The
built-in mock costs nothing and is counted as zero. A pass (``<!-- PASS: name -->``, an AI that
had nothing to add) records no usage, so it counts as a call of unknown usage.

A budget (``budget:`` in discussions.yaml; ``run --max-cost/--max-calls``) is checked before
each call: the turn or run stops before a call that would go past it, and the engine records
why in the file (``RUN-STOP: budget``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import ConfigError

if TYPE_CHECKING:
    from .model import Discussion

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

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add_meta(self, meta: dict[str, str]) -> None:
        """Count one AI call from its comment's metadata."""
        self.calls += 1
        if meta.get("provider") == "mock":
            return  # the built-in mock: no tokens, no cost
        tokens = _TOKENS.match(meta.get("tokens", ""))
        if tokens:
            self.input_tokens += int(tokens.group(1))
            self.output_tokens += int(tokens.group(2))
        else:
            self.unknown_calls += 1
        cost = _COST.match(meta.get("cost", ""))
        if cost:
            self.cost_usd += float(cost.group(1))
        else:
            self.cost_unknown_calls += 1

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
    for by, _line in d.passes:  # an AI call whose answer was a pass: usage not recorded
        result.total.add_meta(_PASS)
        result.by_participant.setdefault(by, UsageTotals()).add_meta(_PASS)
    return result


_PASS = {"provider": "(pass)"}
"""A ``PASS`` block records no provider or usage: it counts as a call of unknown usage."""


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

    def refusal(self, spent: UsageTotals, upcoming: int = 1) -> str | None:
        """Why `upcoming` more calls would go past this budget, or None.

        Calls are counted exactly; cost and tokens only as reported, so a limit on them is
        reached when what was reported reaches it (a call of unknown cost adds nothing)."""
        if self.max_calls is not None and spent.calls + upcoming > self.max_calls:
            return (
                f"max_calls {self.max_calls}: {spent.calls} call(s) made, {upcoming} more "
                f"would go past it ({spent.unknown_calls} with unknown usage)"
            )
        if self.max_cost_usd is not None and spent.cost_usd >= self.max_cost_usd:
            return (
                f"max_cost_usd {self.max_cost_usd:g}: ${spent.cost_usd:.4f} spent"
                + _unknown_note(spent.cost_unknown_calls, "cost")
            )
        if self.max_tokens is not None and spent.tokens >= self.max_tokens:
            return f"max_tokens {self.max_tokens}: {spent.tokens} tokens used" + _unknown_note(
                spent.unknown_calls, "token counts"
            )
        return None


def _unknown_note(n: int, what: str) -> str:
    return f" (plus {n} call(s) of unknown {what}, not counted)" if n else ""


def configured_budget(d: Discussion) -> Budget:
    return Budget.from_config(d.workspace.config.section("budget"))


def render_budget_stop(reason: str, rounds: int) -> str:
    """The engine block recording a budget stop (read back like any ``RUN-STOP``)."""
    clean = " ".join(reason.replace("-->", "->").replace("|", "/").split())
    plural = "s" if rounds != 1 else ""
    return (
        f"<!-- RUN-STOP: budget | rounds: {rounds} -->\n\n"
        f"*Run stopped after {rounds} round{plural}: the budget is used up ({clean}).*\n"
    )
