"""A blind first ballot: the ``vote_first`` template and the plan its stand-ins vote by
(tests/scripts/ballot.py), shared by the verdict tests and those of outcomes and re-trials."""

VOTE_FIRST = """\
name: verdict
participants: [architect, security, pragmatist]
phases:
  - id: ballot
    title: Ballot
    consensus_mode: vote_first
"""

PLAN = "architect=READY;security=CHANGES,READY;pragmatist=CHANGES"
"""The council that decided: READY reaches two thirds in round 2 (security moves)."""
