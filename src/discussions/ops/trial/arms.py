"""A trial's arms: what the user names (`parse_arm`), and the arms that ask providers directly
(`ask_once`, `ask_many`): one model with one call, the same model N times with the majority
of its answers (self-consistency), or several providers with the majority of theirs.

Arms, as written on the command line (``--arm``):

==================================  ==========================================================
``single[:PROVIDER]``               one call; the answer is that call's
``self-consistency[:PROVIDER]``     N calls of one provider; the majority of their answers
``vote:P1,P2,...``                  one call to each provider named; the majority
``council[:P1,P2,...]``             the council with its template (`council`): one provider
                                    for every seat, or one provider a seat, in seat order
==================================  ==========================================================

Without a provider, an arm uses ``--provider``, else the first installed provider of the
configured chain (``providers.default``, ``providers.fallback``, the CLIs found on PATH), else
the built-in mock; the council's seats then keep their own chains, as in ``discussions run``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ...derive.usage import UsageTotals
from ...errors import BadInput, ProviderError
from ...providers.base import ProviderRequest, complete_with_usage
from ...providers.registry import ProviderRegistry
from .answers import answer_of, question_prompt
from .stats import majority
from .tasks import Task

KINDS = ("single", "self-consistency", "vote", "council")
DEFAULT_ARMS = ("single", "self-consistency", "council")


@dataclass(frozen=True, slots=True)
class Arm:
    """One arm of a trial."""

    label: str
    """How the report names it: as the user wrote it."""
    kind: str
    """One of `KINDS`."""
    providers: tuple[str, ...] = ()
    """The providers it names (empty: the default, or the council seats' own)."""


def parse_arm(text: str) -> Arm:
    """The arm `text` names (see the module docstring); `BadInput` on ``arm`` otherwise."""
    kind, colon, names = text.strip().partition(":")
    kind = kind.strip().lower()
    providers = tuple(n.strip() for n in names.split(",") if n.strip())
    if kind not in KINDS:
        raise BadInput(f"unknown arm {text!r} (arms: {', '.join(KINDS)})", "arm")
    if colon and not providers:
        raise BadInput(f"arm {text!r} names no provider after ':'", "arm")
    if kind in ("single", "self-consistency") and len(providers) > 1:
        raise BadInput(f"arm {text!r}: {kind} takes one provider (vote:A,B,C takes several)", "arm")
    if kind == "vote" and not providers:
        raise BadInput("arm 'vote' needs its providers: vote:A,B,C", "arm")
    return Arm(text.strip(), kind, providers)


@dataclass(slots=True)
class Outcome:
    """What one arm did with one task."""

    answer: str | None = None
    """The arm's answer (None: none could be read)."""
    correct: bool | None = None
    """Whether it matches the known answer (None: a rubric task, or not run)."""
    usage: UsageTotals = field(default_factory=UsageTotals)
    """The calls it made, their tokens and cost, as the providers reported them."""
    samples: list[str | None] = field(default_factory=list)
    """The answer of each call, in call order (self-consistency and votes)."""
    errors: list[str] = field(default_factory=list)
    """Why calls failed."""
    decided: bool | None = None
    """The council: whether its run ended on consensus (None for other arms)."""
    stopped: str = ""
    """The council: why its run stopped (`RunResult.stopped`)."""
    interrupted: bool = False
    """The trial was interrupted before this finished: left out of the figures."""
    answered_by: set[str] = field(default_factory=set)
    """The providers whose answers it used."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "answer": self.answer,
            "correct": self.correct,
            "calls": self.usage.calls,
            "failed_calls": self.usage.failed_calls,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cost_usd": round(self.usage.cost_usd, 6),
        }
        if self.samples:
            out["samples"] = list(self.samples)
        if self.decided is not None:
            out.update(decided=self.decided, stopped=self.stopped)
        if self.errors:
            out["errors"] = list(self.errors)
        out["answered_by"] = sorted(self.answered_by)
        return out


@dataclass(slots=True)
class Asking:
    """What calls to providers share in a trial."""

    registry: ProviderRegistry
    timeout: float
    stopping: threading.Event
    """Set on Ctrl-C: no call starts after it."""
    jobs: int = 4
    """Calls of one arm made at once, at most (a provider's own ``parallel`` also holds)."""


@dataclass(slots=True)
class Reply:
    """One call's answer text (None when it failed) and what it cost."""

    text: str | None
    usage: UsageTotals
    error: str = ""
    provider: str = ""


def call(asking: Asking, provider: str, prompt: str) -> Reply:
    """Ask `provider` `prompt` once; a failure is a reply without text, counted as a failed
    call. Usage is counted by the rule the discussions' totals use (`UsageTotals.add_meta`)."""
    totals = UsageTotals()
    if asking.stopping.is_set():
        return Reply(None, totals, "interrupted")
    request = ProviderRequest(
        prompt, timeout=asking.timeout, participant_name="Trial", participant_alias="trial"
    )
    try:
        completion = complete_with_usage(asking.registry.get(provider), request)
    except ProviderError as exc:
        if asking.stopping.is_set():  # ended by Ctrl-C, not by the provider
            return Reply(None, totals, "interrupted")
        totals.failed_calls += 1
        return Reply(None, totals, str(exc))
    meta = dict(part.split(": ", 1) for part in completion.usage.meta_parts())
    totals.add_meta({"provider": provider, **meta})
    return Reply(completion.text, totals, provider=provider)


def ask_once(asking: Asking, task: Task, provider: str) -> Outcome:
    """The single arm: one call."""
    reply = call(asking, provider, question_prompt(task))
    outcome = Outcome(usage=reply.usage, errors=[reply.error] if reply.error else [])
    outcome.answered_by = {reply.provider} if reply.provider else set()
    outcome.answer = answer_of(task, reply.text) if reply.text is not None else None
    outcome.interrupted = reply.error == "interrupted"
    return _scored(task, outcome)


def ask_many(asking: Asking, task: Task, providers: Sequence[str]) -> Outcome:
    """Self-consistency (one provider named N times) and votes: a call each, at most
    `Asking.jobs` at once; the answer is the `majority` of theirs."""
    prompt = question_prompt(task)
    with ThreadPoolExecutor(max_workers=max(1, min(asking.jobs, len(providers)))) as pool:
        replies = list(pool.map(lambda name: call(asking, name, prompt), providers))
    outcome = Outcome()
    for reply in replies:
        add_usage(outcome.usage, reply.usage)
        outcome.samples.append(answer_of(task, reply.text) if reply.text is not None else None)
        if reply.error:
            outcome.errors.append(reply.error)
        if reply.provider:
            outcome.answered_by.add(reply.provider)
    outcome.answer = majority(outcome.samples, task.vote_key)
    outcome.interrupted = any(r.error == "interrupted" for r in replies)
    return _scored(task, outcome)


def _scored(task: Task, outcome: Outcome) -> Outcome:
    if not task.judged and not outcome.interrupted:
        outcome.correct = task.matches(outcome.answer)
    return outcome


_SUMMED = (
    "calls",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "unknown_calls",
    "cost_unknown_calls",
    "failed_calls",
)


def add_usage(total: UsageTotals, part: UsageTotals) -> None:
    """Add `part`'s figures to `total` (a trial sums its calls' and its councils' totals)."""
    for name in _SUMMED:
        setattr(total, name, getattr(total, name) + getattr(part, name))
