"""The minority report derived once (`derive.dissent`): votes against at the end, their last
reasons, NO and ABSTAIN ballots of passed motions, and the concerns nobody answered."""

from __future__ import annotations

from pathlib import Path

from discussions.model.discussion import Discussion

from ..support.dissent import MOTION, SPLIT, UNANIMOUS, discussion_file


def test_a_reject_and_an_unanswered_concern_make_the_report(isolated: Path) -> None:
    path = discussion_file(isolated, SPLIT)
    lines = path.read_text(encoding="utf-8").split("\n")
    line = 1 + next(i for i, raw in enumerate(lines) if raw.startswith("CONCERN: Tokens"))
    d = Discussion.load(path)
    report = d.dissent.to_dict()
    assert [(v["name"], v["vote"]) for v in report["votes"]] == [("AI-Security", "REJECT")]
    why = report["votes"][0]["reason"]
    assert why.startswith("Redis holds the session tokens in clear text.")
    assert "third sentence" not in why and "VOTE" not in why
    assert report["concerns"] == [
        {"by": "AI-Security", "text": "Tokens stored unencrypted in Redis.", "line": line}
    ]
    assert "REJECT from AI-Security" in d.dissent.headline()


def test_a_unanimous_decision_with_its_concern_answered_has_no_report(isolated: Path) -> None:
    d = Discussion.load(discussion_file(isolated, UNANIMOUS))
    assert not d.dissent
    assert d.dissent.to_dict() == {"votes": [], "concerns": [], "reservations": []}
    assert d.dissent.headline() == ""


def test_a_no_ballot_on_a_passed_motion_is_dissent(isolated: Path) -> None:
    d = Discussion.load(discussion_file(isolated, MOTION))
    assert [m.result for m in d.motions] == ["passed"]
    votes = d.dissent.to_dict()["votes"]
    assert [(v["name"], v["vote"]) for v in votes] == [("AI-Security", "NO")]
    assert (
        votes[0]["reason"] == "Clear-text tokens in a shared cache are a breach waiting to happen."
    )


def test_a_concern_its_author_then_votes_ready_on_is_answered(isolated: Path) -> None:
    text = (
        SPLIT + "\nName: AI-Security\nEncryption at rest is configured now.\n\nVOTE: READY\n\n---\n"
    )
    d = Discussion.load(discussion_file(isolated, text))
    assert not d.dissent


def test_a_reason_of_markers_only_is_their_text(isolated: Path) -> None:
    text = SPLIT + (
        "\nName: AI-Security\nCONCERN: Nobody has costed the Redis cluster.\n\n"
        "VOTE: CHANGES\n\n---\n"
    )
    d = Discussion.load(discussion_file(isolated, text))
    votes = d.dissent.to_dict()["votes"]
    assert [(v["vote"], v["reason"]) for v in votes] == [
        ("CHANGES", "Nobody has costed the Redis cluster.")
    ]


def test_only_someone_else_answers_a_concern(isolated: Path) -> None:
    """The author quoting or restating their own concern answers nothing; another's quote of
    part of a word ("Redis" in "Rediscover") is no quote of it."""
    text = SPLIT + (
        "\nName: AI-Security\n> Tokens stored unencrypted in Redis.\n\nStill open.\n\n"
        "VOTE: REJECT\n\n---\n\nName: Rob\n> Tokens stored unencrypted in Rediscover\n\n"
        "Unrelated.\n\n---\n"
    )
    d = Discussion.load(discussion_file(isolated, text))
    assert [c.text for c in d.dissent.concerns] == ["Tokens stored unencrypted in Redis."]
    text += "\nName: Rob\n> tokens stored *unencrypted* in Redis\n\nWe encrypt at rest.\n\n---\n"
    assert not Discussion.load(discussion_file(isolated, text)).dissent.concerns


# Issue 37, item 5: a CONCERN: raised beside one's own READY vote.
_RESERVED = UNANIMOUS.replace(
    "Name: AI-Performance\nVOTE: READY",
    "Name: AI-Performance\nCONCERN: The cluster has no failover yet.\n\nVOTE: READY",
)


def test_a_concern_beside_ones_own_ready_is_a_reservation_not_dissent(isolated: Path) -> None:
    d = Discussion.load(discussion_file(isolated, _RESERVED))
    line = 1 + d.text.split("\n").index("CONCERN: The cluster has no failover yet.")
    report = d.dissent
    assert report and not report.dissents  # shown, but nobody dissents
    assert report.concerns == [] and report.votes == []
    assert [c.to_dict() for c in report.reservations] == [
        {"by": "AI-Performance", "text": "The cluster has no failover yet.", "line": line}
    ]
    assert report.headline() == "Recorded with 1 reservation from a READY voter (AI-Performance)."
    assert "over dissent" not in report.headline()
    assert report.lines() == [
        f"- Reservation from AI-Performance, voting READY (line {line}): "
        "The cluster has no failover yet."
    ]


def test_beside_dissent_a_reservation_is_its_own_sentence(isolated: Path) -> None:
    text = SPLIT.replace(
        "DECISION: Store sessions in Redis with a 24h expiry.\n",
        "DECISION: Store sessions in Redis with a 24h expiry.\n"
        "CONCERN: Nobody owns the Redis upgrade.\n",
    )
    d = Discussion.load(discussion_file(isolated, text))
    assert d.dissent.headline() == (
        "Recorded over dissent: REJECT from AI-Security; 1 unanswered concern (AI-Security). "
        "1 reservation from a READY voter (AI-Architect)."
    )


def test_a_reservation_answered_by_another_is_gone(isolated: Path) -> None:
    text = _RESERVED + "\nName: Rob\n@performance failover lands next sprint.\n\n---\n"
    assert not Discussion.load(discussion_file(isolated, text)).dissent


def test_a_reservation_whose_author_then_votes_against_is_dissent(isolated: Path) -> None:
    text = _RESERVED + "\nName: AI-Performance\nOn reflection, no.\n\nVOTE: CHANGES\n\n---\n"
    d = Discussion.load(discussion_file(isolated, text))
    assert d.dissent.reservations == []
    assert [c.text for c in d.dissent.concerns] == ["The cluster has no failover yet."]
    assert d.dissent.headline().startswith("Recorded over dissent: CHANGES from AI-Performance")
