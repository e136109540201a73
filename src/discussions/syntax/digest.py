"""`sha256_hex`: a SHA-256 without importing ``hashlib`` on the paths that start most often.

``import hashlib`` loads OpenSSL's ``_hashlib`` (2-3 ms, several times that on a loaded
machine). The merge driver, which git starts once per merged file, and every turn before its
first call (the engine's comment digests, the CLIs' configuration files) need a few SHA-256s of
small texts: CPython's own built-in SHA-256 module, which ``hashlib`` itself falls back to,
gives the same digest for a tenth of the start-up. A build without it uses ``hashlib``.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_BUILT_IN = ("_sha2", "_sha256") if sys.version_info >= (3, 12) else ("_sha256", "_sha2")
"""CPython's built-in SHA-256 module: ``_sha2`` from 3.12, ``_sha256`` in 3.11 (each tried
first where it is: a failed import costs as much as a found one)."""
_found: list[Callable[[bytes], Any]] = []


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` in hex, as ``hashlib.sha256(data).hexdigest()`` gives it."""
    if not _found:
        _found.append(_constructor())
    return str(_found[0](data).hexdigest())


def _constructor() -> Callable[[bytes], Any]:
    for name in _BUILT_IN:
        try:
            found: Callable[[bytes], Any] = __import__(name).sha256
        except (ImportError, AttributeError):
            continue
        return found
    import hashlib

    return hashlib.sha256
