"""Laziness at each package's face, declared once: a package's ``__init__.py`` names its public
names and the module each comes from, and `face` serves them on first use (PEP 562).

Importing a package then costs nothing until one of its names is used: the merge driver git
starts once per merged file, `status` and a turn's first call load only what they use. A name is
bound in the package once loaded, so later uses are plain attribute reads. This module sits in
the lowest layer so that every package, the root's included, may use it; it imports nothing.

    __getattr__, __dir__ = face(__name__, {"Discussion": "discussion", ...})

The same names appear in the package's ``if TYPE_CHECKING:`` imports, for the type checker;
tests/test_faces.py checks that both agree and that importing a package loads none of them.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def face(
    package: str, names: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of `package`, whose public `names` each come
    from the submodule named beside it (relative to the package, dotted for deeper ones)."""

    def __getattr__(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(f"{package}.{module}")
        value = getattr(sys.modules[f"{package}.{module}"], name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__
