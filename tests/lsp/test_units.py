"""Diagnostics' places in the client's units (`diagnostics.Shown.in_client_units`, and
`early.diagnostic` before pygls is loaded): on lines of ASCII alone counted without a
char-by-char count, and the same as pygls's count."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.workspace import PositionCodec, ServerTextPosition, ServerTextRange

from discussions.lsp.buffer import Buffer
from discussions.lsp.diagnostics import Shown, problem_range
from discussions.lsp.early import diagnostic
from discussions.ops.check import Problem

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


@given(
    st.lists(texts, min_size=1, max_size=6),
    st.integers(0, 8),
    st.integers(0, 14),
    st.integers(0, 14),
    st.sampled_from(["utf-8", "utf-16", "utf-32"]),
)
def test_the_early_diagnostics_count_as_pygls(
    lines: list[str], line: int, column: int, width: int, encoding: str
) -> None:
    """`early.diagnostic` (sent before pygls is loaded) places a problem where pygls would."""
    ns = SimpleNamespace(lines=lines)
    ns.line = lambda number: Buffer.line(cast(Buffer, ns), number)
    b = cast(Buffer, ns)
    p = Problem("f.md", line + 1, "m", "warning", column, column + width if column else 0)
    codec = PositionCodec(types.PositionEncodingKind(encoding))
    at = Shown(codec).in_client_units(b, problem_range(b, p))
    ours = diagnostic(b, p, encoding)["range"]
    assert ours == default_converter().unstructure(at)
