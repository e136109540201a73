"""`Lazy`: a regular expression compiled when it is first used, not when its module loads.

A turn imports some hundred modules before it starts its first AI command line, and their
module-level ``re.compile`` calls cost about a fifth of that start (measured with valgrind:
~60 M instructions, ~10 ms). Most of them are for what a turn's prompt does not need: kinds
of line that the file may not have, or that only the answers are searched for. A `Lazy`
pattern costs nothing until it is used; the turn compiles those still waiting while the
providers think (`compile_waiting`, from `engine.turn.steps.warm_up`), so that reading the
answers does not pay for them either.

Once compiled, the pattern's methods are the compiled pattern's own (bound on the instance),
so a lazy pattern in a loop costs what a compiled one does. Compiling twice at once (the
warm-up's thread and the main thread) is harmless: both get equal patterns.
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (the merge driver)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

__all__ = ["Lazy", "compile_waiting"]

_waiting: list[Lazy] = []
"""The patterns made and not yet compiled (`compile_waiting` empties it)."""


class Lazy:
    """``re.compile(source, flags)``, done on the first call of one of its methods."""

    def __init__(self, source: str, flags: int | re.RegexFlag = 0) -> None:
        self.source = source
        self.flags = flags
        _waiting.append(self)

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not); the methods are then its own."""
        pattern = re.compile(self.source, self.flags)
        found: dict[str, Any] = {
            "compiled": lambda: pattern,
            "match": pattern.match,
            "fullmatch": pattern.fullmatch,
            "search": pattern.search,
            "finditer": pattern.finditer,
            "findall": pattern.findall,
            "sub": pattern.sub,
            "split": pattern.split,
        }
        vars(self).update(found)
        return pattern

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled().fullmatch(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().search(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled().findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled().sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled().split(string, maxsplit)


def compile_waiting() -> None:
    """Compile the lazy patterns not compiled yet (while nothing else needs the time)."""
    while _waiting:
        try:
            pattern = _waiting.pop()
        except IndexError:  # another thread took the last one
            return
        if "compiled" not in vars(pattern):
            pattern.compiled()
