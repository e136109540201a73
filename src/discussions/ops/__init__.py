"""The operations: one function per act a person can take, each taking plain typed inputs and
returning a typed result with `to_dict()`, which every interface (CLI, TUI, web, MCP, LSP)
calls and renders: `comments.comment`; `lifecycle.create`, `advance`, `close`, `reopen`;
`turns.turn`, `run`, `evidence`; `review.review`; `decided.draft`, `plan_apply`, `apply`,
`review_after`, `review_applied`; `export.export`; `memory.memory`; `check.check`; and
`watch`, `probe`. `service` keeps what a long-running server needs besides: the files it may
serve, the providers a client may name, turns in the background.

The operations named here are the package's face (`syntax.faces`): `from .. import ops` costs
nothing, and ``ops.comment(...)`` loads `ops.comments` on first use, so a command imports at
the top what it calls without paying at start-up for the others. An operation named like its
module (`review`, `export`, `memory`, `check`, `watch`, `probe`) is imported from the module.
"""

from __future__ import annotations

from ..syntax.faces import face

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from .comments import comment
    from .decided import DONE, apply, check_forced, draft, plan_apply, review_after, review_applied
    from .lifecycle import advance, close, create, reopen
    from .memory import report_lines
    from .probe import probe_prompt, window_fit
    from .turns import evidence, run, turn

__getattr__, __dir__ = face(
    __name__,
    {
        "comment": "comments",
        "create": "lifecycle",
        "advance": "lifecycle",
        "close": "lifecycle",
        "reopen": "lifecycle",
        "turn": "turns",
        "run": "turns",
        "evidence": "turns",
        "check_forced": "decided",
        "draft": "decided",
        "plan_apply": "decided",
        "apply": "decided",
        "DONE": "decided",
        "review_after": "decided",
        "review_applied": "decided",
        "report_lines": "memory",
        "probe_prompt": "probe",
        "window_fit": "probe",
    },
)

__all__ = [
    "DONE",
    "advance",
    "apply",
    "check_forced",
    "close",
    "comment",
    "create",
    "draft",
    "evidence",
    "plan_apply",
    "probe_prompt",
    "reopen",
    "report_lines",
    "review_after",
    "review_applied",
    "run",
    "turn",
    "window_fit",
]
