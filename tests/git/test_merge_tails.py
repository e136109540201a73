"""The driver's fast path (`git.tails.merge_tails`): two sides that only appended are merged
on their tails, cut where the base's last comment opens; the result must be the whole-file
merge's (`driver.merge_whole`), byte for byte, with the same decision and counts. The fast path
without `re` (`git.plain.plain_end`) is held to the same bytes on the same random appends."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discussions.errors import DiscussionsError
from discussions.git.driver import merge_file, merge_versions, merge_whole
from discussions.git.merge import CLEAN, MergeResult
from discussions.git.plain import plain_end
from discussions.git.tails import WINDOW, merge_tails, shared_cut

from .test_merge import (
    BASE,
    HEADER,
    PREAMBLE,
    Step,
    append,
    free_step,
    human,
    play,
    play_free,
    step,
)

BIG = BASE
while len(BIG) < WINDOW + 5000:  # a base longer than the window searched for the cut
    BIG = append(BIG, human("Zoë", f"TOKEN-big-{len(BIG)}", "- one\n- two"))


def same(a: tuple[MergeResult, bytes], b: tuple[MergeResult, bytes]) -> None:
    (ra, out_a), (rb, out_b) = a, b
    assert out_a == out_b
    assert (ra.status, ra.text, ra.reason) == (rb.status, rb.text, rb.reason)
    assert (ra.added_ours, ra.added_theirs, ra.shared) == (
        rb.added_ours,
        rb.added_theirs,
        rb.shared,
    )


def encoded(text: str, newline: str, bom: bool, first: str = "") -> bytes:
    """`text` with `newline` (``mixed``: the start `first` with LF, the rest with CRLF)."""
    if newline == "mixed":
        text = first + text[len(first) :].replace("\n", "\r\n")
    else:
        text = text.replace("\n", newline)
    return (("\ufeff" if bom else "") + text).encode("utf-8")


appends = st.tuples(
    st.sampled_from(["fresh", "base", "big"]),
    st.lists(step, max_size=3),
    st.lists(free_step, max_size=6),
    st.lists(free_step, max_size=6),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.sampled_from(["\n", "\r\n", "mixed"]),
    st.booleans(),
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(appends)
def test_the_tails_merge_as_the_whole_files_do(case: tuple[object, ...]) -> None:
    """Random appends on both sides (comments, AI turns, engine blocks, phase and status
    moves that may diverge, hand-typed comments left open, on the base too), LF, CRLF or both, with
    or without a byte-order mark: wherever the fast path answers, it answers as the whole-file merge."""
    start, pre, ours_steps, theirs_steps, hands, newline, bom = case
    assert isinstance(pre, list) and isinstance(ours_steps, list)
    assert isinstance(theirs_steps, list) and isinstance(hands, list)
    first = {"fresh": HEADER + PREAMBLE, "base": BASE, "big": BIG}[str(start)]
    base = play(first, pre, "pre", hands[0])
    ours = play(play_free(base, ours_steps, "o"), [], "o", hands[1])
    theirs = play(play_free(base, theirs_steps, "t"), [], "t", hands[2])
    data = [encoded(t, str(newline), bool(bom), first) for t in (base, ours, theirs)]
    fast = merge_tails(*data)
    whole = merge_whole(*data)
    if fast is not None:
        same(fast, whole)
    same(merge_versions(*data), whole)
    if data[1].startswith(data[0]) and data[2].startswith(data[0]):
        cut = len(data[0])  # the fast path without re (`plain`), where it answers
        plain = plain_end(data[0], data[1][cut:], data[2][cut:])
        if plain is not None:
            assert whole[0].status == CLEAN and data[0] + plain == whole[1]
    same(merge_versions(data[0], data[2], data[1]), merge_whole(data[0], data[2], data[1]))
    assert driven(*data) == (whole[0].status, whole[0].reason, whole[1])


def driven(base: bytes, ours: bytes, theirs: bytes) -> tuple[str, str, bytes]:
    """The driver's decision, and what it leaves in ours (git's %A), when git hands it these
    three files."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp, name) for name in ("base.md", "ours.md", "theirs.md")]
        for path, data in zip(paths, (base, ours, theirs), strict=True):
            path.write_bytes(data)
        result = merge_file(*paths)
        return result.status, result.reason, paths[1].read_bytes()


