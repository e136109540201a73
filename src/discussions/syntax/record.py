"""`Record`: equality and repr by fields for the records the merge driver's path builds.

git starts the merge driver once per merged file, and the ``dataclasses`` module (with
``inspect``, which it imports) costs more to import than the merge itself takes, as does
making each dataclass. The records of a parse and of a merge are therefore plain classes with
``__slots__`` and a written-out ``__init__``; this base gives them what a dataclass would add:
``==`` field by field (a record is then unhashable, as a dataclass with ``eq``) and a repr
that names the fields.
"""

from __future__ import annotations


class Record:
    """Fields are the ``__slots__`` of the subclass, in order."""

    __slots__: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # mutable and compared by value

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.__slots__)

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"{type(self).__name__}({shown})"
