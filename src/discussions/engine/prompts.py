"""The prompt a participant receives, kept within a character budget.

A prompt is: the persona, the phase and its instructions, the discussion, the task (callout and
mentions), and the response format (JSON with a comment and a vote).

The discussion part fits ``context.max_chars`` however long the file grows: when the whole file
is too long, it keeps the header and preamble, the comments that mention this participant, and
the newest comments in full, and replaces the rest with a digest of their markers (one line per
comment, oldest dropped first), saying what was left out.

Project memory: the decisions of the project's other discussions that are settled (no longer
open) are listed before the discussion, newest first, so settled questions are not argued again.
``memory: {enabled: true, max_chars: 4000}`` in the configuration; the list gets at most a
quarter of what the prompt's frame leaves, so the whole prompt stays within its budget. After
it, the participant's own record in earlier discussions (`memory_prompt`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..model.discussion import Comment, Discussion
from ..model.ledger import settled_decisions
from ..settings.participants import Participant
from ..syntax.text import normalise_newlines
from .memory_prompt import build_persona_memory, persona_memory_chars
from .visibility import sealed_for, view_for

if TYPE_CHECKING:
    from ..settings.templates import Phase

DEFAULT_MAX_CHARS = 60_000
DEFAULT_MEMORY_CHARS = 4_000
MEMORY_HEADING = "## Settled decisions in this project (do not reopen unless asked)"
_MEMORY_SHARE = 0.25
_MEMORY_ITEM_CHARS = 300
_PREAMBLE_SHARE = 0.25
_DIGEST_SHARE = 0.25


@dataclass(slots=True)
class Context:
    """The discussion as shown to one participant."""

    text: str
    full_comments: int
    digested_comments: int
    omitted_comments: int
    truncated_preamble: bool

    @property
    def complete(self) -> bool:
        return not (self.digested_comments or self.omitted_comments or self.truncated_preamble)


def max_chars_for(d: Discussion) -> int:
    value = d.workspace.config.section("context").get("max_chars", DEFAULT_MAX_CHARS)
    try:
        return max(2_000, int(value))
    except (TypeError, ValueError):
        return DEFAULT_MAX_CHARS


def memory_chars_for(d: Discussion) -> int:
    """``memory.max_chars`` (default 4,000); 0 when ``memory.enabled`` is false."""
    section = d.workspace.config.section("memory")
    if section.get("enabled", True) is False:
        return 0
    value = section.get("max_chars", DEFAULT_MEMORY_CHARS)
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return DEFAULT_MEMORY_CHARS


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


def _render(c: Comment) -> str:
    return f"---\n\nName: {c.author}\n\n{c.body.strip()}\n"


def _digest_line(c: Comment) -> str:
    parts = [f"- line {c.line}, {c.author}:"]
    for m in c.markers:
        text = m.text if len(m.text) <= 100 else m.text[:97] + "..."
        parts.append(f"{m.kind}: {text};")
    if c.mentions:
        parts.append("mentions " + ", ".join("@" + a for a in c.mentions) + ";")
    if len(parts) == 1:
        summary = c.summary
        parts.append(summary if summary else "(no markers)")
    return " ".join(parts).rstrip(";")


def build_context(d: Discussion, participant: Participant, max_chars: int) -> Context:
    view = view_for(d, participant)  # blind or anonymous phases: what this participant sees
    text = view.text if view else normalise_newlines(d.text)
    comments = view.comments if view else d.comments
    if len(text) <= max_chars:
        return Context(text, len(comments), 0, 0, False)

    first_comment_line = comments[0].line - 2 if comments else text.count("\n") + 1
    head_lines = text.split("\n")[: max(first_comment_line - 1, 0)]
    head = "\n".join(head_lines).rstrip() + "\n"
    truncated = False
    head_budget = int(max_chars * _PREAMBLE_SHARE)
    if len(head) > head_budget:
        head = (
            head[:head_budget].rsplit("\n", 1)[0]
            + "\n[... rest of the introduction left out ...]\n"
        )
        truncated = True

    budget = max_chars - len(head) - int(max_chars * _DIGEST_SHARE) - 400
    keep: set[int] = set()
    used = 0
    mentioning = [i for i, c in enumerate(comments) if participant.alias in c.mentions]
    # Comments addressed to this participant first (newest first), then the newest overall.
    for i in [*reversed(mentioning), *range(len(comments) - 1, -1, -1)]:
        if i in keep:
            continue
        size = len(_render(comments[i]))
        if used + size > budget:
            if i in mentioning:
                continue
            break
        keep.add(i)
        used += size

    rest = [i for i in range(len(comments)) if i not in keep]
    digest_budget = max_chars - len(head) - used - 400
    digest_lines = [_digest_line(comments[i]) for i in rest]
    total = sum(len(x) + 1 for x in digest_lines)
    omitted = 0
    while omitted < len(digest_lines) and total > digest_budget:
        total -= len(digest_lines[omitted]) + 1
        omitted += 1
    digest_lines = digest_lines[omitted:]
    parts = [head]
    note = (
        f"[Context budget: {len(keep)} of {len(comments)} comments shown in full; "
        f"{len(digest_lines)} older comments summarised by their markers"
        + (f"; {omitted} oldest comments left out entirely" if omitted else "")
        + (", and the introduction was shortened" if truncated else "")
        + ".]"
    )
    parts.append("\n" + note + "\n")
    if digest_lines:
        parts.append("\nDigest of older comments:\n" + "\n".join(digest_lines) + "\n")
    for i in sorted(keep):
        parts.append("\n" + _render(comments[i]))
    return Context("".join(parts), len(keep), len(digest_lines), omitted, truncated)


RESPONSE_FORMAT = """\
Respond with JSON only, in this shape:
{"comment": "your markdown comment", "vote": "READY" | "CHANGES" | "REJECT" | null}