def test_the_usual_appends_take_the_fast_path() -> None:
    """Both sides appended to a base that ends with a closed comment: the cut applies (at the
    ``---`` opening that comment) and the merge is clean, as a whole-file merge."""
    ours = append(BIG, human("Ann", "TOKEN-o1", vote="READY"))
    theirs = append(BIG, human("Bob", "TOKEN-t1"), human("Zoë", "TOKEN-t2"))
    data = [t.encode() for t in (BIG, ours, theirs)]
    cut = shared_cut(*data)
    assert cut > len(BIG) - WINDOW
    assert data[0][cut:].startswith(b"---\n")
    fast = merge_tails(*data)
    assert fast is not None and fast[0].status == CLEAN
    same(fast, merge_whole(*data))
    assert driven(*data)[2] == fast[1]


def test_a_last_comment_longer_than_the_window() -> None:
    """The base's last comments are longer than the bytes first searched for the cut: the
    search widens, and the merge is still the whole-file merge's."""
    long = "\n\n".join(f"Paragraph {i}: " + "words " * 20 for i in range(WINDOW // 100))
    base = append(BIG, human("Ann", "TOKEN-long-1", long), human("Bob", "TOKEN-long-2", long))
    ours = append(base, human("Zoë", "TOKEN-o1"))
    theirs = append(base, human("Rob", "TOKEN-t1"))
    data = [t.encode() for t in (base, ours, theirs)]
    cut = shared_cut(*data)
    assert 0 < cut < len(base) - WINDOW  # found after widening the search
    fast = merge_tails(*data)
    assert fast is not None
    same(fast, merge_whole(*data))


@pytest.mark.parametrize(
    ("where", "bad"),
    [("head", b"\xff"), ("head", b"\x00"), ("tail", b"\xff"), ("tail", b"\x00")],
)
def test_no_cut_where_the_whole_file_decides_otherwise(where: str, bad: bytes) -> None:
    """Invalid UTF-8 or a NUL byte, in the shared part or in an appended comment: the whole
    files decide (a line merge), so the fast path declines and the driver agrees with them."""
    base = BASE.encode()
    if where == "head":
        base = base.replace(b"Two branches", b"Two " + bad + b"branches")
    ours = base + append("", human("Ann", "TOKEN-o1")).encode()
    theirs = base + append("", human("Bob", "TOKEN-t1")).encode().replace(b"Comment", bad)
    assert merge_tails(base, ours, theirs) is None
    try:
        whole = merge_whole(base, ours, theirs)
    except DiscussionsError:  # git's line merge refuses binary files (the NUL byte)
        with pytest.raises(DiscussionsError):
            merge_versions(base, ours, theirs)
        return
    same(merge_versions(base, ours, theirs), whole)


def test_an_edit_of_the_base_takes_the_whole_merge() -> None:
    """A side that changed the base is no append: no cut."""
    ours = append(BASE.replace("Two branches", "Three branches"), human("Ann", "TOKEN-o1"))
    theirs = play(BASE, [Step("comment", "Bob")], "t", False)
    data = [t.encode() for t in (BASE, ours, theirs)]
    assert shared_cut(*data) == 0
    assert merge_tails(*data) is None
    for base, ours, theirs in (data, (data[0], data[2], data[1])):  # the edit on either side
        whole = merge_whole(base, ours, theirs)
        assert driven(base, ours, theirs) == (whole[0].status, whole[0].reason, whole[1])


@pytest.mark.parametrize("broken", [False, True])
def test_a_long_shared_part_is_checked_for_utf8_piece_by_piece(broken: bool) -> None:
    """A shared part of several pieces of the check, with two-byte characters across their
    edges: merged on the tails when it is UTF-8; one bad byte deep inside it and the whole
    files decide (a line merge), as the driver does."""
    long = "\n".join("é" * (99 + i % 2) for i in range(1000))  # 200 KB, lines of odd lengths
    base = append(BASE, human("Zoë", "TOKEN-long", long), human("Ann", "TOKEN-x"))
    data = base.encode()
    if broken:
        data = data.replace("é".encode(), b"\xff", 1)
    ours = data + append("", human("Rob", "TOKEN-o1")).encode()
    theirs = data + append("", human("Bob", "TOKEN-t1")).encode()
    assert shared_cut(data, ours, theirs) > len(data) - WINDOW  # the bad byte before the cut
    fast = merge_tails(data, ours, theirs)
    whole = merge_whole(data, ours, theirs)
    assert (fast is None) == broken
    if fast is not None:
        same(fast, whole)
    assert driven(data, ours, theirs) == (whole[0].status, whole[0].reason, whole[1])
