"""An answer into the record: a pass, or a comment with its metadata line, once the vote of a
mock standing in is set aside and a missing vote or score was asked for once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...derive.signatures import render_signed
from ...git.grounding import current_head
from ...model.discussion import Discussion
from ...model.storage import Appended
from ...providers.base import ProviderRequest
from ...providers.registry import ProviderRegistry
from ...providers.usage import UNKNOWN
from ...settings.participants import Participant
from ...syntax import clock
from ...syntax.answers import Response
from ...syntax.citations import find_citations
from ...syntax.markers import extract
from . import followup
from .failures import failed_meta
from .outcomes import ParticipantOutcome, clean_meta, render_pass, usage_meta


def post_pass(
    d: Discussion,
    participant: Participant,
    outcome: ParticipantOutcome,
    write: Callable[[str], Appended],
) -> None:
    """Append `participant`'s pass with `write`: the file shows who had nothing to add."""
    meta = [*usage_meta(outcome), *failed_meta(outcome.attempts)]  # calls, not missing CLIs
    block = render_pass(participant.name, [*meta, f"at: {clock.now_stamp()}"])
    outcome.notes.extend(write(block).lost_messages(d.path))


def weak_answer(
    providers: ProviderRegistry,
    d: Discussion,
    participant: Participant,
    request: ProviderRequest,
    response: Response,
    outcome: ParticipantOutcome,
    refusal: Callable[[str], str | None],
) -> tuple[list[str], str, str | None]:
    """(metadata parts, comment, vote) of `response` once a stand-in's vote is set aside
    and a missing vote or score has been asked for once (`followup`), where `refusal` (why
    the budget leaves no room for one more call to a provider, or None) allows it."""
    extra: list[str] = []
    comment, vote = response.comment, response.vote
    if outcome.stand_in and vote:
        outcome.notes.append(f"the mock stood in: its vote {vote} is not counted")
        comment += f"\n\n*[Mock standing in for a failed provider: vote {vote} not counted.]*"
        extra.append(f"stand-in: mock, vote {vote} not counted")
        vote = None
    if vote and not participant.votes:
        outcome.notes.append(f"background participant: vote {vote} not recorded")
        vote = None
    kind = followup.missing(d, outcome, request.wants_vote, comment, vote)
    if kind is None or outcome.provider is None:
        return extra, comment, vote
    refused = refusal(outcome.provider)
    if refused is not None:
        outcome.notes.append(f"no {kind} in the answer; no follow-up: {refused}")
        return extra, comment, vote
    prompt = followup.follow_up_prompt(d, kind, comment)
    got = followup.ask_follow_up(providers, request, outcome.provider, prompt, kind)
    outcome.usage = followup.add_usage(outcome.usage, got.usage or UNKNOWN)
    extra.append(got.meta())
    if not got.found:
        outcome.notes.append(f"no {kind} in the answer, nor in the one follow-up")
        return extra, comment, vote
    outcome.vote_from_follow_up = True
    comment += "\n\n" + got.note()
    if got.score is not None:
        comment += f"\n\nSCORE: {got.score}"
    return extra, comment, got.vote or vote


def head_meta(d: Discussion, comment: str) -> list[str]:
    """``head: COMMIT`` when `comment` cites the repository (`syntax.citations`): what its
    citations are resolved against later (`git.grounding`); nothing otherwise (no git runs
    for an answer that cites nothing)."""
    return head_meta_at(d.path, comment)


def head_meta_at(file: Path, comment: str) -> list[str]:
    """`head_meta` for a comment to be written to `file` (the council's answers, written
    from a snapshot: `council.motions.collect`)."""
    if not find_citations(comment):
        return []
    head = current_head(file.parent)
    return [f"head: {head}"] if head else []


def post_answer(
    d: Discussion,
    participant: Participant,
    outcome: ParticipantOutcome,
    comment: str,
    vote: str | None,
    extra: list[str],
    write: Callable[[str], Appended],
) -> None:
    """Append the answer as a comment with its metadata line (with `write`); read its vote
    back."""
    meta = [f"provider: {outcome.provider}", f"duration: {outcome.duration:.1f}s"]
    meta.extend(failed_meta(outcome.attempts))
    if outcome.mock_fallback:
        meta.append("note: no configured AI CLI is installed")
    meta.extend(clean_meta(part) for part in extra)
    meta.extend(usage_meta(outcome)[1:])
    meta.extend(head_meta(d, comment))
    meta.append(f"at: {clock.now_stamp()}")
    block = render_signed(participant.name, comment, meta, vote)
    outcome.notes.extend(write(block).lost_messages(d.path))
    outcome.status = "posted"
    # What is reported is what the file says: the vote read back from the bytes written.
    written = extract(block.split("\n", 1)[1], 2)
    outcome.vote = written.vote if participant.votes else None
    if outcome.vote != vote:
        outcome.notes.append(
            f"the answer's vote {vote or 'none'} reads as {outcome.vote or 'none'} in the file"
        )
