"""The prompt a participant receives, kept within a character budget.

A prompt is: the persona, the phase and its instructions, the discussion, the task (callout and
mentions), and the response format (JSON with a comment and a vote).

The prompt fits its budget by design: ``context.max_chars`` characters, and when the model's
context window is known (`providers.window`), the tokens the window leaves once the answer has
its room, by the conservative estimate of `window.estimate_tokens`. The discussion part takes
what the rest leaves, in the order of priority of `context` (the proposal, the state of the
discussion, the newest comments, older ones as a digest), and stays about a round's size
however long the file grows.

Project memory: the decisions of the project's other discussions that are settled (no longer
open) are listed before the discussion, newest first, so settled questions are not argued again.
``memory: {enabled: true, max_chars: 4000}`` in the configuration; the list gets at most a
quarter of what the prompt's frame leaves, so the whole prompt stays within its budget. After
it, the participant's own record in earlier discussions (`memory_prompt`).

One format, stated once: the engine's (`RESPONSE_FORMAT`). A persona's own "Response format"
block (personas written for other tools end with one, asking for ``VOTE:`` lines) is left
out of the prompt (`_persona_text`).

A compact prompt, for a small window (``context.compact``: ``auto``, the default, for a
window of `_COMPACT_WINDOW` tokens or fewer; ``true``; ``false``): the persona in one line,
the proposal, the newest comments, the task and a short format; no phase instructions, state
of the discussion, digest, memory, or how to ask for evidence. A 2,048-token window leaves a
prompt about 4,600 characters: instructions written for large models would take half of it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...model.discussion import Discussion
from ...model.ledger import settled_decisions
from ...model.verdicts import contested
from ...providers.window import chars_for_tokens, estimate_tokens, prompt_tokens
from ...settings.participants import Participant
from ..evidence.prompt import evidence_section, folded, how_to_ask
from .context import Context, build_context
from .council import build_council_memory, council_memory_chars
from .language import language_lines
from .memory import build_persona_memory, persona_memory_chars
from .shape import shape_lines
from .visibility import sealed_for

if TYPE_CHECKING:
    from ...settings.phases import Phase

_DEFAULT_MAX_CHARS = 60_000
_DEFAULT_MEMORY_CHARS = 4_000
MEMORY_HEADING = "## Settled decisions in this project (do not reopen unless asked)"
_MEMORY_SHARE = 0.25
_MEMORY_ITEM_CHARS = 300
_MIN_MAX_CHARS = 1_000
_FIT_TRIES = 4
_COMPACT_WINDOW = 4_096
"""Windows of this many tokens or fewer get a compact prompt (``context.compact: auto``)."""
_PERSONA_FORMAT = re.compile(
    r"^[ \t]*#*[ \t]*response format[ \t]*:?[ \t]*(?:\n|\Z)(?:[ \t]*[-*][^\n]*(?:\n|\Z))*",
    re.I | re.M,
)
"""A persona's own "Response format:" heading and the list under it."""


def max_chars_for(d: Discussion) -> int:
    value = d.workspace.config.section("context").get("max_chars", _DEFAULT_MAX_CHARS)
    try:
        return max(_MIN_MAX_CHARS, int(value))
    except (TypeError, ValueError):
        return _DEFAULT_MAX_CHARS


def _memory_chars_for(d: Discussion) -> int:
    """``memory.max_chars`` (default 4,000); 0 when ``memory.enabled`` is false."""
    section = d.workspace.config.section("memory")
    if section.get("enabled", True) is False:
        return 0
    value = section.get("max_chars", _DEFAULT_MEMORY_CHARS)
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return _DEFAULT_MEMORY_CHARS


