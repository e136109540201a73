"""`sha256_hex`: a SHA-256 without importing ``hashlib`` on the paths that start most often.

``import hashlib`` loads OpenSSL's ``_hashlib`` (2-3 ms, several times that on a loaded
machine). The merge driver, which git starts once per merged file, and every turn before its
first call (the engine's comment digests, the CLIs' configuration files) need a few SHA-256s of
small texts: CPython's own built-in SHA-256 module, which ``hashlib`` itself falls back to,
gives the same digest for a tenth of the start-up. A build without it uses ``hashlib``.

That module hashes at a third of OpenSSL's speed, though: a process that hashes much (the
derivation of a long discussion checks the digest of each of its 13,000 AI answers, 7 MB)
moves to OpenSSL's SHA-256 (``_hashlib``, what ``hashlib.sha256`` is, without the rest of
``hashlib``) once it has hashed `_BULK` bytes, where the import (2 ms) has paid for itself.
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
_BULK = 1 << 20
"""Bytes hashed with the built-in module before OpenSSL's is loaded (module docstring)."""
_hashed = [0]
"""Bytes hashed so far with the built-in module; -1 once the choice is final."""


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` in hex, as ``hashlib.sha256(data).hexdigest()`` gives it."""
    if not _found:
        _found.append(_constructor())
    elif _hashed[0] >= 0:
        _hashed[0] += len(data)
        if _hashed[0] > _BULK:
            _hashed[0] = -1
            _found[0] = _bulk_constructor(_found[0])
    return str(_found[0](data).hexdigest())


def _bulk_constructor(found: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """OpenSSL's SHA-256 where this Python has it, else `found` (the same digests)."""
    try:
        from _hashlib import openssl_sha256  # what ``hashlib.sha256`` is in CPython

        bulk: Callable[[bytes], Any] = openssl_sha256
    except ImportError:
        return found
    return bulk


def _constructor() -> Callable[[bytes], Any]:
    for name in _BUILT_IN:
        try:
            found: Callable[[bytes], Any] = __import__(name).sha256
        except (ImportError, AttributeError):
            continue
        return found
    import hashlib

    return hashlib.sha256
