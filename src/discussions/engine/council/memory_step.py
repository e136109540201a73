"""The council's memory kept up to date after a turn (`model.council.update_council`): once
the council files exist (`discussions council-memory --write` made them), each turn that heard
something re-derives its own discussion's entry and rewrites them. Nothing is written before
that, so a project that never asked for the files gets none. A failure is a warning: the
answers are in, and the files can be rebuilt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import DiscussionsError
from ..turn.steps import Step

if TYPE_CHECKING:
    from ..turn.steps import AfterAnswers

__all__ = ["COUNCIL_MEMORY"]


def _refresh_council(after: AfterAnswers) -> None:
    if not after.heard:
        return
    from ...model.council import update_council

    d = after.discussion
    try:
        update_council(d.workspace, [d.path])
    except (DiscussionsError, OSError) as exc:
        after.result.warnings.append(f"council memory not updated: {exc}")


COUNCIL_MEMORY = Step("council-memory", _refresh_council)
