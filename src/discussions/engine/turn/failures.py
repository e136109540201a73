"""Calls that got no answer, in the record: the cause a provider's error output gives, the
``failed:`` field of an answer that came after failures, the ``FAILED`` engine block a
participant without any answer leaves, and one line per participant saying who answered how.

A participant whose whole provider chain failed leaves, under the file lock like an answer::

    <!-- FAILED: AI-Architect | providers: llm | why: llm: exited with status 1 (Error: ...)
         | calls: 1 | at: 2026-11-23T22:00:00Z -->

    *AI-Architect got no answer: llm exited with status 1 (Error: ...).*

(on one line in the file). ``calls`` counts the providers that ran (a provider that is not
installed made no call); `derive.usage` counts them as failed calls, with the ``failed:`` entries
of answers that came after a failure, so `status` shows them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from ...errors import NOT_A_CALL
from ...model.discussion import Discussion
from ...model.storage import Appended
from ...providers.command import strip_terminal_codes
from ...syntax import clock
from ...syntax.render import visible_name
from .outcomes import Attempt, ParticipantOutcome, clean_field

_CAUSE_LIMIT = 200
"""Characters of a provider's error output kept as the cause of a failure."""
_NOISE = re.compile(r"^[\W_]*$|^\s*\d+%\s*\||^\s*(?:File \"|Traceback \(most recent call)")
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_KEY_SHAPE = re.compile(
    r"\b(?:sk-[\w-]{16,}|gh[pousr]_\w{20,}|github_pat_\w{20,}|AIza[\w-]{30,}|xox[abprs]-[\w-]{10,})"
)
"""API keys of well-known shapes (OpenAI and Anthropic, GitHub, Google, Slack)."""


def _blank_secrets(text: str) -> str:
    """`text` with what looks like a credential shown as ``***``: the value of an environment
    variable named like one (``*_KEY``, ``*_TOKEN``, ``*SECRET*``, ``*PASSWORD*``), and keys
    of well-known shapes. A CLI's error output goes into the record, which is committed."""
    for name, value in os.environ.items():
        if len(value) >= 8 and _SECRET_NAME.search(name) and value in text:
            text = text.replace(value, "***")
    return _KEY_SHAPE.sub("***", text)


def _cause_of(detail: str, limit: int = _CAUSE_LIMIT) -> str:
    """The last meaningful line of a provider's error output (`ProviderError.detail`: its last
    lines joined by `` / ``): terminal colour codes, progress bars, traceback frames and lines
    of punctuation left out, credentials blanked (`_blank_secrets`); one line, no marker
    syntax, at most `limit` characters."""
    detail = _blank_secrets(detail)
    lines = [strip_terminal_codes(part).strip() for part in re.split(r" / |\n", detail)]
    meaningful = [line for line in lines if line and not _NOISE.search(line)]
    if not meaningful:
        return ""
    cause = clean_field(meaningful[-1]).replace(";", ",")
    return cause if len(cause) <= limit else cause[: limit - 3].rstrip() + "..."


def ran(attempt: Attempt) -> bool:
    """Whether the provider of `attempt` was run (a missing executable is no call)."""
    return not attempt.reason.startswith(NOT_A_CALL)


def _why(attempt: Attempt) -> str:
    """``exited with status 1: Error: context window exceeded``: the reason and the cause."""
    cause = _cause_of(attempt.detail)
    reason = clean_field(attempt.reason).replace(";", ",")
    return f"{reason}: {cause}" if cause else reason


def _attempt_text(attempt: Attempt) -> str:
    """``llm (exited with status 1: Error: context window exceeded)``."""
    return f"{clean_field(attempt.provider)} ({_why(attempt)})"


