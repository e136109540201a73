"""`discussions adr`: architecture decision records (Nygard's form, numbered like adr-tools)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.errors import DiscussionExists
from discussions.model import adr
from discussions.model.discussion import Discussion

from ..conftest import signed


def run(*args: str):  # type: ignore[no-untyped-def]
    from discussions.cli import cli

    return CliRunner().invoke(cli, list(args))


def decided(title: str = "Add user authentication", *, template: str = "feature") -> Path:
    """A discussion made with the CLI, with decisions, a concern and a todo, then decided."""
    r = run("new", title, "-t", template, "--context", "Users must log in before they upload.")
    assert r.exit_code == 0, r.output
    path = next(p for p in (Path("discussions")).glob("*.md"))
    for author, body in [
        ("AI-Architect", "Sessions or tokens?\n\nCONCERN: revoking a token before expiry"),
        ("Rob", "DECISION: Use JWT with a 1 hour expiry\nTODO: write the auth middleware"),
        ("Ann", "Agreed.\n\n- DECISION: refresh tokens live in an httpOnly cookie\n\nVOTE: READY"),
    ]:
        if author.startswith("AI-"):  # a participant's comment, as the engine writes it
            d = Discussion.load(path)
            d.add_block(signed(author, body))
            d.save()
            continue
        assert run("comment", str(path), "-a", author, body).exit_code == 0
    assert run("close", str(path), "--status", "DECIDED").exit_code == 0
    return path


def test_adr_in_nygard_form(isolated: Path) -> None:
    path = decided()
    r = run("adr", path.name)
    assert r.exit_code == 0, r.output
    assert r.output == "Wrote docs/adr/0001-add-user-authentication.md (Accepted, 2 decisions).\n"
    text = (isolated / "docs/adr/0001-add-user-authentication.md").read_text(encoding="utf-8")
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert text.startswith(
        f"# 1. Add user authentication\n\nDate: {today}\n\n## Status\n\nAccepted\n"
    )
    context = text[text.index("## Context") : text.index("## Decision")]
    assert "Users must log in before they upload." in context
    for placeholder in ("[Requirement 1]", "[Question 1]", "[Constraint 1]", "Discussion begins"):
        assert placeholder not in context
    assert "## Requirements" not in context  # a section left empty is dropped
    assert "\n## Decision\n\n- Use JWT with a 1 hour expiry (Rob)\n" in text
    assert "- refresh tokens live in an httpOnly cookie (Ann)\n" in text
    consequences = text[text.index("## Consequences") :]
    assert "- revoking a token before expiry (AI-Architect)" in consequences
    assert "- write the auth middleware (Rob)" in consequences
    assert (
        "Discussed in [Add user authentication](../../discussions/add-user-authentication.md)"
        in text
    )
    assert "<!-- DISCUSSION" not in text


def test_adr_of_an_open_discussion_is_proposed_and_numbers_follow(isolated: Path) -> None:
    path = decided()
    run("reopen", str(path))
    adr = isolated / "docs" / "adr"
    adr.mkdir(parents=True)
    (adr / "0001-record-architecture-decisions.md").write_text("# 1. Record\n")
    (adr / "0007-something.md").write_text("# 7. Something\n")
    (adr / "README.md").write_text("index\n")
    r = run("adr", str(path), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data == {
        "number": 8,
        "file": "docs/adr/0008-add-user-authentication.md",
        "title": "Add user authentication",
        "status": "Proposed",
        "decisions": 2,
        "supersedes": None,
    }
    assert "## Status\n\nProposed\n" in (adr / "0008-add-user-authentication.md").read_text()
    # run again: a new record with the next number, the first is left as it was
    before = (adr / "0008-add-user-authentication.md").read_bytes()
    assert run("adr", str(path)).output.startswith("Wrote docs/adr/0009-")
    assert (adr / "0008-add-user-authentication.md").read_bytes() == before


def test_adr_supersedes_and_marks_the_old_record(isolated: Path) -> None:
    path = decided()
    assert run("adr", str(path)).exit_code == 0
    r = run("adr", str(path), "--supersedes", "1", "--dir", "docs/adr")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == [
        "Wrote docs/adr/0002-add-user-authentication.md (Accepted, 2 decisions).",
        "Marked docs/adr/0001-add-user-authentication.md as superseded by it.",
    ]
    new = (isolated / "docs/adr/0002-add-user-authentication.md").read_text()
    old = (isolated / "docs/adr/0001-add-user-authentication.md").read_text()
    assert (
        "## Status\n\nAccepted\n\n"
        "Recorded with 1 unanswered concern (AI-Architect).\n\n"
        "Supersedes [1. Add user authentication](0001-add-user-authentication.md)\n\n## Context"
    ) in new
    assert (
        "## Status\n\nAccepted\n\n"
        "Recorded with 1 unanswered concern (AI-Architect).\n\n"
        "Superseded by [2. Add user authentication](0002-add-user-authentication.md)\n\n"
        "## Context"
    ) in old


def test_adr_errors(isolated: Path) -> None:
    run("new", "Nothing decided")
    r = run("adr", "nothing-decided.md")
    assert r.exit_code == 1
    assert r.output == (
        "Error: nothing-decided.md has no decisions to record; add a `DECISION:` line to a "
        'comment (`discussions comment nothing-decided.md "DECISION: ..."`), then run adr again\n'
    )
    assert not (isolated / "docs").exists()
    path = decided()
    r = run("adr", str(path), "--supersedes", "5")
    assert r.exit_code == 1
    assert r.output == "Error: no record 0005 to supersede in docs/adr (records there: none)\n"
    assert not (isolated / "docs" / "adr").exists() or not any((isolated / "docs/adr").iterdir())
    assert run("adr", "missing.md").exit_code == 1


def test_adr_never_overwrites(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = decided()
    run("adr", str(path))
    target = isolated / "docs/adr/0001-add-user-authentication.md"
    before = target.read_bytes()
    monkeypatch.setattr(adr, "_records", lambda folder: {})  # as if another writer raced us
    with pytest.raises(DiscussionExists, match="already exists; it was not overwritten"):
        adr.write_adr(Discussion.load(path), isolated / "docs" / "adr")
    assert target.read_bytes() == before


def test_adr_from_the_adr_template(isolated: Path) -> None:
    path = decided("Use PostgreSQL", template="adr")
    text = path.read_text()
    assert "<!-- Title: ADR: Use PostgreSQL -->" in text
    record = adr.write_adr(
        Discussion.load(path), isolated / "records", now=datetime(2026, 1, 2, tzinfo=UTC)
    )
    assert record.path.name == "0001-use-postgresql.md"
    out = record.path.read_text()
    assert out.startswith("# 1. Use PostgreSQL\n\nDate: 2026-01-02\n\n## Status\n\nAccepted\n")
    context = out[out.index("## Context") : out.index("## Decision")]
    assert "Users must log in before they upload." in context
    # the template's own Status / Decision / Consequences and placeholder options are gone
    assert "PROPOSED" not in context and "To be determined" not in context
    assert "Option A" not in context and "Pros:" not in context
    assert out.count("## Status") == 1 and out.count("## Decision") == 1


def test_context_text_keeps_what_people_wrote() -> None:
    preamble = (
        "# Title\n\n## Context\nWe ship weekly.\n\n## Requirements\n- [ ] [Requirement 1]\n"
        "- [x] Logins survive restarts\n\n## Notes\n```\n[not a placeholder in code?]\n```\n\n"
        "---\n\n*Discussion begins below.*\n"
    )
    out = adr.context_text(preamble)
    assert out.startswith("We ship weekly.\n\n### Requirements\n\n- [x] Logins survive restarts")
    assert "Discussion begins" not in out and "# Title" not in out


@pytest.mark.parametrize(
    "status, shown",
    [
        ("DECIDED", "Accepted"),
        ("accepted", "Accepted"),
        ("CLOSED", "Accepted"),
        ("OPEN", "Proposed"),
        ("PROPOSED", "Proposed"),
        ("REJECTED", "Rejected"),
        ("ON_HOLD", "On hold"),
    ],
)
def test_adr_status(status: str, shown: str) -> None:
    assert adr.adr_status(status) == shown


def test_renumber_moves_a_record_and_the_links_to_it(isolated: Path) -> None:
    """Two branches each wrote record 2, one superseding record 1: renumbering that one moves
    it to 3 and the 'Superseded by' link record 1 got follows it."""
    folder = isolated / "docs" / "adr"
    folder.mkdir(parents=True)
    (folder / "0001-first.md").write_text(
        "# 1. First\n\n## Status\n\nAccepted\n\nSuperseded by [2. Late](0002-late.md)\n"
    )
    (folder / "0002-early.md").write_text("# 2. Early\n")
    (folder / "0002-late.md").write_text("# 2. Late\n\nSupersedes [1. First](0001-first.md)\n")
    assert adr.duplicate_numbers(folder) == {2: [folder / "0002-early.md", folder / "0002-late.md"]}
    r = run("adr", "--renumber", "docs/adr/0002-late.md", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == {"number": 3, "file": "docs/adr/0003-late.md"}
    assert (folder / "0003-late.md").read_text().startswith("# 3. Late\n")
    assert "Superseded by [3. Late](0003-late.md)" in (folder / "0001-first.md").read_text()
    assert adr.duplicate_numbers(folder) == {}
    r = run("adr", "--renumber", "docs/adr/README.md")
    assert r.exit_code == 1 and "is not an architecture decision record" in r.output


def test_adr_context_leaves_out_engine_blocks_and_empty_template_sections(isolated: Path) -> None:
    """A run's first ROUND block stands before the first comment, in the preamble: its marker
    (`<!-- ROUND: 1 | ... pid: ... -->`) went into Context under the template's empty
    Constraints heading (issue 34, item 14)."""
    r = run("new", "Cache", "--context", "We need a cache for the API.")
    assert r.exit_code == 0, r.output
    r = run("run", "cache.md", "--provider", "mock", "--rounds", "1")
    assert "ROUND: 1" in Path("discussions/cache.md").read_text("utf-8")
    assert run("comment", "cache.md", "DECISION: use redis").exit_code == 0
    assert run("close", "cache.md", "--status", "DECIDED").exit_code == 0
    r = run("adr", "cache.md", "--json")
    assert r.exit_code == 0, r.output
    record = Path(json.loads(r.output)["file"]).read_text("utf-8")
    context = record.split("## Context", 1)[1].split("## Decision", 1)[0]
    assert context.strip() == "We need a cache for the API."


def test_context_text_leaves_out_html_comments() -> None:
    preamble = "# T\n\n## Context\nWhy.\n<!-- a note to myself -->\n\n## Constraints\n<!-- x -->\n"
    assert adr.context_text(preamble) == "Why."
