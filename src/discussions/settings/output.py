"""What a template says a decided discussion produces: its ``output`` key.

::

    output:
      type: documentation        # the only kind so far: a documentation loop
      leader: architect          # the participant who drafts and revises (an alias)
      max_revisions: 2           # revisions after the first draft (0 or more)
      path: docs/decision.md     # where the approved document is written

`engine.documentation` runs the loop; `discussions draft FILE` starts it by hand, and
`discussions run` starts it when the discussion reaches its decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .schema import Fields, Number, Text

OUTPUT_TYPES = ("documentation",)
DEFAULT_MAX_REVISIONS = 2

OUTPUT = Fields(
    {
        "type": Text(OUTPUT_TYPES),
        "leader": Text(),
        "max_revisions": Number(0, whole=True, what="a whole number (0 or more)"),
        "path": Text(),
    },
    "output key",
    ("type",),
)
"""The keys of a template's ``output`` (validated with the rest of the template)."""


@dataclass(slots=True)
class Output:
    """A template's ``output``."""

    type: str = "documentation"
    leader: str = ""
    """The leader's alias ("": the discussion's first voting participant)."""
    max_revisions: int = DEFAULT_MAX_REVISIONS
    path: str = ""
    """Where the approved document goes, relative to the project folder ("": next to the
    discussion, ``FILE.doc.md``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "leader": self.leader,
            "max_revisions": self.max_revisions,
            "path": self.path,
        }


def read_output(data: Any) -> Output | None:
    """The `Output` of an already validated ``output`` mapping (None when absent)."""
    if not isinstance(data, dict):
        return None
    revisions = data.get("max_revisions")
    return Output(
        type=str(data.get("type") or "documentation").strip(),
        leader=str(data.get("leader") or "").strip(),
        max_revisions=DEFAULT_MAX_REVISIONS if revisions is None else int(revisions),
        path=str(data.get("path") or "").strip(),
    )
