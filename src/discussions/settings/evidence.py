"""The ``evidence`` settings of ``discussions.yaml``: the commands a participant may ask to
run, what is never read, the follow-up call, and the limits."""

from __future__ import annotations

from ..syntax.record import Record
from .config import Config


class EvidenceSettings(Record):
    """``evidence:`` in ``discussions.yaml`` (docs/evidence.md).
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = (
        "commands", "exclude", "follow_up", "max_requests", "max_chars", "max_turn_chars",
        "timeout",
    )  # fmt: skip
    commands: dict[str, str]
    """``run NAME`` -> the command line; they run only once `discussions trust` allows them."""
    exclude: tuple[str, ...]
    """Globs never read, besides the built-in secret patterns."""
    follow_up: bool
    """Whether a participant whose request was fulfilled during a turn is asked once more."""
    max_requests: int
    """Requests fulfilled per participant per turn; more are refused."""
    max_chars: int
    """Characters one block holds at most (cut at a line, said in the block)."""
    max_turn_chars: int
    """Characters all blocks of one fulfilment hold at most; later requests are refused."""
    timeout: float
    """Seconds a ``run`` command may take."""

    def __init__(
        self,
        commands: dict[str, str] | None = None,
        exclude: tuple[str, ...] = (),
        follow_up: bool = True,
        max_requests: int = 3,
        max_chars: int = 20_000,
        max_turn_chars: int = 60_000,
        timeout: float = 120.0,
    ) -> None:
        self.commands = {} if commands is None else commands
        self.exclude = exclude
        self.follow_up = follow_up
        self.max_requests = max_requests
        self.max_chars = max_chars
        self.max_turn_chars = max_turn_chars
        self.timeout = timeout


def evidence_settings(config: Config) -> EvidenceSettings:
    """The evidence settings, defaults for what is not set (types checked when loading)."""
    raw = config.section("evidence")
    out = EvidenceSettings()
    commands = raw.get("commands") or {}
    out.commands = {str(k): str(v) for k, v in commands.items() if isinstance(v, str) and v}
    out.exclude = tuple(str(x) for x in raw.get("exclude") or ())
    if raw.get("follow_up") is not None:
        out.follow_up = bool(raw["follow_up"])
    for key in ("max_requests", "max_chars", "max_turn_chars", "timeout"):
        if raw.get(key) is not None:
            setattr(out, key, type(getattr(out, key))(raw[key]))
    return out
