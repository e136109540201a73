"""Weak answers: the length cap on an answer, and the one follow-up call that asks for a
missing vote or score; and the echo of its prompt each answer is read against (`answer_echo`).

* **The cap.** An answer longer than ``providers.max_answer_chars`` (default
  `DEFAULT_MAX_ANSWER_CHARS`; in the JSON answer format: its comment, once read) is cut at
  the last line break before the limit; the comment says
  so in a visible line and its metadata records ``truncated: N chars`` (what the model wrote).
* **The follow-up.** In a voting phase, an answer of a voting participant that holds no vote
  (in a score phase: no ``SCORE:``) gets exactly one more call to the provider that answered,
  with a minimal prompt: the discussion's title, the start of the answer, and "Answer with
  one line: VOTE: READY, CHANGES or REJECT". A vote (score) in that answer is written into the
  comment with a visible line saying it came from the follow-up, and the metadata records
  ``follow-up: vote READY`` (counted as a call by `derive.usage`). Nothing more is asked
  whatever the follow-up says. ``providers.follow_up: false`` turns it off. The mock is never
  followed up (it votes when a vote is asked for), nor is a replay (it answers as recorded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import ProviderError
from ...model.discussion import Discussion
from ...providers.base import DEFAULT_MAX_ANSWER_CHARS as DEFAULT_MAX_ANSWER_CHARS
from ...providers.base import ProviderRequest, complete_with_usage
from ...providers.base import max_answer_chars as max_answer_chars
from ...providers.registry import ProviderRegistry
from ...providers.usage import Usage
from ...syntax.answers import NO_ECHO, Echo, Response, parse_response, prompt_echo
from ...syntax.markers import extract, normalise_vote
from .outcomes import ParticipantOutcome

_EXCERPT_CHARS = 600
"""Characters of the first answer the follow-up prompt repeats, for context."""
VOTE_QUESTION = "Answer with one line: VOTE: READY, CHANGES or REJECT"
_SCORE_QUESTION = (
    "Answer with one line: SCORE: n, where n is 0-10 (how ready the proposal is to decide)"
)
_SCORE_LINE = re.compile(r"(?im)^\W*(?:score\W*)?(\d{1,2})(?:\s*/\s*10)?\W*$")
# A line that is one word, alone or before a separator and a reason: ``READY``, ``REJECT: ...``.
_BARE_VOTE = re.compile(r"[\W_]*[A-Za-z]+[*_.!]*(?:\s*$|\s*[-\u2013\u2014:,;(])")


def cap_answer(text: str, limit: int) -> tuple[str, int | None]:
    """`text` cut to at most `limit` characters at a line break where one is near the end
    (else at the limit), and the original length; (text, None) when it fits or `limit` is 0."""
    if limit <= 0 or len(text) <= limit:
        return text, None
    cut = text[:limit]
    newline = cut.rfind("\n")
    if newline >= limit * 3 // 4:
        cut = cut[:newline]
    return cut.rstrip(), len(text)


def answer_echo(prompt: str, d: Discussion, author: str) -> Echo:
    """The `Echo` of `prompt`, built from discussion `d` for the participant signing `author`:
    the file's lines are the discussion's, and the lines of the comments the engine wrote for
    `author` (not the forged ones, `signatures.forgery`) are its own."""
    own = [x for c in d.comments if c.author == author and not c.forged for x in c.body.split("\n")]
    return prompt_echo(prompt, d.text.split("\n"), own)


def read_capped(text: str, limit: int, echo: Echo = NO_ECHO) -> tuple[Response, int | None]:
    """`text` parsed as an answer and cut to `limit` (`cap_answer`), and the length that was
    cut (None: it fits). An answer in the JSON format is read first and its comment cut (cut
    before, it would no longer be JSON: its text recorded raw, its vote lost); free text is
    cut before it is read, as written."""
    whole = parse_response(text, echo)
    if whole.structured:
        comment, original = cap_answer(whole.comment, limit)
        whole.comment = comment
        return whole, original
    if limit <= 0 or len(text) <= limit:
        return whole, None
    text, original = cap_answer(text, limit)
    return parse_response(text, echo), original


def truncation_note(original: int, limit: int, stopped: bool = False) -> str:
    """The visible line under a cut answer (`stopped`: the command was stopped while it
    was still writing, so it wrote more than was read)."""
    if stopped:
        return (
            f"*[Answer cut at {limit:,} characters: its command was stopped after {original:,}.]*"
        )
    return f"*[Answer cut at {limit:,} characters: the model wrote {original:,}.]*"


@dataclass(slots=True)
class _FollowUp:
    """What the follow-up call gave."""

    kind: str
    """``vote`` or ``score``."""
    vote: str | None = None
    score: int | None = None
    usage: Usage | None = None
    error: str = ""

    @property
    def found(self) -> bool:
        return self.vote is not None or self.score is not None

    def meta(self) -> str:
        """The ``follow-up:`` metadata field."""
        if self.found:
            return f"follow-up: {self.kind} {self.vote or self.score}"
        return f"follow-up: {self.kind} none" + (" (failed)" if self.error else "")

    def note(self) -> str:
        """The visible line in the comment."""
        if self.vote is not None:
            return "*[The vote below came from a one-line follow-up: the answer had none.]*"
        return f"*[SCORE {self.score} came from a one-line follow-up: the answer had none.]*"


def missing(
    d: Discussion, outcome: ParticipantOutcome, wants_vote: bool, comment: str, vote: str | None
) -> str | None:
    """What a voting participant's answer lacks: ``vote``, ``score`` or None."""
    info = d.phase_info
    if not wants_vote or outcome.provider in (None, "mock") or outcome.stand_in:
        return None
    if outcome.provider.startswith("replay:"):  # a recording answers as it did, once
        return None
    if not d.workspace.config.section("providers").get("follow_up", True):
        return None
    if info is not None and info.consensus_mode == "score":
        has_score = any(m.kind == "SCORE" for m in extract(comment, 1).markers)
        return None if has_score else "score"
    return "vote" if vote is None else None


