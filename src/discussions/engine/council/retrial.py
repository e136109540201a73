"""A re-trial: each voter's first ballot of a past decision asked again of another provider
or model, and the votes that would flip recorded in a ``RETRIAL`` block (`derive.retrials`,
docs/outcomes.md).

The question is the one the voter was asked: its prompt is rebuilt by `prompt.build_prompt`
from the file as it stood when the voter cast its first ballot of the deciding phase (the
text before the ``---`` that opens that comment), so what it saw then (blind in a
``vote_first`` phase, the state, the task) is what the other model sees now. Two things are
left out, because they would not be what the voter saw: the project memory (decisions
settled since) and the callout a run may have given the round. People's ballots are not
asked again. A call that fails is recorded as failed, with why; an answer without a vote
as ``none``: nothing is guessed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...derive.retrials import FAILED, NONE, VOTES, RetrialVote, tally
from ...errors import NotDecided
from ...model import storage
from ...syntax import clock
from ...syntax.answers import parse_response
from ...syntax.text import normalise_newlines
from ..prompt.prompts import build_prompt
from ..turn.failures import failed_meta
from ..turn.outcomes import ParticipantOutcome, clean_field

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ...settings.participants import Participant
    from ..turn.asking import Asker

_WHY_CHARS = 200
"""Characters of an answer's reason kept in the block."""
_SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)")
_NOT_REASON = re.compile(r"^\s*(?:[-*+]\s+)?(?:VOTE|CONFIDENCE|SCORE)\s*:", re.I)


