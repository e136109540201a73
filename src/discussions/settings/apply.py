"""What ``apply:`` says, in ``discussions.yaml`` and in a template: how a decided discussion's
change is made and reviewed.

::

    apply:
      max_revisions: 2   # revisions the lead makes after a review asks for changes (0 or more)
      timeout: 1800      # seconds the lead's write-mode command may run
      review: true       # review the change after an apply (`discussions run` too)
      sandbox: auto      # the lead in bubblewrap where installed; required: refuse without

A template's ``apply:`` takes precedence over ``discussions.yaml``'s, key by key
(`apply_settings`); a key neither sets has its default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..syntax.record import Record
from .schema import Fields, Flag, Number, OneOf, Text

if TYPE_CHECKING:
    from .config import Config
    from .templates import Template

DEFAULT_MAX_REVISIONS = 2
DEFAULT_TIMEOUT = 1800.0
SANDBOX_SETTINGS = ("auto", "required", "off")
"""``apply.sandbox``: ``auto`` runs the lead in bubblewrap where it is installed, ``required``
refuses to run a lead without it, ``off`` never uses it (`engine.apply.sandbox`)."""
_KEYS = ("max_revisions", "timeout", "review", "sandbox")

APPLY = Fields(
    {
        "max_revisions": Number(0, whole=True, what="a whole number (0 or more)"),
        "timeout": Number(above=0, what="a positive number of seconds"),
        "review": Flag(),
        # YAML reads a bare `off` as false: that is `off` too
        "sandbox": OneOf((Text(SANDBOX_SETTINGS), Flag()), "auto, required or off"),
    },
    noun="apply setting",
)
"""The keys of ``apply:`` (in ``discussions.yaml`` and in a template)."""


class _ApplySettings(Record):
    """``apply:`` as it applies to one discussion. A `Record`, not a dataclass: this module
    is imported by every command that reads a template, where making a dataclass costs
    start-up time (see `syntax.record`)."""

    __slots__ = _KEYS

    def __init__(
        self,
        max_revisions: int = DEFAULT_MAX_REVISIONS,
        timeout: float = DEFAULT_TIMEOUT,
        review: bool = False,
        sandbox: str = "auto",
    ) -> None:
        self.max_revisions = max_revisions
        self.timeout = timeout
        self.review = review
        self.sandbox = sandbox

    def to_dict(self) -> dict[str, Any]:
        return {
            "max_revisions": self.max_revisions,
            "timeout": self.timeout,
            "review": self.review,
            "sandbox": self.sandbox,
        }


def read_apply(data: Any) -> dict[str, Any] | None:
    """The keys an already validated ``apply:`` mapping sets (None when absent)."""
    if not isinstance(data, dict):
        return None
    return {k: data[k] for k in _KEYS if data.get(k) is not None}


def _sandbox(value: Any) -> str:
    """``apply.sandbox`` as one of `SANDBOX_SETTINGS` (``off: false`` of YAML is ``off``,
    ``true`` is ``auto``)."""
    if isinstance(value, bool):
        return "auto" if value else "off"
    return str(value).strip()


def apply_settings(config: Config, template: Template | None = None) -> _ApplySettings:
    """The ``apply:`` settings for a discussion of `template`: the template's keys, then
    ``discussions.yaml``'s, then the defaults."""
    merged = dict(read_apply(config.section("apply")) or {})
    if template is not None and template.apply:
        merged.update(template.apply)
    return _ApplySettings(
        max_revisions=int(merged.get("max_revisions", DEFAULT_MAX_REVISIONS)),
        timeout=float(merged.get("timeout", DEFAULT_TIMEOUT)),
        review=bool(merged.get("review", False)),
        sandbox=_sandbox(merged.get("sandbox", "auto")),
    )
