"""What a file's bytes say that an append only adds to (`model.filefacts`): kept between
appends so a `comment` scans only what is new, and still right after anyone else changed the
file (issue 36)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discussions.derive.speakers import ai_authors
from discussions.model import filefacts
from discussions.syntax.conflicts import may_have_conflicts

from ..conftest import code, out, run, signed

NAME = "big.md"


def _human(i: int) -> str:
    return f"Name: Person {i}\n\nA thought, number {i:05d}.\n\n---\n\n"


@pytest.fixture
def big(isolated: Path) -> Path:
    """A discussion of 300 people's comments and one AI comment, none by AI-Oracle."""
    assert code(run("new", "Big", "--file", "big")) == 0
    path = isolated / "discussions" / NAME
    with path.open("a", encoding="utf-8") as f:
        f.write(signed("AI-Architect", "Plan.") + "\n---\n\n")
        f.write("".join(_human(i) for i in range(300)))
    return path


def _comment(author: str) -> tuple[int, str]:
    r = run("comment", NAME, "Hello.", "--author", author)
    return code(r), out(r)


def _rewrite_middle(path: Path, old: str, new: str) -> None:
    """Change the text of the middle comment in place (the file keeps its inode)."""
    data = path.read_bytes()
    assert data.count(old.encode()) == 1
    with path.open("r+b") as f:  # an editor writing in place, not a new file
        f.write(data.replace(old.encode(), new.encode()))
        f.truncate()


# What replaces comment 150's text: a comment AI-Oracle signed as the engine does, as long as
# the text it replaces (same size) or longer (another size).
_ORACLE = "Name: AI-Oracle\n\n<!-- provider: x -->\n\nOk.\n"
_CONFLICT = "<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n"


@pytest.mark.parametrize("same_size", [True, False])
def test_an_ai_author_written_into_the_middle_is_seen(big: Path, same_size: bool) -> None:
    assert _comment("Robin")[0] == 0  # the file's facts are kept now
    assert _comment("AI-Oracle")[0] == 0  # nobody of that name spoke as an AI yet
    old = "Name: Person 150\n\nA thought, number 00150.\n"
    new = _ORACLE.ljust(len(old), "x") if same_size else _ORACLE + "More.\n"
    assert len(new) == len(old) or not same_size
    _rewrite_middle(big, old, new)
    status, shown = _comment("AI-Oracle")
    assert status == 1, shown
    assert "AI-Oracle, who speaks as an AI in this discussion" in shown


@pytest.mark.parametrize("same_size", [True, False])
def test_a_conflict_written_into_the_middle_is_seen(big: Path, same_size: bool) -> None:
    assert _comment("Robin")[0] == 0
    assert _comment("Robin")[0] == 0
    old = "A thought, number 00150.\n"
    new = _CONFLICT if not same_size else "<<<<<<< o\n=======\n>>>>>>> t\n"
    new = new if not same_size else new[: len(old)].ljust(len(old), "x")
    _rewrite_middle(big, old, new)
    status, shown = _comment("Robin")
    assert status == 1, shown
    assert "unresolved merge-conflict lines" in shown


def test_an_append_scans_only_what_is_new(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _comment("Robin")[0] == 0
    scanned: list[int] = []
    real = filefacts.ai_author_names

    def counting(text: str) -> tuple[list[str], list[str]]:
        scanned.append(len(text))
        return real(text)

    monkeypatch.setattr(filefacts, "ai_author_names", counting)
    with big.open("a", encoding="utf-8") as f:  # someone else appends (no cache of theirs)
        f.write(_human(1000))
    assert _comment("Robin")[0] == 0
    # The comment's name check and the writer's conflict check: each reads the file whole
    # and scans the last comments (a few hundred bytes), never the file.
    assert scanned and sum(scanned) < 1000 and big.stat().st_size > 15_000, scanned


def test_a_file_replaced_by_another_is_scanned_whole(big: Path) -> None:
    assert _comment("Robin")[0] == 0
    text = big.read_text(encoding="utf-8")
    tmp = big.with_suffix(".tmp")
    tmp.write_text(text.replace("Name: Person 7\n", "Name: AI-Oracle\n\n<!-- provider: y -->\n"))
    tmp.replace(big)  # an editor's save: a new file at the path
    status, shown = _comment("AI-Oracle")
    assert status == 1, shown


# --------------------------------------------------------------------------- the same answers

_PIECES = [
    b"Name: AI-A",
    b"Name:  Rob ",
    b"Name: AI-C\r",
    b"<!-- provider: x -->",
    b"\t<!--provider: y",
    b"<!-- PASS: a -->",
    b"   <!-- PASS: b -->",
    b"<<<<<<< ours",
    b"=======",
    b">>>>>>> theirs",
    b"<<<<<<",
    b"=======x",
    b"\xef\xbb\xbfName: D",
    b"\xff\xfe",
    b"text",
    b"",
    b" ",
    b"\r",
    b"---",
]
_counter = itertools.count()


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=24),
    st.lists(st.integers(min_value=0, max_value=24), max_size=3),
    st.sampled_from([b"\n", b"\n\n", b"\r\n"]),
)
def test_facts_in_steps_are_the_facts_of_the_whole(
    isolated: Path, pieces: list[bytes], cuts: list[int], sep: bytes
) -> None:
    """Reading a file appended to in steps (the kept summary used and extended at each step)
    gives what a scan of the whole gives, at every step; so does reading another file's
    bytes under a path whose summary was kept for other bytes."""
    path = isolated / f"f{next(_counter) % 3}.md"  # paths reused: stale summaries abound
    data = sep.join(pieces)
    for cut in [*sorted(cuts), len(pieces)]:
        part = sep.join(pieces[:cut])
        path.write_bytes(part)
        fd = os.open(path, os.O_RDONLY)
        try:  # the same summary read as bytes in memory and from the file, in turns
            found = filefacts.facts(path, part) if cut % 2 else filefacts.facts_of_file(path, fd)
        finally:
            os.close(fd)
        text = part.decode("utf-8", errors="replace").removeprefix("\ufeff")
        assert found.may_have_conflicts == may_have_conflicts(part)
        assert found.ai_authors == ai_authors(text)
    assert filefacts.facts(path, data).ai_authors == ai_authors(
        data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    )


def test_a_summary_whose_bytes_are_no_longer_followed_by_a_name_line_is_not_used(
    isolated: Path,
) -> None:
    """The same first bytes, then no ``Name:`` line where the kept summary ended: its cut ran
    through the comment of a line that now continues (found by the property above, which
    reuses paths: a person's comment read as no AI's, then its metadata line appended)."""
    path = isolated / "reused.md"
    path.write_bytes(b"Name:  Rob \n\nName: AI-C\r")
    assert filefacts.facts(path, path.read_bytes()).ai_authors == []
    data = b"Name:  Rob \n\n \n\n<!-- provider: x -->"
    path.write_bytes(data)
    assert ai_authors(data.decode()) == ["Rob"]
    assert filefacts.facts(path, data).ai_authors == ["Rob"]