def follow_up_prompt(d: Discussion, kind: str, answer: str) -> str:
    """The minimal follow-up: what was discussed, the start of the answer, one question."""
    excerpt = " ".join(answer.split())[:_EXCERPT_CHARS]
    return (
        f'You were asked for your position on "{d.title}" and answered:\n\n'
        f"{excerpt}\n\n{VOTE_QUESTION if kind == 'vote' else _SCORE_QUESTION}\n"
    )


def ask_follow_up(
    providers: ProviderRegistry, request: ProviderRequest, provider: str, prompt: str, kind: str
) -> _FollowUp:
    """One call to `provider` with `prompt`; the vote or score its answer holds."""
    result = _FollowUp(kind)
    try:
        completion = complete_with_usage(
            providers.get(provider), request.replaced(prompt=prompt, on_output=None)
        )
    except ProviderError as exc:
        result.error = str(exc)
        return result
    result.usage = completion.usage
    if kind == "vote":
        result.vote = read_vote(completion.text)
    else:
        result.score = _read_score(completion.text)
    return result


def read_vote(text: str) -> str | None:
    """The vote a follow-up answer gives: its ``VOTE:`` line, else a first line that is a vote
    (``READY``, ``**Changes.**``, ``REJECT - no rollback``; not ``Ready to answer ...``); a list
    of the choices it was offered (``READY, CHANGES or REJECT``) is none."""
    text = text.strip()
    first = text.splitlines()[0] if text else ""
    bare = _BARE_VOTE.match(first)
    return parse_response(text).vote or (normalise_vote(first) if bare else None)


def _read_score(text: str) -> int | None:
    """The score (0-10) a follow-up answer gives: its ``SCORE:`` line, else a line that is a
    number (``8``, ``8/10``)."""
    text = text.strip()
    scores = [m.text for m in extract(text, 1).markers if m.kind == "SCORE"]
    found = _SCORE_LINE.search(scores[-1] if scores else text)
    return int(found.group(1)) if found and 0 <= int(found.group(1)) <= 10 else None


def add_usage(a: Usage, b: Usage | None) -> Usage:
    """Two calls' usage together; a figure one of them did not report stays unknown."""
    if b is None:
        return a

    def total(x: float | None, y: float | None) -> float | None:
        return None if x is None or y is None else x + y

    tokens_in = total(a.input_tokens, b.input_tokens)
    tokens_out = total(a.output_tokens, b.output_tokens)
    return Usage(
        int(tokens_in) if tokens_in is not None else None,
        int(tokens_out) if tokens_out is not None else None,
        total(a.cost_usd, b.cost_usd),
        a.model,
    )
