"""The lines a persona's shape adds to its prompt (`settings.shape`): one for its traits, one
for its focus weights, right under its expertise and concerns; nothing for a persona without
them. The compact prompt of a small window leaves them out, as it leaves out the expertise."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...settings.participants import Participant

__all__ = ["shape_lines"]


def _weight(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def shape_lines(participant: Participant) -> list[str]:
    """``Your traits: ...`` and ``Your focus, by weight: ...`` (heaviest first, then by
    name: the same persona gives the same prompt)."""
    lines: list[str] = []
    if participant.traits:
        lines.append(
            "Your traits: " + ", ".join(participant.traits) + ". Let them show in how you argue."
        )
    if participant.focus:
        ranked = sorted(participant.focus.items(), key=lambda tw: (-tw[1], tw[0]))
        weights = ", ".join(f"{topic} {_weight(w)}" for topic, w in ranked)
        lines.append(
            f"Your focus, by weight (0-10): {weights}. Give each topic attention in proportion "
            "to its weight, and say when a heavy one is missing from the proposal."
        )
    return lines
