"""The council's memory in a prompt (`model.council`): how the council decided before, a short
section after the participant's own record.

Newest first, the discussion being prompted left out, at most ``memory.council_discussions``
(default 25) discussions: older ones fade from prompts (counted in one line) while the
council files keep them all. Within ``memory.council_chars`` (default 2,000) and
`_SHARE` of the room the prompt's frame leaves; whole entries only. In an anonymous phase the
voters' names are left out (the tally and the number of dissenters stay), and mentions and the
names of this discussion's people in the decisions become "another participant", as in the
participant's own record (`memory.anonymiser`); off with ``memory.enabled: false``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model.council import CouncilEntry, council_entries, entry_lines
from .memory import anonymiser, fitting, short_item

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ...settings.participants import Participant

__all__ = [
    "COUNCIL_HEADING",
    "DEFAULT_COUNCIL_CHARS",
    "DEFAULT_COUNCIL_DISCUSSIONS",
    "build_council_memory",
    "council_memory_chars",
]

COUNCIL_HEADING = "## How this council decided before (newest first)"
DEFAULT_COUNCIL_CHARS = 2_000
DEFAULT_COUNCIL_DISCUSSIONS = 25
_SHARE = 0.10


def _setting(d: Discussion, key: str, default: int) -> int:
    try:
        return max(0, int(d.workspace.config.section("memory").get(key, default)))
    except (TypeError, ValueError):
        return default


def council_memory_chars(d: Discussion, room: int) -> int:
    """What a prompt in `d` gives the council's memory: ``memory.council_chars``, at most
    `_SHARE` of the `room` the frame leaves; 0 when memory is off."""
    if d.workspace.config.section("memory").get("enabled", True) is False:
        return 0
    return min(_setting(d, "council_chars", DEFAULT_COUNCIL_CHARS), int(max(0, room) * _SHARE))


def _block(e: CouncilEntry, names: bool) -> str:
    date = f", {e.date[:10]}" if e.date else ""
    lines = [f"- {short_item(e.title)} ({e.status}{date})"]
    lines += ["  " + short_item(line) for line in entry_lines(e, names)]  # a long decision cut
    return "\n".join(lines) + "\n"


def build_council_memory(d: Discussion, participant: Participant, max_chars: int) -> str:
    """The council's memory for `participant`'s prompt in `d`, at most `max_chars` long
    (module docstring); empty when there is none or not one entry fits."""
    if max_chars <= 0:
        return ""
    entries = council_entries(d.workspace, skip=d.path)
    limit = _setting(d, "council_discussions", DEFAULT_COUNCIL_DISCUSSIONS)
    hide = anonymiser(d, participant)
    head = COUNCIL_HEADING + "\n\n"
    shown = (_block(e, hide is None) for e in entries[:limit])
    blocks = fitting(shown, hide, max_chars - len(head))
    if not blocks:
        return ""
    left = len(entries) - len(blocks)
    more = f"[... {left} older discussion{'s' if left != 1 else ''} left out]\n" if left else ""
    return head + "".join(blocks) + more
