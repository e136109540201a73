"""Who responds in a turn (@mention routing)."""

from __future__ import annotations

from collections.abc import Sequence

from ..model.discussion import Discussion
from ..settings.participants import Participant


def select_participants(d: Discussion, requested: Sequence[str] = ()) -> list[Participant]:
    """The participants to invoke.

    * Named aliases (``@`` optional); ``all`` means the discussion's participants.
    * With none named: the participants mentioned and not yet answered; else the discussion's
      participants; else the configured default participants.

    An unknown alias raises `UnknownParticipant` (listing the known ones) before anything runs.
    """
    registry = d.workspace.participants
    aliases: list[str] = []
    names = [r.strip().lstrip("@").lower() for r in requested if r.strip().lstrip("@")]
    if names:
        for name in names:
            aliases.extend(d.participants or registry.aliases() if name == "all" else [name])
    else:
        aliases = [p.alias for p in d.pending_mentions if p.alias in registry]
        if not aliases:
            aliases = d.participants or d.workspace.config.default_participants
    chosen: list[Participant] = []
    for alias in aliases:
        p = registry.get(alias)
        if p not in chosen:
            chosen.append(p)
    return chosen