def failed_meta(attempts: Sequence[Attempt]) -> list[str]:
    """The ``failed: ...`` part of an answer's metadata line: the calls that failed before it
    (none when none did). A provider that is not installed made no call and is not recorded
    (it is said on the terminal, once per command)."""
    calls = [a for a in attempts if ran(a)]
    if not calls:
        return []
    return ["failed: " + "; ".join(_attempt_text(a) for a in calls)]


def render_failed(outcome: ParticipantOutcome) -> str:
    """The ``FAILED`` block for a participant none of whose providers answered."""
    attempts = outcome.attempts
    why = "; ".join(f"{a.provider}: {_why(a)}" for a in attempts)
    fields = [
        clean_field(outcome.name),
        "providers: " + clean_field(", ".join(a.provider for a in attempts) or "none"),
        "why: " + clean_field(why or "no provider to ask")[:600],
        f"calls: {sum(1 for a in attempts if ran(a))}",
        f"at: {clock.now_stamp()}",
    ]
    shown = "; ".join(_shown(a) for a in attempts) or "no provider to ask"
    return (
        f"<!-- FAILED: {' | '.join(fields)} -->\n\n"
        f"*{visible_name(clean_field(outcome.name))} got no answer: {shown}.*\n"
    )


def _shown(attempt: Attempt) -> str:
    cause = _cause_of(attempt.detail, 120)
    text = f"{attempt.provider} {attempt.reason}" + (f" ({cause})" if cause else "")
    return visible_name(clean_field(text))


def record_failure(
    d: Discussion, outcome: ParticipantOutcome, write: Callable[[str], Appended]
) -> None:
    """Append the ``FAILED`` block for `outcome` (a participant without an answer) with the
    turn's `write`, so it follows the round's own block like the answers do. Only calls are
    recorded: when no provider ran (none installed, a name nobody defines), nothing is
    written (the preflight refuses those before a turn starts; this is for a provider that
    went missing meanwhile), and a note says so."""
    if not any(ran(a) for a in outcome.attempts):
        outcome.notes.append("no provider could be started, so no call was made or recorded")
        return
    outcome.notes.extend(write(render_failed(outcome)).lost_messages(d.path))


def answered_line(o: ParticipantOutcome) -> str:
    """Who answered a participant and how, for the end of a turn: ``AI-Ada: llm``,
    ``AI-Ada: mock, standing in after llm failed (its vote not counted)``, ``AI-Ada: no
    answer (llm failed)``."""
    failed = ", ".join(a.provider for a in o.attempts if ran(a))
    if o.status == "failed":
        return f"{o.name}: no answer" + (f" ({failed} failed)" if failed else "")
    via = o.provider or "?"
    if o.mock_fallback:
        via += " (built-in mock: no AI CLI of the chain is installed)"
    elif o.stand_in:
        via += f", standing in after {failed} failed (its vote is not counted)"
    elif failed:
        via += f" (fallback after {failed} failed)"
    if o.vote_from_follow_up:
        via += "; vote from the one-line follow-up"
    if o.truncated:
        via += "; answer cut to the length limit"
    if o.length_cut:
        via += f"; answer cut by the token limit ({o.length_cut})"
    return f"{o.name}: {via}" + (" - passed" if o.status == "no_response" else "")


def answered_summary(outcomes: Sequence[ParticipantOutcome]) -> list[str]:
    """Who answered how over several turns, one line per participant in order of first
    appearance: ``AI-Ada: llm 3, mock standing in 1, no answer 1``."""
    tallies: dict[str, dict[str, int]] = {}
    for o in outcomes:
        if o.status == "failed":
            how = "no answer"
        elif o.stand_in:
            how = f"{o.provider} standing in (vote not counted)"
        elif o.mock_fallback:
            how = f"{o.provider} (no AI CLI installed)"
        else:
            how = o.provider or "?"
        tally = tallies.setdefault(o.name, {})
        tally[how] = tally.get(how, 0) + 1
    return [
        f"{name}: " + ", ".join(f"{how} {n}" for how, n in tally.items())
        for name, tally in tallies.items()
    ]
