"""A derivation resumed from an earlier version's readings (`derive.readings`): the comments
that did not change are not read again, and the state is what a derivation of the whole text
gives, edit after edit, wherever the edits fall."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings

from discussions.derive.rules import derive, derive_parsed
from discussions.derive.state import State
from discussions.settings.workspace import Workspace
from discussions.syntax.parse import parse_document
from discussions.syntax.reparse import reparse

from ..support.edits import HEAD, edited


def _whole(text: str, ws: Workspace) -> State:
    """`derive` of `text`, its parse's warnings in line order (as `reparse` gives them)."""
    state = derive(text, ws, "cache")
    state.doc.warnings.sort(key=lambda w: w.line)
    return state


@settings(max_examples=200, deadline=None)
@given(edited())
def test_a_derivation_resumed_from_the_last_version_is_the_whole_derivation(
    versions: list[str],
) -> None:
    """Each version derived from the previous one's parse and readings equals the whole
    derivation: comments, their markers, citations and metadata, items with what the later
    rules attach to them, votes, warnings (forged and unsigned comments, the carry)."""
    ws = Workspace.discover(Path.cwd())
    doc = parse_document(versions[0])
    state = derive_parsed(doc, versions[0], ws, "cache")
    for before, text in zip(versions, versions[1:], strict=False):
        doc = reparse(doc, before, text)
        state = derive_parsed(doc, text, ws, "cache", resume=state)
        whole = _whole(text, ws)
        assert state == whole
        assert [c.citations for c in state.comments] == [c.citations for c in whole.comments]
        assert [r.comment for r in state.readings] == state.comments


def _comments(n: int) -> str:
    return HEAD + "".join(
        f"\n---\n\nName: {'AI-Security' if i % 2 else 'Rob'}\n\n"
        f"{'<!-- provider: mock -->' if i % 2 else ''}\nQ: question {i}? see src/app.py:{i + 1}\n"
        for i in range(n)
    )


def test_an_edit_in_the_last_comment_reads_that_comment_alone(isolated: Path) -> None:
    """The comments above the edit are the previous derivation's own; what later rules attach
    to items is made afresh (the earlier state keeps its own)."""
    ws = Workspace.discover(isolated)
    text = _comments(7)  # the last is Rob's (an AI's here has no digest: it counts for nothing)
    first = derive_parsed(parse_document(text), text, ws, "cache")
    edited = text + "Q: question 4? see src/app.py:5\n"
    again = derive_parsed(reparse(first.doc, text, edited), edited, ws, "cache", resume=first)
    assert again.resumed == 6
    assert all(a is b for a, b in zip(again.comments[:6], first.comments, strict=False))
    assert again.comments[6] is not first.comments[6]
    said = [i for i in again.items["Q"] if i.text.startswith("question 4?")]
    assert [r.line for r in said[0].restated] == [edited.count("\n")]  # the last line
    assert [i.restated for i in first.items["Q"]] == [[]] * 4
    assert again == _whole(edited, ws)


def test_what_the_comments_above_carry_is_resumed(isolated: Path) -> None:
    """`check` explains an unsigned comment in full once, at the first, and points the later
    ones there: the first is above the edit, its reading's carry says where."""
    ws = Workspace.discover(isolated)
    text = _comments(4)
    first = derive_parsed(parse_document(text), text, ws, "cache")
    edited = text + "more\n"
    again = derive_parsed(reparse(first.doc, text, edited), edited, ws, "cache", resume=first)
    assert again.resumed == 3
    forged = [w.message for w in again.warnings if w.code == "forged-comment"]
    assert "see line" in forged[-1] and "see line" not in forged[0]
    assert again == _whole(edited, ws)


def test_an_edit_in_the_first_comment_reads_every_comment_again(isolated: Path) -> None:
    ws = Workspace.discover(isolated)
    text = _comments(4)
    first = derive_parsed(parse_document(text), text, ws, "cache")
    at = text.index("Q: question 0")
    edited = text[:at] + "VOTE: READY\n" + text[at:]
    again = derive_parsed(reparse(first.doc, text, edited), edited, ws, "cache", resume=first)
    assert again.resumed == 0
    assert again == _whole(edited, ws)


def test_a_derivation_in_another_workspace_is_not_resumed(isolated: Path) -> None:
    """What a comment is (forged, human) depends on the participants: another workspace's
    readings are not taken."""
    text = _comments(3)
    first = derive_parsed(parse_document(text), text, Workspace.discover(isolated), "cache")
    other = Workspace.discover(isolated)
    again = derive_parsed(parse_document(text), text, other, "cache", resume=first)
    assert again.resumed == 0
    assert again == derive(text, other, "cache")
