"""Rules whose module is loaded only for a file that holds what they read: most files hold no
evidence, draft, apply, re-trial, outcome, choice or recheck, and every command derives one,
so `status` does not pay for the digest, fence and field helpers those rules need.

    ("applies", loaded_rule("applies", blocks="applies"))   # derive.applies.rule_applies
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING

from ..syntax.kinds import ENGINE_BY_KIND

if TYPE_CHECKING:
    from .state import State


def reads_blocks(s: State, reader: str) -> bool:
    """Whether the file holds an engine block of a kind `reader` reads (`kinds.ENGINE_KINDS`)."""
    return any(ENGINE_BY_KIND[m.kind].reader == reader for m in s.doc.engine_markers)


def loaded_rule(module: str, blocks: str = "", marker: str = "") -> Callable[[State], None]:
    """The rule ``rule_<module>`` of ``derive.<module>``, imported and run only for a file that
    holds an engine block `blocks` names as its reader, or a comment with a `marker`."""

    def rule(s: State) -> None:
        if (blocks and reads_blocks(s, blocks)) or (marker and s.holds(marker)):
            getattr(import_module(f"{__package__}.{module}"), f"rule_{module}")(s)

    rule.__doc__ = f"`{module}.rule_{module}`, loaded only for a file that holds what it reads."
    return rule
