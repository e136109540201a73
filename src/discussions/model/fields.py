"""`Discussion`'s view of its derived state, from one field list: each field is declared once,
in `Discussion`'s class body, and gives both the attribute (a copy of what it reads from the
`State`) and its entry in `Discussion.to_dict` (in the order of the class body). A field of
the JSON only (the file's path, the consensus) is a `JsonEntry` in the same list.

    phase = Field(lambda s: s.phase, "The current phase id.")       # d.phase, {"phase": ...}
    header = Field(lambda s: dict(s.doc.header), key=None)           # no JSON entry
    _json_file = JsonEntry("file", lambda d: str(d.path))            # JSON only
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

if TYPE_CHECKING:
    from ..derive.state import State
    from .discussion import Discussion

T = TypeVar("T")

_SAME = "="
"""`Field`'s default `key`: the JSON key is the attribute's name."""


class Field(Generic[T]):
    """A read-only attribute of `Discussion`: what `read` takes from its derived `State` (a
    copy, so a caller cannot change the state through it), written into `to_dict` under `key`
    (the attribute's name unless given; None: not in the JSON) as `json` gives it (by default
    the value as `plain` makes it JSON). Behaves as a ``@property``."""

    def __init__(
        self,
        read: Callable[[State], T],
        doc: str | None = None,
        *,
        key: str | None = _SAME,
        json: Callable[[State], Any] | None = None,
    ) -> None:
        self.read = read
        self.__doc__ = doc
        self.key = key
        self.json = json

    def __set_name__(self, owner: type[Any], name: str) -> None:
        if self.key == _SAME:
            self.key = name

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Field[T]: ...
    @overload
    def __get__(self, obj: Discussion, owner: type[Any]) -> T: ...
    def __get__(self, obj: Discussion | None, owner: type[Any]) -> T | Field[T]:
        return self if obj is None else self.read(obj._s)

    def entry(self, d: Discussion) -> Any:
        """The field's value in `d`'s JSON."""
        s = d._s
        return self.json(s) if self.json is not None else plain(self.read(s))


class JsonEntry:
    """An entry of `Discussion.to_dict` that is no attribute of its own (the path, the
    consensus): `key` and how `value` computes it from the discussion."""

    def __init__(self, key: str, value: Callable[[Discussion], Any]) -> None:
        self.key = key
        self.value = value

    def entry(self, d: Discussion) -> Any:
        return self.value(d)


def plain(value: Any) -> Any:
    """`value` as JSON holds it: a record by its ``to_dict``, lists and dicts item by item."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value.to_dict()


def view_dict(d: Discussion) -> dict[str, Any]:
    """`d`'s fields (`Field` with a key, `JsonEntry`), in the order of its class body (a
    subclass's after its base's)."""
    out: dict[str, Any] = {}
    for klass in reversed(type(d).__mro__):
        for attr in vars(klass).values():
            if isinstance(attr, (Field, JsonEntry)) and attr.key is not None:
                out[attr.key] = attr.entry(d)
    return out