def build_memory(d: Discussion, max_chars: int) -> str:
    """The project memory for a prompt in `d`: settled decisions of the other discussions in
    the discussions folder, newest first, as ``- <decision> (<title>, <status>)`` lines under
    `MEMORY_HEADING`, at most `max_chars` long (older ones left out, and counted). Empty when
    there are none or they do not fit."""
    if max_chars <= 0:
        return ""
    entries = settled_decisions(d)
    if not entries:
        return ""
    head = MEMORY_HEADING + "\n\n"
    lines: list[str] = []
    used = len(head)
    for e in entries:
        text = " ".join(e.text.split())
        if len(text) > _MEMORY_ITEM_CHARS:
            text = text[: _MEMORY_ITEM_CHARS - 3].rstrip() + "..."
        line = f"- {text} ({' '.join(e.title.split())}, {e.status})\n"
        if used + len(line) > max_chars:
            break
        lines.append(line)
        used += len(line)
    omitted = len(entries) - len(lines)
    while omitted and lines and used + len(_left_out(omitted)) > max_chars:
        used -= len(lines.pop())
        omitted += 1
    if not lines:
        return ""
    return head + "".join(lines) + (_left_out(omitted) if omitted else "")


def _left_out(count: int) -> str:
    return f"[... {count} older settled decision{'s' if count != 1 else ''} left out]\n"


def _compact_for(d: Discussion, window: int | None) -> bool:
    """Whether prompts in `d` for a model of `window` tokens are compact (module docstring)."""
    value = d.workspace.config.section("context").get("compact", "auto")
    if isinstance(value, bool):
        return value
    return window is not None and window <= _COMPACT_WINDOW


def _persona_text(participant: Participant) -> str:
    """The persona as the prompt gives it: without a "Response format" block of its own,
    since the engine states the one format the answer is read in."""
    text = _PERSONA_FORMAT.sub("", participant.personality.strip())
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _persona_line(participant: Participant) -> str:
    """The persona in one line, for a compact prompt."""
    role = participant.role or "a participant"
    line = f"You are {participant.name} (@{participant.alias}), {role}"
    if participant.expertise:
        line += ", expert in " + ", ".join(participant.expertise[:3])
    return line + ", in a structured discussion. Speak only for yourself."


# The format is described, never shown as a sample answer: no line of it is a marker, a vote
# or a JSON object, so a model that repeats it (small models do) adds nothing to the record,
# and the answer path drops such lines anyway (`syntax.answers.Echo`).
RESPONSE_FORMAT = """\
Answer with one JSON object and nothing else, with these fields:
"comment" is your comment in markdown, in your own words; do not copy this prompt.
"vote" is one of the strings READY, CHANGES or REJECT, or null.
Markers in the comment go at the start of their own line: Q: then a question you want \
answered, TODO: then an action item, DECISION: then a decision you propose or record, \
CONCERN: then a risk or problem, ASSIGNED: then a task someone has taken on, DONE: then a \
finished task.
Mention another participant with @ and their alias to ask them something."""

_COMPACT_FORMAT = """\
Answer with one JSON object and nothing else: "comment" is your comment in markdown, in your \
own words; "vote" is READY, CHANGES, REJECT or null.
A line of the comment may start with Q: (a question), TODO: (an action), DECISION: (a \
decision) or CONCERN: (a risk)."""


_DIAGNOSIS_FORMAT = (
    'This phase diagnoses a problem. Also give "root_cause_key": the root cause as a short key '
    '(a few words joined by -, such as "session-token-expired", at most 60 characters) and '
    '"confidence": 0-10, how sure you are (8 or more: sure). In markdown, write ROOT-CAUSE: key '
    "and CONFIDENCE: n. The diagnosis converges when two participants name the same root cause "
    "with confidence 8 or more."
)

CONFIDENCE_INVITATION = (
    'You may also give "confidence": 0-10, how sure you are of your vote (in markdown, a line '
    "CONFIDENCE: n beside the vote); leave it out rather than guess."
)
"""What every voting phase says of confidence (docs/council.md, "Diverse quorums and
confidence"): described, not shown as a line, like the rest of the format (an echo of it
starts with no marker)."""

_TURN_ACTIONS = (
    '"action" is optional: "PASS" when you have nothing to add, or "CALL_VOTE" with '
    '"motion" set to one sentence, for a formal vote.'
)

