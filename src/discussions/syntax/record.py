"""`Record`: equality and repr by fields for the records the merge driver's path builds
(and a turn's, before its first call); `FrozenRecord`, one whose fields cannot change.

git starts the merge driver once per merged file, and the ``dataclasses`` module (with
``inspect``, which it imports) costs more to import than the merge itself takes, as does
making each dataclass. The records of a parse and of a merge are therefore plain classes with
``__slots__`` and a written-out ``__init__``; this base gives them what a dataclass would add:
``==`` field by field (a record is then unhashable, as a dataclass with ``eq``) and a repr
that names the fields.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (the merge driver)
if TYPE_CHECKING:
    from typing import ClassVar


class Record:
    """Fields are the ``__slots__`` of the subclass, in order; a subclass that compares or
    shows others (its base's too, or fewer) names them in `_compared` and `_shown`."""

    __slots__: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # mutable and compared by value
    _compared: ClassVar[tuple[str, ...]] = ()
    """The fields ``==`` goes by, where not the ``__slots__`` (empty: those)."""
    _shown: ClassVar[tuple[str, ...]] = ()
    """The fields the repr shows, where not the ``__slots__`` (empty: those)."""

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = self._compared or self.__slots__
        return all(getattr(self, f) == getattr(other, f) for f in names)

    def __repr__(self) -> str:
        names = self._shown or self.__slots__
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in names)
        return f"{type(self).__name__}({shown})"


def fields_but(fields: tuple[str, ...], *left_out: str) -> tuple[str, ...]:
    """`fields` without `left_out`, in order: a `Record`'s `_compared` or `_shown`."""
    return tuple(f for f in fields if f not in left_out)


class FrozenRecord(Record):
    """A `Record` whose fields are set once, by `_init` in ``__init__``, as a frozen
    dataclass's: assigning or deleting one afterwards raises `AttributeError`, and it is
    hashable by its fields. It pickles as its class called with its fields in order, so
    ``__init__`` takes them in the order of ``__slots__``."""

    __slots__ = ()

    def _init(self, *values: object) -> None:
        """Set the fields, in the order of ``__slots__``."""
        names: tuple[str, ...] = self.__slots__
        for name, value in zip(names, values, strict=True):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[object, ...]:
        names: tuple[str, ...] = self.__slots__
        return tuple(getattr(self, name) for name in names)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen record")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen record")

    def __hash__(self) -> int:  # type: ignore[override]  # a Record is not hashable
        return hash(self._fields())

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return type(self), self._fields()
