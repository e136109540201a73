"""What a template says a decided discussion produces: its ``output`` key.

::

    output:
      type: documentation        # the only kind so far: a documentation loop
      leader: architect          # the participant who drafts and revises (an alias)
      max_revisions: 2           # revisions after the first draft (0 or more)
      path: docs/decision.md     # where the approved document is written

`engine.council.documentation` runs the loop; `discussions draft FILE` starts it by hand, and
`discussions run` starts it when the discussion reaches its decision.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from ..syntax.record import Record
from .schema import Fields, Number, Text

_OUTPUT_TYPES = ("documentation",)
DEFAULT_MAX_REVISIONS = 2
_DOCUMENT_SUFFIXES = (".md", ".markdown")
"""What the document may be: the loop asks for markdown, so a markdown file (never code, a
test, a setting, or a ``.txt``/``.rst`` that would hold markdown under another name)."""
_INSTRUCTION_FILES = (
    "agents.md", "agents.override.md", "agent.md", "claude.md", "claude.local.md", "gemini.md",
    "qwen.md",
)  # fmt: skip
"""Markdown files an AI coding CLI reads as its instructions when it runs in the project
(lower-cased; at any depth): a draft written there would steer the next AI run. Claude Code
reads CLAUDE.md and CLAUDE.local.md, Codex AGENTS.override.md before AGENTS.md in each folder
(developers.openai.com/codex/guides/agents-md), opencode AGENTS.md, Gemini CLI GEMINI.md, Qwen
Code QWEN.md (each CLI's own documentation on project instructions or memory files)."""

OUTPUT = Fields(
    {
        "type": Text(_OUTPUT_TYPES),
        "leader": Text(),
        "max_revisions": Number(0, whole=True, what="a whole number (0 or more)"),
        "path": Text(),
    },
    "output key",
    ("type",),
)
"""The keys of a template's ``output`` (validated with the rest of the template)."""


class Output(Record):
    """A template's ``output``. (A slotted `Record`: every turn loads the templates before its
    first call, and making a dataclass costs ~0.3 ms.)"""

    __slots__ = ("type", "leader", "max_revisions", "path")
    type: str
    leader: str
    """The leader's alias ("": the discussion's first voting participant)."""
    max_revisions: int
    path: str
    """Where the approved document goes, relative to the project folder ("": next to the
    discussion, ``FILE.doc.md``)."""

    def __init__(
        self,
        type: str = "documentation",  # noqa: A002 - the template's key
        leader: str = "",
        max_revisions: int = DEFAULT_MAX_REVISIONS,
        path: str = "",
    ) -> None:
        self.type = type
        self.leader = leader
        self.max_revisions = max_revisions
        self.path = path

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


def document_path_problem(path: str) -> str | None:
    """Why `path` (relative to the project folder) is no place for the approved document, or
    None: it must be a relative markdown file (`_DOCUMENT_SUFFIXES`), outside every hidden
    folder (``.git``, ``.github``, an AI CLI's settings) and not an AI CLI's instruction file.
    Only the words of the path: where links lead is the engine's to check
    (`engine.council.documentation`), on the real path, with this same rule."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if not parts or path.startswith(("/", "~")) or ".." in parts:
        return "is not a relative path inside the project"
    if any(p.startswith(".") for p in parts):
        return "is in a hidden folder or names a hidden file (.git, .github and the like)"
    if not parts[-1].lower().endswith(_DOCUMENT_SUFFIXES):
        return f"does not name a markdown file ({' or '.join(_DOCUMENT_SUFFIXES)})"
    if parts[-1].lower() in _INSTRUCTION_FILES:
        return "names a file an AI coding tool reads as its instructions"
    return None
