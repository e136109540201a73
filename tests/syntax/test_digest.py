"""`sha256_hex` gives what ``hashlib.sha256(...).hexdigest()`` gives: the merge driver orders
units by it, so two clones must agree whichever module computed it."""

from __future__ import annotations

import hashlib

from discussions.syntax import digest
from discussions.syntax.digest import sha256_hex


def test_the_digest_is_hashlibs() -> None:
    for data in (b"", b"abc", "Zoë — ✓\r\n".encode(), bytes(range(256)) * 4099):
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_a_python_without_the_built_in_module_uses_hashlib(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(digest, "_BUILT_IN", ("no_such_module_here",))
    monkeypatch.setattr(digest, "_found", [])
    assert sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()
    assert digest._found == [hashlib.sha256]
