"""Agreement that came too fast, derived from the file (`derive.contrarian`): every voter's
first vote of the phase READY on nothing checked, the consensus held until a challenge made by
the template's contrarian is answered by another voter or a person."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.settings.config import bundled_dir

from ..conftest import sign_ai_comments, write

_HEAD = """<!-- DISCUSSION -->
<!-- Title: Auth -->
<!-- Template: feature -->
<!-- Phase: consensus_vote -->
<!-- Status: OPEN -->
<!-- Participants: architect, security, pragmatist -->

# Auth

Tokens in cookies.

---
"""
_BLOCK = (
    "\n<!-- CONTRARIAN: advocate | phase: consensus_vote | why: too fast -->\n\n"
    "**Contrarian: &#64;advocate is asked.**\n\n---\n"
)


def _comment(author: str, text: str, vote: str | None = None) -> str:
    return f"\nName: {author}\n{text}\n" + (f"\nVOTE: {vote}\n" if vote else "") + "\n---\n"


def _unanimous(text: str = "Looks right.") -> str:
    return "".join(
        _comment(f"AI-{a}", text, "READY") for a in ("Architect", "Security", "Pragmatist")
    )


def _load(isolated: Path, body: str, contrarian: str = "advocate") -> Discussion:
    feature = (bundled_dir("templates") / "feature.yaml").read_text(encoding="utf-8")
    write(isolated / "templates" / "feature.yaml", feature + f"contrarian: {contrarian}\n")
    path = write(isolated / "discussions" / "auth.md", sign_ai_comments(_HEAD + body))
    return Discussion.load(path)


def test_a_unanimous_first_round_on_nothing_is_held_until_the_contrarian_is_asked(
    isolated: Path,
) -> None:
    d = _load(isolated, _unanimous())
    assert d.too_fast and d.challenge is None
    result = d.consensus_result
    assert not result.reached
    assert result.reason.startswith("agreement came too fast: @advocate is to be asked first")


def test_a_vote_against_made_unanimous_on_nothing_is_a_jump(isolated: Path) -> None:
    body = _comment("AI-Security", "Not yet.", "CHANGES") + _unanimous()
    d = _load(isolated, body)
    assert d.too_fast and d.jump is not None and d.jump.cited == []
    against, last = d.comments[0].line, d.comments[-1].line  # the last voter made it unanimous
    assert (d.jump.start, d.jump.end) == (against, last)
    reason = d.consensus_result.reason
    # The only vote cast was CHANGES: no split ballot.
    assert reason.startswith(
        f"agreement jumped from CHANGES (line {against}) to unanimous READY "
        f"(line {last}) on nothing checked: @advocate is to be asked first"
    )
    jump = {"from": against, "to": last, "cited": [], "before": "CHANGES"}
    assert d.to_dict()["challenge"]["jump"] == jump  # type: ignore[index]


@pytest.mark.parametrize(
    ("first", "before"),
    [
        (("REJECT", "REJECT", "REJECT"), "unanimous REJECT"),
        (("CHANGES", "CHANGES", "CHANGES"), "unanimous CHANGES"),
        (("READY", "CHANGES", "READY"), "a split ballot"),
    ],
)
def test_a_jump_says_what_the_ballot_was(
    isolated: Path, first: tuple[str, str, str], before: str
) -> None:
    """A jump from a unanimous vote against is not called "a split ballot"."""
    voters = ("Architect", "Pragmatist", "Security")
    body = "".join(
        _comment(f"AI-{a}", "First look.", v) for a, v in zip(voters, first, strict=True)
    )
    d = _load(isolated, body + _unanimous())
    assert d.jump is not None and d.jump.before == before
    assert d.consensus_result.reason.startswith(f"agreement jumped from {before} (line ")


_SPLIT = _comment("AI-Architect", "Fine.", "READY") + _comment(
    "AI-Security", "CONCERN: the token never expires.", "CHANGES"
)
_AGREE = _comment("AI-Pragmatist", "Fine.", "READY") + _comment(
    "AI-Security", "Fine after all.", "READY"
)


@pytest.mark.parametrize(
    "between",
    [
        _comment("AI-Pragmatist", "EVIDENCE: read auth.py"),
        _comment("AI-Architect", "@security it expires after an hour."),
        _comment("AI-Architect", "> the token never expires\n\nIt does: one hour."),
        _comment("AI-Architect", "See src/auth.py:12 for the expiry."),
    ],
    ids=["evidence-request", "concern-answered-by-mention", "concern-quoted", "a-citation"],
)
def test_something_checked_between_split_and_unanimity_is_no_jump(
    isolated: Path, between: str
) -> None:
    d = _load(isolated, _SPLIT + between + _AGREE)
    assert not d.too_fast and d.has_consensus()
    if "src/auth.py" in between:  # a citation: a jump, given the benefit of the doubt
        assert d.jump is not None and [c.text for c in d.jump.cited] == ["src/auth.py:12"]
    else:
        assert d.jump is None


def test_an_invented_citation_between_does_not_justify_the_jump(isolated: Path) -> None:
    from discussions.derive.citations import UNRESOLVABLE, Verdict, citation_key

    d = _load(isolated, _SPLIT + _comment("AI-Architect", "See src/auth.py:12.") + _AGREE)
    assert d.jump is not None and d.has_consensus()
    d.grounding = {citation_key(c): Verdict(UNRESOLVABLE) for c in d.jump.cited}
    assert not d.has_consensus() and "agreement jumped" in d.consensus_result.reason
    assert d.to_dict()["challenge"]["held"].startswith("agreement jumped")  # type: ignore[index]


def test_the_switching_voters_own_concern_unanswered_is_still_a_jump(isolated: Path) -> None:
    """Its author's READY is no reply to its concern: folding is not being answered."""
    d = _load(isolated, _SPLIT + _AGREE)
    assert d.too_fast and d.jump is not None


def test_evidence_before_the_last_vote_against_does_not_count(isolated: Path) -> None:
    before = _comment("AI-Pragmatist", "EVIDENCE: read auth.py")
    d = _load(isolated, before + _SPLIT + _AGREE)
    assert d.too_fast and d.jump is not None


def test_the_challenge_holds_until_another_voter_or_a_person_speaks(isolated: Path) -> None:
    challenged = _unanimous() + _BLOCK + _comment("AI-Advocate", "CONCERN: CSRF.")
    d = _load(isolated, challenged)
    assert d.challenge is not None and not d.challenge.answered
    assert d.consensus_result.reason.startswith("challenged by @advocate: awaiting an answer; ")
    assert not d.consensus_result.reason.endswith("))")  # the tally after it, not nested in ()
    again = _load(isolated, challenged + _comment("AI-Advocate", "And another thing."))
    assert not again.has_consensus()  # the contrarian does not answer itself
    for answer in (_comment("AI-Security", "SameSite=strict is set."), _comment("Rob", "Ack.")):
        d = _load(isolated, challenged + answer)
        assert d.challenge is not None and d.challenge.answered and d.has_consensus()


def test_an_unknown_contrarian_is_reported_and_never_waited_for(isolated: Path) -> None:
    d = _load(isolated, _unanimous(), contrarian="nobody")
    assert not d.too_fast and d.has_consensus()
    assert any("contrarian @nobody is unknown" in w.message for w in d.warnings)
