"""What `check` and the ledger make of APPLY / APPLY-REVIEW blocks that were edited, that
contradict themselves, or that share a number after a merge; and the fence scan the blocks (and
evidence and drafts) are read with, bounded at the next block."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.derive.applies import implemented_by
from discussions.syntax.apply import (
    ApplyRecord,
    apply_sentence,
    render_apply,
    render_apply_review,
    review_sentence,
)
from discussions.syntax.evidence import Block, fence_span, render_block
from discussions.syntax.render import render_comment
from discussions.views.applies import block_summary
from discussions.views.evidence import evidence_blocks

from ..support.apply import AT, BASE, append, apply_records, record, review, state

GO = render_comment("Rob", "DECISION: ship it", meta=f"at: {AT}")


def messages(text: str) -> list[str]:
    return [w.message for w in state(text).warnings]


# --------------------------------------------------------------------------- digests of fields


def test_an_edited_field_fails_the_digest() -> None:
    text = append(BASE, GO, render_apply(record(tests="failed")))
    assert not messages(text)
    edited = text.replace("tests: failed", "tests: passed")
    (a,) = state(edited).applies
    assert a.tests == "passed" and not a.intact
    assert any("apply block 1 does not match the digest" in m for m in messages(edited))


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(apply_records())
def test_any_block_the_engine_writes_matches_its_digest(rec: ApplyRecord) -> None:
    text = append(BASE, GO, render_apply(rec), render_apply_review_of(apply=rec.number))
    s = state(text)
    assert [a.intact for a in s.applies] == [True] and s.apply_reviews[0].intact
    assert not [w for w in s.warnings if "digest" in w.message]


def test_the_digest_reads_fields_in_canonical_form() -> None:
    text = append(BASE, GO, render_apply(record()))
    spaced = text.replace("| tests: passed |", "|   tests:  passed   |")
    assert spaced != text
    (a,) = state(spaced).applies
    assert a.intact and not messages(spaced)


def test_an_edited_review_result_fails_the_digest_and_contradicts_its_blockers() -> None:
    text = append(BASE, GO, render_apply(record()), render_apply_review_of(result="changes"))
    assert not messages(text)
    edited = text.replace("result: changes", "result: implemented")
    found = messages(edited)
    assert any("review of apply 1 does not match the digest" in m for m in found)
    assert any("implemented" in m and "blocker" in m for m in found), found


def render_apply_review_of(**kw: object) -> str:
    return render_apply_review(review(**kw))


def test_contradictions_are_reported_even_with_a_good_digest() -> None:
    cases = {
        "committed 0 files": record(files=()),
        "committed no commit": record(commit=None),
        "failed but commit": record(result="failed", files=(), tests="not run"),
        "tests without command": record(test_command=""),
    }
    for name, rec in cases.items():
        found = messages(append(BASE, GO, render_apply(rec)))
        assert found and all("does not match the digest" not in m for m in found), name
    found = messages(
        append(BASE, GO, render_apply(record()), render_apply_review_of(result="implemented"))
    )
    assert any("implemented" in m and "blocker" in m for m in found), found


def test_implemented_by_skips_blocks_that_fail_their_digest() -> None:
    text = append(
        BASE,
        GO,
        render_apply(record(number=1, commit="a" * 40)),
        render_apply_review_of(apply=1, commit="b" * 40, result="changes"),
        render_apply_review_of(apply=1, commit="c" * 40, result="changes", revision=1),
        render_apply(record(number=2, commit="d" * 40, branch="discussions/apply/apply-2")),
    )
    edited = text.replace(
        "result: changes | commit: " + "c" * 40, "result: implemented | commit: " + "c" * 40
    )
    edited = edited.replace("d" * 40, "e" * 40)  # apply 2's commit, in its marker
    found = implemented_by(state(edited).applies, 0)
    assert [(i.apply, i.commits, i.implemented) for i in found] == [
        (1, ("a" * 40, "b" * 40), False)
    ]


# --------------------------------------------------------------------------- duplicate numbers


def test_duplicate_numbers_are_kept_and_reviews_go_to_the_nearest_block() -> None:
    """Two branches that each applied once both write apply 1; merged, that is no problem
    (`check` must pass the merge), and each review belongs to the block above it."""
    first = record(branch="discussions/apply/x-1", commit="a" * 40)
    second = record(branch="discussions/apply/x-1-b", commit="b" * 40)
    text = append(
        BASE,
        GO,
        render_apply(first),
        render_apply_review_of(apply=1, commit="a" * 40, result="changes"),
        render_apply(second),
        render_apply_review_of(apply=1, commit="b" * 40, result="implemented", blockers=()),
    )
    s = state(text)
    one, two = s.applies
    assert [r.commit for r in one.reviews] == ["a" * 40]
    assert [r.commit for r in two.reviews] == ["b" * 40]
    assert s.warnings == []


# --------------------------------------------------------------------------- the fence scan


class Counted(list[str]):
    """Lines that count how many times one is read."""

    reads = 0

    def __getitem__(self, i):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN204
        Counted.reads += 1
        return super().__getitem__(i)


def crafted(n: int) -> str:
    """`n` apply blocks whose fences CommonMark closes (an indented closer) and the scan
    does not."""
    return append(BASE, GO, *[indented_closer(render_apply(record()))] * n)


def indented_closer(block: str) -> str:
    assert block.count("\n```\n") == 1
    return block.replace("\n```\n", "\n   ```\n")


def test_the_fence_scan_stops_at_the_next_block() -> None:
    for n in (50, 200):
        lines = Counted(crafted(n).split("\n"))
        Counted.reads = 0
        starts = [i + 1 for i, line in enumerate(list(lines)) if line.startswith("<!-- APPLY")]
        assert len(starts) == n
        assert all(fence_span(lines, s) is None for s in starts)
        assert Counted.reads < 20 * n, (n, Counted.reads)  # linear: about 16 lines a block


def test_a_block_left_open_does_not_take_the_next_blocks_fence() -> None:
    one = indented_closer(render_apply(record()))  # closed for markdown, not for the engine
    text = append(BASE, GO, one, render_apply(record(number=2)))
    s = state(text)
    assert [a.number for a in s.applies] == [2] and s.applies[0].intact
    assert any("apply block 1 has lost its fenced content" in m for m in messages(text))


def naive_span(lines: list[str], start: int) -> tuple[int, int] | None:
    """The unbounded scan, for comparison on blocks the engine wrote."""
    for i in range(start, min(len(lines), start + 6)):
        if lines[i].startswith("```"):
            fence = lines[i][: len(lines[i]) - len(lines[i].lstrip("`"))]
            for j in range(i + 1, len(lines)):
                if lines[j].startswith(fence) and not lines[j].strip("`").strip(" \t"):
                    return i, j
            return None
        if lines[i].strip() and not lines[i].startswith("*"):
            return None
    return None


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300), st.text(max_size=200))
def test_the_bounded_scan_finds_what_the_engine_wrote(content: str, after: str) -> None:
    block = render_block(Block(1, "read a", "AI-A", "fulfilled", AT, "blob 1", content))
    text = append(BASE, GO, block) + after
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("<!-- EVIDENCE")) + 1
    assert fence_span(lines, start) == naive_span(lines, start) is not None


# --------------------------------------------------------------------------- one sentence


def test_the_file_and_the_views_say_the_same_sentence() -> None:
    rec = record(worktree="/tmp/wt", reason="tests broke")
    block = render_apply(rec)
    assert f"*{apply_sentence(rec)}*" in block
    (shown,) = evidence_blocks(block)
    assert shown.summary == apply_sentence(rec)
    rev = review()
    rblock = render_apply_review_of()
    assert f"*{review_sentence(rev)}*" in rblock
    args = rblock.split("\n")[0][len("<!-- APPLY-REVIEW: ") : -len(" -->")]
    assert block_summary("APPLY-REVIEW", args, "- the migration is missing").startswith(
        review_sentence(rev)
    )
