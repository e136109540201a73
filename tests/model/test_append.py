"""The append-only guarantee: properties over generated files, concurrent writers, editors."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from discussions import Discussion, NotWritable
from discussions.derive.rules import strip_meta
from discussions.model.storage import append
from discussions.syntax.conflicts import conflict_lines
from discussions.syntax.parse import is_discussion_text, parse_document
from discussions.syntax.render import neutralise, render_comment
from discussions.syntax.text import decode

from ..conftest import signed

# -- generated files -------------------------------------------------------------------------

line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"),
    max_size=30,
)
special_lines = st.sampled_from(
    [
        "---",
        "--- ",
        "Name: Someone",
        "Name:",
        "```",
        "```python",
        "~~~",
        "    code",
        "VOTE: READY",
        "VOTE: reject",
        "VOTE: maybe",
        "Q: why?",
        "@architect hi",
        "> quoted",
        "<!-- PHASE-TRANSITION: a -> b -->",
        "<!-- VOTE-RESET: b -->",
        "<!-- unknown -->",
        "<!-- DISCUSSION -->",
        "<!-- Title: X -->",
        "",
        " ",
        "\t",
        "`code",
        "DECISION: d",
    ]
)
lines = st.lists(st.one_of(special_lines, line_text), max_size=40)


@st.composite
def files(draw: st.DrawFn) -> bytes:
    text = "\n".join(draw(lines))
    if draw(st.integers(0, 3)):  # mostly discussions; sometimes any text, which is refused
        text = "<!-- DISCUSSION -->\n" + text
    if draw(st.booleans()):
        text += "\n"
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text.encode("utf-8")


hostile = st.lists(st.one_of(special_lines, line_text), max_size=15).map("\n".join)
authors = st.sampled_from(["Rob", "Zoë Ångström", "AI-Architect", "a b  c"])
votes = st.sampled_from([None, "READY", "changes", "Reject"])


def _is_discussion(data: bytes) -> bool:
    """Whether a writer takes the file: a discussion with no unresolved merge-conflict line
    (a generated line of seven ``<`` is one, and is refused as git's markers are)."""
    text = decode(data)[0]
    return is_discussion_text(text) and not conflict_lines(text)


def _comments(path: Path) -> list[tuple[str, int, str | None]]:
    return [(c.author, c.line, c.vote) for c in Discussion.load(path).comments]


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(original=files(), author=authors, text=hostile, vote=votes)
@example(original=b"<!-- DISCUSSION -->\n<<<<<<<", author="Rob", text="hi", vote=None)
def test_append_keeps_every_byte_and_adds_exactly_one_comment(
    original: bytes, author: str, text: str, vote: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.md"
        path.write_bytes(original)
        before = _comments(path)
        d = Discussion.load(path)
        if not text.strip() and vote is None:
            text = "something"
        # What a provider says is untrusted: neutralise it, as the runner does.
        name, said, cast = (
            " ".join(author.split()),
            neutralise(text),
            vote.upper() if vote else None,
        )
        # A participant's comment is the engine's, signed (`derive.signatures`).
        ai = name.startswith("AI-")
        d.add_block(signed(name, said, cast) if ai else render_comment(name, said, vote=cast))
        if not _is_discussion(original):
            # Writers refuse what is not a discussion (or holds conflict lines), and leave it
            # exactly as it was.
            with pytest.raises(NotWritable):
                d.save()
            assert path.read_bytes() == original
            return
        d.save()
        after_bytes = path.read_bytes()
        assert after_bytes.startswith(original)
        after = _comments(path)
        assert len(after) == len(before) + 1
        assert [(a, ln) for a, ln, _ in after[:-1]] == [(a, ln) for a, ln, _ in before]
        assert after[-1][0] == " ".join(author.split())
        if vote:
            assert after[-1][2] == vote.upper()
        new_markers = Discussion.load(path)._s.doc.engine_markers
        old = parse_document(decode(original)[0]).engine_markers
        assert len(new_markers) == len(old)


@pytest.mark.slow
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(original=files())
def test_reading_never_raises(original: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.md"
        path.write_bytes(original)
        d = Discussion.load(path)
        d.to_dict()


# -- concurrent writers -------------------------------------------------------------------------


@pytest.mark.slow
def test_threads_appending_at_once_lose_nothing(isolated: Path) -> None:
    path = isolated / "d.md"
    path.write_text("<!-- DISCUSSION -->\n\n# T\n", encoding="utf-8")
    n_threads, per_thread = 8, 25

    def worker(k: int) -> None:
        for i in range(per_thread):
            append(path, [render_comment(f"W{k}", f"message {k}-{i}\n" * 20)])

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    d = Discussion.load(path)
    assert len(d.comments) == n_threads * per_thread
    for c in d.comments:
        k = c.author[1:]
        lines = c.body.strip().splitlines()
        assert len(lines) == 20 and len(set(lines)) == 1 and lines[0].startswith(f"message {k}-")
    assert d.warnings == []


@pytest.mark.slow
def test_processes_running_comment_at_once_lose_nothing(isolated: Path) -> None:
    path = isolated / "d.md"
    path.write_text("<!-- DISCUSSION -->\n\n# T\n", encoding="utf-8")
    script = (
        "import sys\nfrom discussions.cli import cli\n"
        "for i in range(10):\n"
        "    try:\n"
        "        cli(['comment', sys.argv[1], f'from {sys.argv[2]} #{i}', '--author', sys.argv[2]],"
        " standalone_mode=False)\n"
        "    except SystemExit:\n        pass\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(path), f"P{k}"], stdout=subprocess.DEVNULL
        )
        for k in range(6)
    ]
    for p in procs:
        assert p.wait(timeout=120) == 0
    d = Discussion.load(path)
    assert sorted(strip_meta(c.body).strip() for c in d.comments) == sorted(
        f"from P{k} #{i}" for k in range(6) for i in range(10)
    )


def test_editor_replacing_the_file_is_kept(isolated: Path) -> None:
    """An editor that saves by writing a new file and renaming it over the old one: the next
    append goes onto the editor's version, whatever handle was open before."""
    path = isolated / "d.md"
    path.write_text("<!-- DISCUSSION -->\n\n# T\n", encoding="utf-8")
    d = Discussion.load(path)
    _ = d.title  # read (and hold nothing open)
    new = isolated / ".d.md.swp"
    new.write_text(
        "<!-- DISCUSSION -->\n\n# T\n\n---\n\nName: Editor\n\nsaved in vim\n", encoding="utf-8"
    )
    os.replace(new, path)
    d.add_comment("Rob", "after the save")
    d.save()
    assert [c.author for c in Discussion.load(path).comments] == ["Editor", "Rob"]


def test_failed_write_leaves_file_unchanged(isolated: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import discussions.model.storage as storage

    path = isolated / "d.md"
    original = b"<!-- DISCUSSION -->\n\n# T\n"
    path.write_bytes(original)
    calls = {"n": 0}
    real_write = os.write

    def flaky_write(fd: int, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] == 1:
            return real_write(fd, bytes(data[:10]))  # a partial write...
        raise OSError(28, "No space left on device")  # ...then the disk fills up

    monkeypatch.setattr(storage.os, "write", flaky_write)
    import pytest

    from discussions import DiscussionsError

    with pytest.raises(DiscussionsError, match="disk full; file unchanged"):
        append(path, [render_comment("Rob", "x" * 1000)])
    monkeypatch.undo()
    assert path.read_bytes() == original