POST_CALLOUT = (
    "Write a publishable article, in the style of a blog post, about this discussion for "
    "readers who were not part of it: the question and why it mattered, the positions each "
    "participant took and their reasons, where they agreed and disagreed, and how it was "
    "decided (or what is still open). Start with a title line beginning with '# ', then a few "
    "sections of markdown prose. Report the discussion faithfully: attribute views to the "
    "participants who held them, add no new opinions, and do not vote."
)


def build_prompt(
    d: Discussion,
    participant: Participant,
    callout: str | None = None,
    *,
    max_chars: int | None = None,
    memory: bool = True,
    window: int | None = None,
) -> tuple[str, Context]:
    """The prompt for `participant` in `d`'s current state, and what its context holds.

    The whole prompt stays within `max_chars` (default ``context.max_chars``) and, with a
    `window` (the model's context window in tokens), within `window.prompt_tokens` of it by
    the estimate, unless the persona, task and format alone are longer (`fitting.misfits`
    names the models that cannot take a participant's prompt at all). With `memory` (and
    ``memory.enabled`` in the configuration), the settled decisions of other discussions
    come before the discussion (see `build_memory`). Ballots on motions not yet decided are
    sealed from everyone but their authors (`visibility.sealed_for`). A small `window` gets
    a compact prompt (`_compact_for`)."""
    d = sealed_for(d, participant)
    budget = max_chars or max_chars_for(d)
    limit = prompt_tokens(window) if window is not None else None
    size = prompt_chars(d, window, budget)
    compact = _compact_for(d, window)
    for _ in range(_FIT_TRIES):
        prompt, ctx = _assemble(d, participant, callout, size, memory and not compact, compact)
        over = max(len(prompt) / budget, estimate_tokens(prompt) / limit if limit else 0.0)
        if over <= 1 or size <= 0:
            break
        size = min(size - 1, int(size / over * 0.97))  # the parts' sums are estimates
    return prompt, ctx


def prompt_chars(d: Discussion, window: int | None, max_chars: int | None = None) -> int:
    """The characters a whole prompt in `d` may take: `max_chars` (default ``context.max_chars``)
    and, with a `window` (tokens), what the window leaves once the answer has its room."""
    budget = max_chars or max_chars_for(d)
    if window is None:
        return budget
    return min(budget, chars_for_tokens(prompt_tokens(window)))


def minimal_prompt(d: Discussion, participant: Participant, window: int | None = None) -> str:
    """The smallest prompt `participant` can get in `d` for a model of `window` tokens:
    persona, phase, task and format, with no room left for the discussion."""
    compact = _compact_for(d, window)
    return _assemble(sealed_for(d, participant), participant, None, 1, False, compact)[0]


def _assemble(
    d: Discussion,
    participant: Participant,
    callout: str | None,
    budget: int,
    memory: bool,
    compact: bool = False,
) -> tuple[str, Context]:
    """The prompt within `budget` characters: the frame, the project memory, the discussion
    (`compact`: the frame a small window can take, module docstring)."""
    info = d.phase_info
    head = _prompt_head(d, participant, info, compact)
    memory_at = len(head)
    head += ["## The discussion so far", "", "<discussion>"]
    tail = [
        "</discussion>",
        *evidence_section(d, participant, budget),
        *_prompt_task(d, participant, info, callout),
        *_response_format(participant, info, compact),
        *language_lines(d, compact),
        *([] if compact else how_to_ask(d, budget)),
    ]
    frame = sum(len(x) + 1 for x in head) + sum(len(x) + 1 for x in tail) + 2
    if memory:
        share = min(_memory_chars_for(d), int(max(0, budget - frame) * _MEMORY_SHARE))
        known = build_memory(d, share)
        if known:
            head.insert(memory_at, known)  # ends with a newline: a blank line follows it
            frame += len(known) + 1
        own = build_persona_memory(d, participant, persona_memory_chars(d, budget - frame))
        if own:  # the participant's own record, after the settled decisions
            head.insert(memory_at + bool(known), own)
            frame += len(own) + 1
        council = build_council_memory(d, participant, council_memory_chars(d, budget - frame))
        if council:  # how the council decided before, after the participant's own record
            head.insert(memory_at + bool(known) + bool(own), council)
            frame += len(council) + 1
    # The discussion gets what the frame leaves (evidence blocks folded to one line each).
    ctx = build_context(folded(d), participant, max(0, budget - frame), frame, compact)
    lines = [*head, ctx.text.rstrip(), *tail]
    return "\n".join(lines) + "\n", ctx