In the comment, put markers at the start of a line where they apply:
Q: a question you want answered
TODO: an action item
DECISION: a decision you propose or record
CONCERN: a risk or problem
ASSIGNED: a task someone has taken on
DONE: a task that is finished
Mention another participant with @alias to ask them something.
If you have nothing to add, respond with exactly: {"sentinel": "NO_RESPONSE"}"""


DIAGNOSIS_FORMAT = (
    'This phase diagnoses a problem. Also give "root_cause_key": the root cause as a short key '
    '(a few words joined by -, such as "session-token-expired", at most 60 characters) and '
    '"confidence": 0-10, how sure you are (8 or more: sure). In markdown, write ROOT-CAUSE: key '
    "and CONFIDENCE: n. The diagnosis converges when two participants name the same root cause "
    "with confidence 8 or more."
)

TURN_ACTIONS = (
    'Or "action": "PASS" (nothing to add), or "action": "CALL_VOTE" with "motion": '
    '"one sentence" for a formal vote.'
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
) -> tuple[str, Context]:
    """The prompt for `participant` in `d`'s current state, and what its context holds.

    The whole prompt stays within `max_chars` (default ``context.max_chars``) unless the
    persona and instructions alone are longer than that. With `memory` (and ``memory.enabled``
    in the configuration), the settled decisions of other discussions come before the
    discussion (see `build_memory`). Ballots on motions not yet decided are sealed from
    everyone but their authors (`visibility.sealed_for`)."""
    d = sealed_for(d, participant)
    info = d.phase_info
    budget = max_chars or max_chars_for(d)
    head = _prompt_head(d, participant, info)
    memory_at = len(head)
    head += ["## The discussion so far", "", "<discussion>"]
    tail = [
        "</discussion>",
        *_prompt_task(d, participant, info, callout),
        *_response_format(participant, info),
    ]
    frame = sum(len(x) + 1 for x in head) + sum(len(x) + 1 for x in tail) + 2
    if memory:
        share = min(memory_chars_for(d), int(max(0, budget - frame) * _MEMORY_SHARE))
        known = build_memory(d, share)
        if known:
            head.insert(memory_at, known)  # ends with a newline: a blank line follows it
            frame += len(known) + 1
        own = build_persona_memory(d, participant, persona_memory_chars(d, budget - frame))
        if own:  # the participant's own record, after the settled decisions
            head.insert(memory_at + bool(known), own)
            frame += len(own) + 1
    # The whole prompt stays within the budget: the discussion gets what the frame leaves.
    ctx = build_context(d, participant, max(2_000, budget - frame))
    lines = [*head, ctx.text.rstrip(), *tail]
    return "\n".join(lines) + "\n", ctx


def _prompt_head(d: Discussion, participant: Participant, info: Phase | None) -> list[str]:
    """The persona, who it is in this discussion, and the current phase with its instructions;
    ends with a blank line (project memory, when any, goes right after it)."""
    head: list[str] = [participant.personality.strip(), ""]
    head.append(
        f"You are {participant.name} (@{participant.alias}), "
        f"{participant.role or 'a participant'}, "
        "in a structured discussion between AI personas and humans. Speak only for yourself."
    )
    if participant.expertise:
        head.append("Your expertise: " + ", ".join(participant.expertise) + ".")
    if participant.concerns:
        head.append("Questions you always ask: " + " ".join(participant.concerns))
    head += ["", f"## Discussion: {d.title}", ""]
    phase = f"{info.title} ({d.phase})" if info else d.phase
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
    asked = [p for p in d.pending_mentions if p.alias == participant.alias]
    if asked and info is not None and (info.blind or info.anonymous):
        task.append("You were mentioned and have not answered yet; answer that first.")
    elif asked:
        where = ", ".join(f"line {p.line} by {p.by}" for p in asked)
        task.append(f"You were mentioned and have not answered yet ({where}); answer that first.")
    return task


def _response_format(participant: Participant, info: Phase | None) -> list[str]:
    """The response format, and what this phase asks of `participant`'s answer: a vote or
    none, a score and pending issues, a diagnosis, blindness."""
    lines: list[str] = ["", "## Response format", RESPONSE_FORMAT, TURN_ACTIONS]
    wants_vote = bool(info and info.voting_mode and participant.votes)
    if not participant.votes:
        lines.append('You are a background participant and do not vote: set "vote" to null.')
    elif wants_vote:
        lines.append('This phase collects votes: set "vote" to READY, CHANGES or REJECT.')
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
        lines.append(DIAGNOSIS_FORMAT)
    if info is not None and info.blind:
        lines.append("This round is blind: you see none of the other participants' answers.")
    return lines