@dataclass(slots=True)
class RetrialDone:
    """What a re-trial asked and recorded."""

    provider: str
    model: str
    votes: list[RetrialVote] = field(default_factory=list)
    people: list[str] = field(default_factory=list)
    """Voters who are people: their ballots are not asked again."""
    line: int = 0
    """The line of the ``RETRIAL`` block written (0: none)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model or None,
            "line": self.line,
            "votes": [v.to_dict() for v in self.votes],
            "flips": sum(1 for v in self.votes if v.flipped),
            "failed": sum(1 for v in self.votes if v.now == FAILED),
            "people_not_asked": list(self.people),
        }


def retrial(
    asker: Asker,
    d: Discussion,
    provider: str,
    model: str = "",
    on_vote: Callable[[RetrialVote], None] | None = None,
    *,
    named: str = "",
) -> RetrialDone:
    """Ask each AI voter's first ballot of `d`'s current (deciding) phase again of `provider`,
    one after another, and append the ``RETRIAL`` block, which names the provider `named`
    (default `provider`) and `model` (the caller has pointed `provider` at it:
    `providers.variants`). `NotDecided` when the phase holds no ballot of a participant."""
    registry = d.workspace.participants
    done = RetrialDone(named or provider, model)
    seats: list[tuple[Participant, str, int]] = []
    then = deciding(d)
    for name, (vote, line) in then.first_ballot.items():
        p = registry.for_author(name)
        if p is None:
            done.people.append(name)
        else:
            seats.append((p, vote, line))
    if not seats:
        people = f" (only people: {', '.join(done.people)}, who are not asked again)"
        raise NotDecided(
            f"{d.path.name}: no AI participant has voted in phase '{then.phase}'"
            f"{people if done.people else ''}: there is no first ballot to ask again"
        )
    asker.check_providers([p for p, _, _ in seats], provider)
    for p, vote, line in seats:
        done.votes.append(_ask_again(asker, d, p, vote, line, provider))
        if on_vote is not None:
            on_vote(done.votes[-1])
    block = render_retrial(done, then.phase)
    storage.append(d.path, [block], root=d.workspace.config.base_dir)
    d.reload()
    done.line = d.retrials[-1].line if d.retrials else 0
    return done


def deciding(d: Discussion) -> Discussion:
    """`d` as it stood at the end of its deciding phase: the latest phase in which a
    participant voted (a template may move on to a phase without votes once decided)."""
    registry = d.workspace.participants
    while d.phase_started_line > 0 and not any(
        registry.for_author(name) for name in d.first_ballot
    ):
        lines = normalise_newlines(d.text).split("\n")
        d = d.seen_as("\n".join(lines[: d.phase_started_line - 1]) + "\n")
    return d


def _ask_again(
    asker: Asker, d: Discussion, p: Participant, was: str, line: int, provider: str
) -> RetrialVote:
    """Participant `p`'s first ballot (`was`, cast in the comment at `line`) asked of
    `provider`, with the prompt of the file as it stood then."""
    then = d.seen_as(text_before(d.text, line))
    window = asker.window_for(p, provider)
    prompt = build_prompt(then, p, None, memory=False, window=window)[0]
    request = asker.request_for(p, prompt, True, d.path)
    outcome = ParticipantOutcome(p.alias, p.name)
    started = time.monotonic()
    text = asker.ask(p, request, provider, outcome)
    outcome.duration = time.monotonic() - started
    if text is None:
        return RetrialVote(p.name, was, FAILED, _failure(outcome))
    answer = parse_response(text)
    now = (answer.vote or "").upper()
    return RetrialVote(p.name, was, now if now in VOTES else NONE, reason_of(answer.comment))


def text_before(text: str, line: int) -> str:
    """`text` as it stood before the comment whose ``Name:`` line is `line` was appended: up
    to and with the ``---`` line that opens it."""
    lines = normalise_newlines(text).split("\n")
    at = line - 2  # the index of the line above ``Name:``
    while at > 0 and not lines[at].strip():
        at -= 1
    return "\n".join(lines[: at + 1]) + "\n"


def reason_of(comment: str) -> str:
    """An answer's reason for the block: the first sentence of its words (vote, confidence
    and score lines left out), on one line, at most `_WHY_CHARS` characters."""
    words = " ".join(
        line for line in comment.split("\n") if line.strip() and not _NOT_REASON.match(line)
    )
    words = clean_field(words)
    m = _SENTENCE.match(words)
    first = m.group(1) if m else words
    return first if len(first) <= _WHY_CHARS else first[: _WHY_CHARS - 3].rstrip() + "..."


def _failure(outcome: ParticipantOutcome) -> str:
    """Why no answer came: the calls that failed (`failures.failed_meta`), else why none was
    made."""
    calls = failed_meta(outcome.attempts)
    if calls:
        return calls[0].removeprefix("failed: ")
    said = "; ".join(f"{a.provider}: {a.reason}" for a in outcome.attempts)
    return clean_field(said or "no answer")


def render_retrial(done: RetrialDone, phase: str) -> str:
    """The ``RETRIAL`` block: its arguments (`derive.retrials`), then what it found for a
    reader (``&#64;`` shows as "@" but is no mention: the text sits, to the parser, inside
    the comment before it)."""
    fields = [clean_field(done.provider)]
    if done.model:
        fields.append(f"model: {clean_field(done.model)}")
    fields += [f"phase: {clean_field(phase)}", f"at: {clock.now_stamp()}"]
    for v in done.votes:
        why = f", {v.why}" if v.why else ""
        fields.append(f"{clean_field(v.voter)}: {v.was} -> {v.now}{why}")
    on = done.provider + (f" (model {done.model})" if done.model else "")
    shown = [f"- {_visible(v)}" for v in done.votes]
    found = tally(done.votes, named=False)
    return (
        f"<!-- RETRIAL: {' | '.join(fields)} -->\n\n"
        f"**Re-trial on {_safe(on)}: {found}.**\n\n" + "\n".join(shown) + "\n"
    )


def _visible(v: RetrialVote) -> str:
    """One voter's line under the block: ``AI-Architect: READY -> CHANGES (flips): why``."""
    state = "flips" if v.flipped else ("call failed" if v.now == FAILED else "holds")
    if v.now == NONE:
        state = "answered without a vote"
    why = f": {v.why}" if v.why else ""
    return _safe(f"{v.voter}: {v.was} -> {v.now} ({state}){why}")


def _safe(text: str) -> str:
    """`text` on a line of its own under the block: no mention, no HTML comment."""
    return text.replace("@", "&#64;").replace("<!--", "&lt;!--")
