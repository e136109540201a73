"""Diagnostics' places in the client's units (`diagnostics.Shown.in_client_units`): on lines
of ASCII alone counted without pygls's char-by-char count, and the same as its count."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import PositionCodec, ServerTextPosition, ServerTextRange

from discussions.lsp.buffer import Buffer
from discussions.lsp.diagnostics import Shown

texts = st.lists(st.sampled_from(["a", " ", "\r", "é", "😀", "\t", "x"]), max_size=12).map("".join)
places = st.tuples(st.integers(0, 8), st.integers(0, 14))


@given(
    st.lists(texts, min_size=1, max_size=6),
    places,
    places,
    st.sampled_from(["utf-8", "utf-16", "utf-32"]),
)
def test_a_range_in_client_units_is_pygls_count(
    lines: list[str], start: tuple[int, int], end: tuple[int, int], encoding: str
) -> None:
    codec = PositionCodec(types.PositionEncodingKind(encoding))
    b = cast(Buffer, SimpleNamespace(lines=lines))
    r = types.Range(types.Position(*start), types.Position(*end))
    server = ServerTextRange(ServerTextPosition(*start), ServerTextPosition(*end))
    assert Shown(codec).in_client_units(b, r) == codec.range_to_client_units(lines, server)
