"""What the wings above a turn ask of the runner: one participant asked (`Asker`), and whole
turns (`TurnAsker`). The council, the documentation loop and the conformance review take these
protocols, not the runner: a `Runner` satisfies them as it is, and a test can pass a small
object that records what was asked."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ...providers.base import ProviderRequest
    from ...settings.participants import Participant
    from ...settings.workspace import Workspace
    from .outcomes import ParticipantOutcome, TurnResult


class Asker(Protocol):
    """Asking one participant: its request, the window its prompt is sized for, the budget
    checked before, its providers walked for an answer."""

    @property
    def workspace(self) -> Workspace:
        """The project the participants and providers are configured in."""
        ...

    def check_providers(self, chosen: Sequence[Participant], provider: str | None) -> None:
        """Refuse, before anything is written, providers that cannot be called."""

    def window_for(self, participant: Participant, forced: str | None = None) -> int | None:
        """The context window (tokens) `participant`'s prompt is sized for, if known."""

    def budget_refusal(
        self, d: Discussion, upcoming: Sequence[Participant], forced: str | None = None
    ) -> str | None:
        """Why calls for `upcoming`, started together, would go past the budget, or None."""

    def request_for(
        self, participant: Participant, prompt: str, wants_vote: bool, file: Path | None = None
    ) -> ProviderRequest:
        """What `participant` is asked; `file` is the discussion its answer goes into."""
        ...

    def ask(
        self,
        participant: Participant,
        request: ProviderRequest,
        forced: str | None,
        outcome: ParticipantOutcome,
    ) -> str | None:
        """The answer's text from the first provider that gave one (failures in `outcome`)."""


class TurnAsker(Asker, Protocol):
    """Asking participants for whole turns as well (the run's rounds, the review's votes)."""

    def run_turn(
        self,
        discussion: Discussion,
        participants: Sequence[str] | None = None,
        callout: str | None = None,
        *,
        provider: str | None = None,
        sequential: bool = False,
        council: bool = True,
        budget_rounds: int = 0,
        run_tag: str = "",
        preamble: Sequence[str] = (),
    ) -> TurnResult:
        """One turn on `discussion`: answers appended, then the after-answer steps."""
        ...
