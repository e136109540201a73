"""A text about a discussion written by one participant and returned, not appended: the
narrative of `discussions summary --ai`, the article of an export."""

from __future__ import annotations

from ...errors import ProviderError
from ...model.discussion import Discussion
from ...syntax.answers import parse_response
from ...syntax.render import neutralise
from ..prompt.prompts import build_prompt
from ..turn.asking import Asker
from ..turn.followup import answer_echo
from ..turn.outcomes import ParticipantOutcome, length_cut_note

NARRATIVE_CALLOUT = (
    "Write a narrative summary of this discussion for someone who has not read it: what is "
    "proposed, where people agree, where they disagree and why, what is decided, and what is "
    "still open. A few short paragraphs of markdown. Do not add new opinions and do not vote."
)


def narrate(
    runner: Asker,
    d: Discussion,
    alias: str = "moderator",
    provider: str | None = None,
    callout: str = NARRATIVE_CALLOUT,
) -> tuple[str, str]:
    """A narrative summary (or, with another `callout`, another text about the discussion,
    such as `prompts.POST_CALLOUT`) written by participant `alias`. Returns (text, who wrote
    it). Nothing is written to the file."""
    participant = d.workspace.participants.get(alias)
    window = runner.window_for(participant, provider)
    prompt, _ = build_prompt(d, participant, callout, memory=False, window=window)
    outcome = ParticipantOutcome(participant.alias, participant.name)
    text = runner.ask(
        participant, runner.request_for(participant, prompt, False), provider, outcome
    )
    if text is None:
        raise ProviderError(participant.alias, "no provider answered", outcome.error)
    comment = parse_response(text, answer_echo(prompt, d, participant.name)).comment
    if outcome.length_cut:
        comment += "\n\n" + length_cut_note(outcome.length_cut)
    return neutralise(comment).strip(), f"{participant.name} via {outcome.provider}"
