"""Who responds in a turn (@mention routing), and who speaks in a round of `discussions run`."""

from __future__ import annotations

from collections.abc import Sequence

from ...model.discussion import Discussion
from ...settings.participants import Participant


def select_participants(
    d: Discussion, requested: Sequence[str] = (), *, council: bool = False
) -> list[Participant]:
    """The participants to invoke.

    * Named aliases (``@`` optional); ``all`` means the discussion's participants.
    * With none named, a turn (``discussions turn``): the participants mentioned and not yet
      answered; else the discussion's participants; else the configured default participants.
    * With none named and `council` (a round of ``discussions run``): the discussion's
      participants (else the defaults), and after them the participants mentioned and not yet
      answered who are not among them. A mention adds to a round; it never replaces the
      council, or a run would ask the mentioned participant alone, round after round.

    An unknown alias raises `UnknownParticipant` (listing the known ones) before anything runs.
    """
    registry = d.workspace.participants
    aliases: list[str] = []
    names = [r.strip().lstrip("@").lower() for r in requested if r.strip().lstrip("@")]
    if names:
        for name in names:
            aliases.extend(d.participants or registry.aliases() if name == "all" else [name])
    else:
        mentioned = [p.alias for p in d.pending_mentions if p.alias in registry]
        seated = d.participants or d.workspace.config.default_participants
        aliases = [*seated, *mentioned] if council else mentioned or seated
    chosen: list[Participant] = []
    for alias in aliases:
        p = registry.get(alias)
        if p not in chosen:
            chosen.append(p)
    return chosen
