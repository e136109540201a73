"""A participant's own record in earlier discussions, as its prompt and `discussions memory`
show it.

`reminder` chooses what a participant is reminded of: its episodes (`model.memory.history`),
newest first, the discussion being prompted left out, fading after ``memory.discussions``
(default 25) discussions. `build_persona_memory` renders them for the prompt, after the
project's settled decisions, within ``memory.per_participant_chars`` (default 3,000) and the
share of the budget the prompt gives it, with a one-line count of the discussions left out.

The record is the participant's own, so a blind phase keeps it. In an anonymous phase every
``@mention`` in it, and the names of the other participants and authors of the discussion being
prompted (in decisions and motions it quotes), become "another participant", so it reveals
nobody.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...model.memory import DEFAULT_DISCUSSIONS, Episode, history
from ...syntax.record import Record

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ...model.discussion import Discussion
    from ...settings.participants import Participant
    from ...settings.workspace import Workspace

__all__ = [
    "DEFAULT_PER_PARTICIPANT_CHARS",
    "LABELS",
    "SIDES",
    "PERSONA_MEMORY_HEADING",
    "Reminder",
    "anonymiser",
    "build_persona_memory",
    "episode_lines",
    "memory_settings",
    "persona_memory_chars",
    "reminder",
]

DEFAULT_PER_PARTICIPANT_CHARS = 3_000
PERSONA_MEMORY_HEADING = "## Your own record in earlier discussions (newest first)"
_NOTE_HINT = (
    "To keep something for your later discussions, write a REMEMBER: line; to have a question "
    "looked at again under a condition, a REVISIT-WHEN: line."
)
_ITEM_CHARS = 200
_SHARE = 0.15
SIDES = {
    "won": "you ended on the winning side",
    "lost": "you ended on the losing side",
    "open": "still open",
    "": "you took no side on the outcome",
}
LABELS = {
    "VOTE": "voted",
    "SCORE": "scored",
    "CONCERN": "concern:",
    "DECISION": "proposed decision:",
    "MOTION": "moved:",
    "SECOND": "seconded:",
    "DECLINED": "declined to second:",
    "BALLOT": "ballot",
    "ROOT-CAUSE": "root cause:",
    "REMEMBER": "remember:",
    "REVISIT-WHEN": "revisit when:",
}


class Reminder(Record):
    """What one participant is reminded of.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("alias", "enabled", "limit", "episodes", "left_out")
    alias: str
    enabled: bool
    limit: int
    """``memory.discussions``: how many discussions are shown at most."""
    episodes: list[Episode]
    """The discussions shown, newest first."""
    left_out: int
    """Older discussions of its history beyond `limit`."""

    def __init__(
        self,
        alias: str,
        enabled: bool,
        limit: int,
        episodes: list[Episode] | None = None,
        left_out: int = 0,
    ) -> None:
        self.alias = alias
        self.enabled = enabled
        self.limit = limit
        self.episodes = [] if episodes is None else episodes
        self.left_out = left_out

    def to_dict(self) -> dict[str, Any]:
        return {
            "alias": self.alias,
            "enabled": self.enabled,
            "limit": self.limit,
            "episodes": [e.to_dict() for e in self.episodes],
            "left_out": self.left_out,
        }


def _count(section: dict[str, Any], key: str, default: int) -> int:
    try:
        return max(0, int(section.get(key, default)))
    except (TypeError, ValueError):
        return default


def memory_settings(workspace: Workspace) -> tuple[bool, int, int]:
    """(``memory.enabled``, ``memory.per_participant_chars``, ``memory.discussions``)."""
    section = workspace.config.section("memory")
    enabled = section.get("enabled", True) is not False
    chars = _count(section, "per_participant_chars", DEFAULT_PER_PARTICIPANT_CHARS)
    return enabled, chars, _count(section, "discussions", DEFAULT_DISCUSSIONS)


