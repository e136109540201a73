"""Prompts that fit their models: the context window a participant's providers allow, and the
participants whose model cannot take even the smallest prompt, named before any call is made
(at `turn`, in `check`, in `providers test`) rather than found out call by call."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ...model.discussion import Discussion
from ...providers.registry import ProviderRegistry
from ...providers.window import (
    Window,
    answer_tokens,
    chain_window,
    estimate_tokens,
    prompt_tokens,
    provider_notes,
    provider_window,
)
from ...settings.participants import Participant
from ...settings.workspace import Workspace
from .prompts import minimal_prompt


@dataclass(slots=True, frozen=True)
class _Misfit:
    """A participant whose model is too small for its smallest prompt."""

    participant: Participant
    window: Window
    need: int
    """Tokens the smallest prompt takes, by the estimate."""

    @property
    def message(self) -> str:
        tokens = self.window.tokens or 0
        name = self.participant.name
        return (
            f"{name}: {self.window.provider} has a context window of {tokens:,} tokens (from "
            f"{self.window.source}); the smallest prompt for {name} takes about "
            f"{self.need:,} tokens and {answer_tokens(tokens):,} are kept for the answer. "
            f"Give {name} a model with a larger window, or correct context_window: in "
            "providers.yaml if it is wrong"
        )


def refusal(found: list[_Misfit]) -> str:
    """Why a turn cannot ask the participants of `found`, one line each."""
    lines = [f"- {m.message}" for m in found]
    return "models too small for the prompt, nothing was sent:\n" + "\n".join(lines)


def misfits(
    d: Discussion,
    participants: Iterable[Participant],
    registry: ProviderRegistry,
    chain: Callable[[Participant], list[str]],
) -> list[_Misfit]:
    """The `participants` of `d` whose fallback `chain` holds a model too small for their
    smallest prompt (the smallest known window of the chain counts: the prompt is sized
    for it)."""
    found: list[_Misfit] = []
    for p in participants:
        window = chain_window(registry, chain(p))
        if window.tokens is None:
            continue
        need = estimate_tokens(minimal_prompt(d, p, window.tokens))
        if need > prompt_tokens(window.tokens):
            found.append(_Misfit(p, window, need))
    return found


def window_lines(
    registry: ProviderRegistry, name: str, ws: Workspace, d: Discussion | None = None
) -> list[str]:
    """What `providers test` says of provider `name`'s window: its size and where it comes
    from, and whether the smallest prompt of each participant of `d` (default: of a new
    discussion in `ws`) fits; what to know of a local server (`provider_notes`: how to
    declare a window it does not report, its one slot)."""
    notes = provider_notes(registry, name)
    window = provider_window(registry, name)
    if window.tokens is None:
        return [notes] if notes else []  # unknown: prompts keep to context.max_chars
    tokens = window.tokens
    lines = [
        f"Context window: {tokens:,} tokens (from {window.source}); prompts up to "
        f"{prompt_tokens(tokens):,} tokens, {answer_tokens(tokens):,} kept for the answer"
    ]
    if d is None:
        d = Discussion.create("Context window check", workspace=ws)
    participants = [d.workspace.participants.get(a) for a in d.participants]
    for m in misfits(d, participants, registry, lambda p: [name]):
        lines.append("Too small: " + m.message)
    return lines + ([notes] if notes else [])
