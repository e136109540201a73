"""Asking for evidence in a discussion: a comment of EVIDENCE requests, and fulfilling one."""

from __future__ import annotations

from pathlib import Path

from discussions.engine.evidence.fulfil import fulfil_pending
from discussions.model.discussion import Discussion
from discussions.syntax.render import render_comment

from ..conftest import signed


def one(root: Path, request: str, author: str = "AI-Architect"):  # noqa: ANN201
    d = ask(root, author, request)
    done = fulfil_pending(d)
    assert len(done.blocks) == 1
    (e,) = [e for e in d.evidence if e.number == done.blocks[0].number]
    assert e.status != "pending"
    return e, d


def ask(root: Path, author: str, *requests: str) -> Discussion:
    """A discussion in `root` where `author` asks for `requests`."""
    path = root / "discussions" / "talk.md"
    if not path.exists():
        d = Discussion.create("Talk", directory=root / "discussions")
        d.save()
    d = Discussion.load(path)
    body = "Let me look.\n\n" + "\n".join(f"EVIDENCE: {r}" for r in requests)
    at = "2026-11-23T10:00:00Z"
    ai = author.startswith("AI-")  # a participant's comment is the engine's, signed
    block = signed(author, body, at=at) if ai else render_comment(author, body, meta=f"at: {at}")
    d.add_block(block)
    d.save()
    d.reload()
    return d
