"""A typo's suggested alias (`typos.CloseAliases`, `markers.closest_alias`) is difflib's close
match on every alias, though aliases that cannot reach the cutoff are no longer handed to
difflib (issue 36: a comment of thousands of distinct unknown mentions compared each with
every alias). The oracle is the function as it was, kept here."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.syntax.markers import closest_alias
from discussions.syntax.typos import CloseAliases


def old_closest(name: str, known: list[str]) -> str | None:
    """`closest_alias` as it was: difflib over every alias."""
    if not known or len(name) < 3:
        return None
    matches = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return matches[0] if matches else None


ALIASES = ["architect", "security", "pragmatist", "ai-architect", "rob", "zoë", "a", "sec"]
# Names near the aliases (a few letters changed) and far from them (digits, other scripts).
LETTERS = st.sampled_from("architecsuyp-_gmzoëb0123456789ßж")
NAMES = st.one_of(
    st.text(LETTERS, max_size=14),
    st.sampled_from(ALIASES).flatmap(
        lambda a: st.tuples(st.integers(0, len(a)), st.text(LETTERS, max_size=3)).map(
            lambda cut: a[: cut[0]] + cut[1] + a[cut[0] + 1 :]
        )
    ),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(NAMES, max_size=12), st.lists(st.sampled_from(ALIASES), max_size=8))
def test_the_answer_is_difflibs_on_every_alias(names: list[str], known: list[str]) -> None:
    close_to = CloseAliases(set(known))
    for name in names:
        assert close_to.closest(name) == old_closest(name, known)
        assert closest_alias(name, known) == old_closest(name, known)


def test_typos_and_names_far_from_every_alias() -> None:
    known = {"architect", "security", "pragmatist"}
    close_to = CloseAliases(known)
    assert close_to.closest("securty") == "security"
    assert close_to.closest("architec") == "architect"
    assert close_to.closest("p1234") is None  # shares one letter with "pragmatist": too few
    assert close_to.closest("ar") is None  # under 3 characters: never a typo
    assert CloseAliases(()).closest("securty") is None
