"""Consensus rules (seed 004 'Voting', and its two example tests exactly as written)."""

from __future__ import annotations

from dataclasses import replace

from discussions.derive.voting import calculate_consensus
from discussions.settings.config import VotingConfig


def test_consensus_reached_with_threshold() -> None:
    votes = {
        "AI-Architect": "READY",
        "AI-Security": "READY",
        "AI-Pragmatist": "CHANGES",
    }
    config = VotingConfig(threshold_ready=0.67)
    result = calculate_consensus(votes, config)
    assert result.reached == True  # noqa: E712 - as written in the seed
    assert result.outcome == "READY"


def test_reject_blocks_consensus() -> None:
    votes = {
        "AI-Architect": "READY",
        "AI-Security": "REJECT",
        "AI-Pragmatist": "READY",
    }
    config = VotingConfig(threshold_reject=0.01)
    result = calculate_consensus(votes, config)
    assert result.reached == False  # noqa: E712 - as written in the seed
    assert result.blocked_by == ["AI-Security"]


def test_no_votes() -> None:
    r = calculate_consensus({})
    assert (r.reached, r.outcome, r.blocked_by) == (False, None, [])


def test_below_threshold_names_who_holds_out() -> None:
    r = calculate_consensus({"A": "READY", "B": "CHANGES", "C": "CHANGES"})
    assert not r.reached
    assert r.outcome == "CHANGES"
    assert r.blocked_by == ["B", "C"]


def test_half_is_not_two_thirds() -> None:
    assert not calculate_consensus({"A": "READY", "B": "CHANGES"}).reached


def test_reject_threshold_can_be_raised() -> None:
    votes = {f"v{i}": "READY" for i in range(9)} | {"x": "REJECT"}
    assert calculate_consensus(votes, VotingConfig(threshold_reject=0.5)).reached
    assert not calculate_consensus(votes, VotingConfig()).reached


def test_human_required() -> None:
    votes = {"AI-Architect": "READY", "AI-Security": "READY"}
    config = VotingConfig(human_required=True)
    r = calculate_consensus(votes, config, humans=set())
    assert not r.reached and "human" in r.reason
    r = calculate_consensus(votes | {"Rob": "READY"}, config, humans={"Rob"})
    assert r.reached
    r = calculate_consensus(votes | {"Rob": "CHANGES"}, config, humans={"Rob"})
    assert not r.reached


def test_expected_voters_who_have_not_voted_count_as_not_ready() -> None:
    r = calculate_consensus({"Rob": "READY"}, expected=["AI-Architect", "AI-Security"])
    assert not r.reached
    assert r.waiting_for == ["AI-Architect", "AI-Security"]
    assert "not voted yet: AI-Architect, AI-Security" in r.reason
    r = calculate_consensus(
        {"Rob": "READY", "AI-Architect": "READY"}, expected=["AI-Architect", "AI-Security"]
    )
    assert r.reached  # 2 of 3
    assert r.waiting_for == ["AI-Security"]


def test_a_failed_seat_abstains_or_is_left_out() -> None:
    votes = {"a": "READY", "b": "READY"}
    unanimous = VotingConfig(threshold_ready=1.0)
    abstain = calculate_consensus(votes, unanimous, expected=["a", "b", "c"], failed=["c"])
    assert not abstain.reached and abstain.abstained == ["c"] and abstain.waiting_for == []
    exclude = replace(unanimous, failed_seats="exclude")
    left_out = calculate_consensus(votes, exclude, expected=["a", "b", "c"], failed=["c"])
    assert left_out.reached and left_out.excluded == ["c"]
    # a failed seat the header does not name still counts as an abstention
    assert not calculate_consensus(votes, unanimous, failed=["c"]).reached


def test_distinct_providers_counts_independent_sources() -> None:
    votes = {"a": "READY", "b": "READY", "c": "READY"}
    two = VotingConfig(distinct_providers=2)
    assert not calculate_consensus(votes, two, ready_sources=1).reached
    assert not calculate_consensus(votes, two).reached  # sources unknown: not enough
    assert calculate_consensus(votes, two, ready_sources=2).reached
    assert calculate_consensus(votes, VotingConfig(), ready_sources=1).reached


def test_independent_sources_join_providers_of_one_model_and_skip_the_mock() -> None:
    from discussions.derive.quorum import VoteSource, independent_sources

    sources = [
        VoteSource("a", "READY", 1, "opencode", "gpt-5"),
        VoteSource("b", "READY", 2, "codex", "gpt-5"),
        VoteSource("c", "READY", 3, "claude"),
        VoteSource("d", "READY", 4, "mock"),
        VoteSource("Rita", "READY", 5),
        VoteSource("e", "CHANGES", 6, "gemini"),
    ]
    assert independent_sources(sources) == [["a", "b"], ["c"], ["Rita"]]
