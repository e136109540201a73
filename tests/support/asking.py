"""A small asker for the council, the documentation loop and the conformance review
(`engine.turn.asking`): it records what each of them asked, and answers with the text a test
scripts, in place of a runner and its providers."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from discussions.engine.turn.outcomes import ParticipantOutcome, TurnResult
from discussions.model.discussion import Discussion
from discussions.providers.base import ProviderRequest
from discussions.settings.participants import Participant
from discussions.settings.workspace import Workspace


@dataclass
class Asked:
    """One question: who was asked, and the prompt (for a turn: the callout)."""

    alias: str
    prompt: str


@dataclass
class RecordingAsker:
    """Satisfies `TurnAsker` without a runner: `answer(alias, prompt)` gives each answer's
    text; a turn asks nobody and stops as `turn_stop` says (as a budget stop does)."""

    workspace: Workspace
    answer: Callable[[str, str], str] = lambda alias, prompt: ""
    turn_stop: str = "stopped by the test"
    asked: list[Asked] = field(default_factory=list)
    turns: list[tuple[list[str], str, bool]] = field(default_factory=list)
    """Each turn asked for: its participants' aliases, its callout, whether it was a council's."""
    checked: list[list[str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check_providers(self, chosen: Sequence[Participant], provider: str | None) -> None:
        self.checked.append([p.alias for p in chosen])

    def window_for(self, participant: Participant, forced: str | None = None) -> int | None:
        return None

    def budget_refusal(
        self, d: Discussion, upcoming: Sequence[Participant], forced: str | None = None
    ) -> str | None:
        return None

    def request_for(
        self, participant: Participant, prompt: str, wants_vote: bool, file: Path | None = None
    ) -> ProviderRequest:
        return ProviderRequest(
            prompt=prompt,
            timeout=10,
            participant_name=participant.name,
            participant_alias=participant.alias,
            wants_vote=wants_vote,
            file=file,
        )

    def ask(
        self,
        participant: Participant,
        request: ProviderRequest,
        forced: str | None,
        outcome: ParticipantOutcome,
    ) -> str | None:
        with self._lock:  # the council asks in parallel
            self.asked.append(Asked(participant.alias, request.prompt))
        outcome.provider = "recorder"
        return self.answer(participant.alias, request.prompt)

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
        self.turns.append((list(participants or ()), callout or "", council))
        result = TurnResult(file=str(discussion.path))
        result.budget_stop = self.turn_stop
        return result