def _prompt_head(
    d: Discussion, participant: Participant, info: Phase | None, compact: bool = False
) -> list[str]:
    """The persona, who it is in this discussion, and the current phase with its instructions
    (`compact`: the persona in one line and the phase's name); ends with a blank line
    (project memory, when any, goes right after it)."""
    phase = f"{info.title} ({d.phase})" if info else d.phase
    if compact:
        title = f"## Discussion: {d.title}"
        return [_persona_line(participant), "", title, "", f"Current phase: {phase}", ""]
    head: list[str] = [_persona_text(participant), ""]
    head.append(
        f"You are {participant.name} (@{participant.alias}), "
        f"{participant.role or 'a participant'}, "
        "in a structured discussion between AI personas and humans. Speak only for yourself."
    )
    if participant.expertise:
        head.append("Your expertise: " + ", ".join(participant.expertise) + ".")
    if participant.concerns:
        head.append("Questions you always ask: " + " ".join(participant.concerns))
    head += shape_lines(participant)
    head += ["", f"## Discussion: {d.title}", ""]
    head.append(f"Current phase: {phase}")
    if info and info.instructions.strip():
        head += ["Phase instructions:", info.instructions.strip()]
    head.append("")
    return head


def _prompt_task(
    d: Discussion, participant: Participant, info: Phase | None, callout: str | None
) -> list[str]:
    """The task: the callout (or the default one), and the mentions still waiting for an
    answer from `participant` (without who wrote them in a blind or anonymous phase)."""
    task: list[str] = ["", "## Your task"]
    task.append(
        callout.strip()
        if callout and callout.strip()
        else "Give your perspective on the discussion so far, from your area of expertise. "
        "Build on what others said; do not repeat it."
    )
    task += contested(d)  # after a sealed first ballot (vote_first): what is contested
    asked = [p for p in d.pending_mentions if p.alias == participant.alias]
    if asked and info is not None and (info.blind or info.anonymous):
        task.append("You were mentioned and have not answered yet; answer that first.")
    elif asked:
        where = ", ".join(f"line {p.line} by {p.by}" for p in asked)
        task.append(f"You were mentioned and have not answered yet ({where}); answer that first.")
    return task


def _response_format(
    participant: Participant, info: Phase | None, compact: bool = False
) -> list[str]:
    """The response format (`compact`: the short one), and what this phase asks of
    `participant`'s answer: a vote or none, a score and pending issues, a diagnosis,
    blindness."""
    lines = ["", "## Response format"]
    lines += [_COMPACT_FORMAT] if compact else [RESPONSE_FORMAT, _TURN_ACTIONS]
    wants_vote = bool(info and info.voting_mode and participant.votes)
    if not participant.votes:
        lines.append('You are a background participant and do not vote: set "vote" to null.')
    elif wants_vote:
        lines.append('This phase collects votes: set "vote" to READY, CHANGES or REJECT.')
        if info is not None and info.consensus_mode != "score" and not info.diagnosis:
            lines.append(CONFIDENCE_INVITATION)
    else:
        lines.append(
            'This phase does not collect votes yet: set "vote" to null unless you must block.'
        )
    if participant.votes and info is not None and info.consensus_mode == "score":
        lines.append(
            'This phase decides by scores. Also give "consensus_score": 0-10, how ready the '
            f"proposal is ({info.score_threshold} or more: ready as it is), and "
            '"pending_issues": a list with one short line per issue that still stands in your '
            "way (empty when none). In markdown, write SCORE: n and one PENDING: line per issue."
        )
    if info is not None and info.diagnosis:
        lines.append(_DIAGNOSIS_FORMAT)
    if info is not None and info.blind:
        lines.append("This round is blind: you see none of the other participants' answers.")
    return lines