def reminder(
    workspace: Workspace,
    participant: Participant,
    *,
    exclude: Path | None = None,
    folder: Path | None = None,
) -> Reminder:
    """`participant`'s episodes to be reminded of, newest first (see the module)."""
    enabled, _, limit = memory_settings(workspace)
    found = history(workspace, participant, folder=folder, exclude=exclude)
    shown = found[:limit]
    return Reminder(participant.alias, enabled, limit, shown, len(found) - len(shown))


def short_item(text: str) -> str:
    """`text` on one line, cut to what a prompt's memory gives one item."""
    text = " ".join(text.split())
    return text if len(text) <= _ITEM_CHARS else text[: _ITEM_CHARS - 3].rstrip() + "..."


def episode_lines(e: Episode) -> list[str]:
    """One episode for a prompt: a headline, then what it did, decided, noted."""
    date = f", {e.date[:10]}" if e.date else ""
    lines = [f"- {short_item(e.title)} ({e.status}{date}): {SIDES.get(e.side, e.side)}."]
    took = [f"{LABELS.get(p.kind, p.kind)} {short_item(p.text)}" for p in e.positions]
    if took:
        lines.append("  You: " + "; ".join(took))
    if e.decided:
        lines.append("  Decided: " + "; ".join(short_item(x) for x in e.decided))
    return lines


def fitting(blocks: Iterable[str], hide: re.Pattern[str] | None, room: int) -> list[str]:
    """The leading `blocks` (names hidden by `hide`, an `anonymiser`) that fit in `room`
    characters with a line counting those left out (60 kept for it): the whole episodes or
    council entries a prompt's memory section shows, newest first."""
    fitted: list[str] = []
    used = 60
    for block in blocks:
        if hide is not None:
            block = hide.sub("another participant", block)
        if used + len(block) > room:
            break
        fitted.append(block)
        used += len(block)
    return fitted


def anonymiser(d: Discussion, participant: Participant) -> re.Pattern[str] | None:
    """In an anonymous phase of `d`, what hides the others from `participant`: every
    ``@mention`` and the names of `d`'s other participants and authors (to be replaced with
    "another participant"); None in any other phase."""
    info = d.phase_info
    if info is None or not info.anonymous:
        return None
    registry = d.workspace.participants
    others = {registry.get(a).name for a in d.participants if a in registry}
    others |= {c.author for c in d.comments}
    others -= {participant.name, participant.alias}
    names = sorted((re.escape(n) for n in others if n), key=len, reverse=True)
    pattern = r"@[\w-]+" + (r"|\b(?:" + "|".join(names) + r")\b" if names else "")
    return re.compile(pattern)


def persona_memory_chars(d: Discussion, room: int) -> int:
    """What a prompt in `d` gives the participant's own record: ``memory.per_participant_chars``,
    at most `_SHARE` of the `room` the prompt's frame leaves; 0 when memory is off."""
    enabled, chars, _ = memory_settings(d.workspace)
    return min(chars, int(max(0, room) * _SHARE)) if enabled else 0


def build_persona_memory(d: Discussion, participant: Participant, max_chars: int) -> str:
    """`participant`'s own record for a prompt in `d`, at most `max_chars` long: whole
    episodes, newest first, and a line counting those left out (faded or not fitting); empty
    when memory is off, there is none, or not one episode fits."""
    if max_chars <= 0:
        return ""
    r = reminder(d.workspace, participant, exclude=d.path)
    if not r.enabled or not r.episodes:
        return ""
    hide = anonymiser(d, participant)
    head = PERSONA_MEMORY_HEADING + "\n\n"
    tail = _NOTE_HINT + "\n"
    episodes = ("\n".join(episode_lines(e)) + "\n" for e in r.episodes)
    blocks = fitting(episodes, hide, max_chars - len(head) - len(tail))
    if not blocks:
        return ""
    left = r.left_out + len(r.episodes) - len(blocks)
    more = (
        f"[... {left} older discussion{'s' if left != 1 else ''} of yours left out]\n"
        if left
        else ""
    )
    return head + "".join(blocks) + more + "\n" + tail
