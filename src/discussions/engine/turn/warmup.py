"""Loading, while the providers think, what only their answers need: not before the first
call (it is not needed to start it) nor after the last answer (the turn would wait for it)."""

from __future__ import annotations

import sys
import threading

from ...syntax.code import block_parser

_WARM_UP_DELAY = 0.05
"""Seconds before `_warm_up` loads: the commands are started by then (a few ms each), and
the imports do not hold the interpreter lock while they start."""

_AFTER_THE_CALLS = (
    "discussions.engine.turn.posting",  # each answer into the record (with `followup`, `responses`)
    "discussions.model.journal",  # the memory of one's own appends
    "discussions.engine.turn.phases",  # the phase rules after the answers
    "discussions.engine.council.motions",  # an open motion after the answers
)
"""What only the answers need: loaded while the providers think, not before the first call
(they are not needed to start it) nor after the last answer (the turn would wait for them)."""


def warm_up() -> None:
    """Load, while the providers think, the markdown parser that every answer goes through
    (`neutralise`; importing markdown-it takes 15-50 ms) and the modules only the answers
    need (`_AFTER_THE_CALLS`): otherwise they would load after the first answer arrives."""
    if not all(name in sys.modules for name in ("markdown_it", *_AFTER_THE_CALLS)):
        timer = threading.Timer(_WARM_UP_DELAY, load_for_the_answers)
        timer.daemon = True
        timer.start()


def load_for_the_answers() -> None:
    import importlib

    block_parser()
    for name in _AFTER_THE_CALLS:
        importlib.import_module(name)
