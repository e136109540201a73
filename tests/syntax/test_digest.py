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


def test_a_process_that_hashes_much_moves_to_openssl_with_the_same_digests(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import _hashlib

    monkeypatch.setattr(digest, "_found", [])
    monkeypatch.setattr(digest, "_hashed", [0])
    data = [f"comment {i} — Zoë\n".encode() * (i % 50) for i in range(400)]
    moved_at = None
    for i in range(len(data) * 20):
        chunk = data[i % len(data)]
        assert sha256_hex(chunk) == hashlib.sha256(chunk).hexdigest()
        if moved_at is None and digest._found[0] is _hashlib.openssl_sha256:
            moved_at = i
    assert moved_at is not None  # past `_BULK` bytes
    assert digest._hashed == [-1]
