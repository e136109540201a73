"""What a YAML file may hold, described once, and the one validator that checks it.

Each kind of file describes its keys with these pieces (the descriptions sit next to their
loaders: `keys.SETTINGS`, `participants.PERSONA`, `templates.TEMPLATE`,
``providers.specs``)::

    Fields({"consensus": Fields({"threshold_ready": Number(0, 1)})}, noun="setting")

`validate` walks data against a description and returns every `Problem`, each with the key
path it is about (``("consensus", "threshold")``), so a loader can name the file and line
(`config.YamlDocument.line`). A key the description does not know is reported with the
closest known one (``did you mean 'threshold_ready'?``); a value of the wrong type or out of
range with what it must be. The loaders decide what a problem does: a settings file warns about
unknown keys and refuses bad values; a persona, template or provider file is refused.
"""

from __future__ import annotations

from collections.abc import Mapping as AnyMapping
from typing import Any

from ..syntax.record import Record

Keys = tuple[str | int, ...]


# The descriptions are rules with behaviour, built once when their module loads and never
# changed after: plain slotted classes (`Record`: compared field by field, a repr naming the
# fields). As dataclasses, the six of them cost ~2 ms to make on every command's start-up.


class Text(Record):
    """A string (one of `choices` when given); `what`: what it must be, in words."""

    __slots__ = ("choices", "what")

    def __init__(self, choices: tuple[str, ...] = (), what: str = "text") -> None:
        self.choices = choices
        self.what = what

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"must be {self.what}, not {_kind(value)}"
        if self.choices and value.strip() not in self.choices:
            return f"must be one of {', '.join(self.choices)}, got {value!r}"
        return None


class Flag(Record):
    """true or false."""

    __slots__ = ()

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else f"must be true or false, not {_kind(value)}"


class Number(Record):
    """A number from `minimum` to `maximum` (both included unless `below`, an exclusive upper
    bound; `above` is an exclusive lower bound); whole with `whole`. `what`: what it must
    be, in words (default: said from the bounds)."""

    __slots__ = ("minimum", "maximum", "whole", "below", "above", "what")

    def __init__(
        self,
        minimum: float | None = None,
        maximum: float | None = None,
        whole: bool = False,
        below: float | None = None,
        above: float | None = None,
        what: str = "",
    ) -> None:
        self.minimum = minimum
        self.maximum = maximum
        self.whole = whole
        self.below = below
        self.above = above
        self.what = what

    def expected(self) -> str:
        if self.what:
            return self.what
        kind = "a whole number" if self.whole else "a number"
        if self.above is not None:
            return f"{kind} greater than {_num(self.above)}"
        if self.minimum is not None and self.maximum is not None:
            return f"{kind} from {_num(self.minimum)} to {_num(self.maximum)}"
        if self.minimum is not None and self.below is not None:
            return f"{kind} from {_num(self.minimum)} to below {_num(self.below)}"
        if self.minimum is not None:
            return f"{kind} ({_num(self.minimum)} or more)"
        return kind

    def problem(self, value: Any) -> str | None:
        allowed = int if self.whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, allowed):
            return f"must be {self.expected()}, not {_kind(value)}"
        if (
            (self.minimum is not None and value < self.minimum)
            or (self.maximum is not None and value > self.maximum)
            or (self.below is not None and value >= self.below)
            or (self.above is not None and value <= self.above)
        ):
            return f"must be {self.expected()}, got {value!r}"
        return None


class ListOf(Record):
    """A list whose items each match `item`; `what`: what it must be, in words."""

    __slots__ = ("item", "what")

    def __init__(self, item: _Spec, what: str = "a list") -> None:
        self.item = item
        self.what = what


class OneOf(Record):
    """A value matching any of `options` (`expected` says what in words)."""

    __slots__ = ("options", "expected")

    def __init__(self, options: tuple[_Spec, ...], expected: str) -> None:
        self.options = options
        self.expected = expected


class Fields(Record):
    """A mapping with these keys (`required` must be there and not null). `noun`: what a key
    is called in messages (``setting``, ``participant setting``...); `extra`: whether keys
    not in `keys` are allowed (another tool's file)."""

    __slots__ = ("keys", "noun", "required", "extra")

    def __init__(
        self,
        keys: dict[str, _Spec],
        noun: str = "key",
        required: tuple[str, ...] = (),
        extra: bool = False,
    ) -> None:
        self.keys = keys
        self.noun = noun
        self.required = required
        self.extra = extra


_Spec = Text | Flag | Number | ListOf | OneOf | Fields


class Problem(Record):
    """One thing wrong in the data: `keys`, the key path it is about (``("phases", 0,
    "next")``; ``()`` the whole document); `message` (``key 'phases[0].next' must be text,
    not a list``); `unknown`, a key the description does not know (else a missing or bad
    value)."""

    __slots__ = ("keys", "message", "unknown")

    def __init__(self, keys: Keys, message: str, unknown: bool = False) -> None:
        self.keys = keys
        self.message = message
        self.unknown = unknown


class _Walk:
    __slots__ = ("problems",)

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, keys: Keys, text: str, unknown: bool = False) -> None:
        where = f"key '{key_name(keys)}' " if keys else ""
        self.problems.append(Problem(keys, where + text, unknown))


def validate(data: Any, spec: _Spec, at: Keys = ()) -> list[Problem]:
    """Every problem of `data` against `spec`, in document order. Null values are allowed
    (they mean "the default") except for `Fields.required` keys."""
    walk = _Walk()
    _check(data, spec, at, walk)
    return walk.problems


def _check(value: Any, spec: _Spec, at: Keys, walk: _Walk) -> None:
    if value is None:
        return
    if isinstance(spec, Fields):
        _check_fields(value, spec, at, walk)
    elif isinstance(spec, ListOf):
        if not isinstance(value, list):
            walk.add(at, f"must be {spec.what}, not {_kind(value)}")
            return
        for i, item in enumerate(value):
            if item is None:
                walk.add((*at, i), "must not be empty")
            else:
                _check(item, spec.item, (*at, i), walk)
    elif isinstance(spec, OneOf):
        if all(validate(value, option) for option in spec.options):
            walk.add(at, f"must be {spec.expected}")
    else:
        problem = spec.problem(value)
        if problem:
            walk.add(at, problem)


def _check_fields(value: Any, spec: Fields, at: Keys, walk: _Walk) -> None:
    if not isinstance(value, AnyMapping):
        walk.add(at, f"must be a mapping of {spec.noun}s, not {_kind(value)}")
        return
    for key, item in value.items():
        name = str(key)
        if name in spec.keys:
            _check(item, spec.keys[name], (*at, name), walk)
        elif not spec.extra:
            walk.add((*at, name), f"is not {_a(spec.noun)}{suggest(name, spec.keys)}", True)
    for name in spec.required:
        if value.get(name) is None:
            walk.add((*at, name), "is required")


def suggest(name: str, known: AnyMapping[str, Any] | tuple[str, ...]) -> str:
    """``; did you mean 'threshold_ready'?`` for the known name closest to `name`, else the
    list of known names."""
    import difflib  # only when needed: it is slow to import

    names = sorted(known)
    close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.6)
    if not close:  # a prefix is closer than it looks to difflib ("threshold")
        close = [n for n in names if n.startswith(name.lower()) or name.lower().startswith(n)]
    if close:
        return f"; did you mean '{close[0]}'?"
    return f" (known: {', '.join(names)})"


def key_name(keys: Keys) -> str:
    """``("phases", 1, "next")`` -> ``phases[1].next``."""
    out = ""
    for k in keys:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else k)
    return out


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"text {value!r}"
    return repr(value)


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
