"""The King's Choice (`syntax.choice`): at the end of a ``discussions run`` that reached
consensus, the person at the terminal chooses what happens to the decision: apply it now,
leave it to a person, or decide later. `choose` records that choice in the file (a ``CHOICE``
line); asking is the interface's part, and only on a terminal."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..model.discussion import Discussion
from ..model.handoff import is_decided
from ..settings.config import default_author
from ..settings.workspace import Workspace
from ..syntax import clock
from ..syntax.choice import CHOICES, ChoiceRecord, choice_sentence, render_choice


@dataclass(slots=True)
class Chosen:
    """A choice as recorded."""

    file: Path
    record: ChoiceRecord

    def to_dict(self) -> dict[str, Any]:
        r = self.record
        said = choice_sentence(r)
        return {"file": str(self.file), "choice": r.choice, "by": r.by, "at": r.at, "said": said}


def choose(ws: Workspace, path: Path, choice: str, by: str | None = None) -> Chosen:
    """Record `choice` (one of `CHOICES`) made by `by` (default: git's user.name, else the
    OS user) on the decided discussion at `path`; `BadInput` for an unknown choice or a
    discussion that decided nothing."""
    if choice not in CHOICES:
        raise BadInput(f"the choice is one of {', '.join(CHOICES)}, not '{choice}'", "choice")
    d = Discussion.load(path, ws)
    decided, why = is_decided(d)
    if not decided:
        raise BadInput(f"the King's Choice follows a decision, and {d.path.name}: {why}")
    rec = ChoiceRecord(choice, by or default_author(), clock.now_stamp())
    d.transact(lambda now: now.add_block(render_choice(rec)))
    return Chosen(d.path, rec)
