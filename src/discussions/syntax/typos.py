"""Which participant's alias a mention or a name most likely misspells (``@securty`` ->
``security``): difflib's close matches at ratio 0.75, asked of one set of aliases for many
names (every distinct unknown mention of a file, `derive.rules.rule_mentions`).

difflib compares a name with each alias in turn (a `difflib.SequenceMatcher` per name, its
quick ratios per alias) and keeps an alias only if even its upper bounds reach the cutoff.
One of them, `quick_ratio`, is 2 x the characters the two share / their two lengths; a
character of the name found in no alias is shared with none, so the name's characters found
in some alias bound what it shares with each. An alias that bound keeps under the cutoff is
one difflib would drop: it is not handed over, and a name like ``@p1234`` (no letter in
common with ``architect``) costs a pass over its characters, not a matcher and nine
comparisons. The answer is difflib's on all the aliases, always.
"""

from __future__ import annotations

from collections.abc import Collection

CUTOFF = 0.75
"""The ratio (`difflib.SequenceMatcher.ratio`) a name must reach with an alias to be its typo."""


class CloseAliases:
    """`closest` for many names against one set of aliases, each answer found once."""

    __slots__ = ("known", "letters", "found")

    def __init__(self, known: Collection[str]) -> None:
        self.known = sorted(known)
        self.letters = frozenset("".join(self.known))
        """Every character of some alias: what a name can share with any of them."""
        self.found: dict[str, str | None] = {}

    def closest(self, name: str) -> str | None:
        """The alias that `name` (3 characters or more) most likely misspells, or None."""
        if name not in self.found:
            self.found[name] = self._closest(name)
        return self.found[name]

    def _closest(self, name: str) -> str | None:
        if not self.known or len(name) < 3:
            return None
        shared = sum(ch in self.letters for ch in name)  # at least what any alias shares
        size = len(name)
        # The same float expression as difflib's ratios (2.0 * matches / length): a bound that
        # is at least the true count gives a ratio at least difflib's, so nothing it keeps is
        # dropped here. Over every length of alias, the bound is highest for an alias as long
        # as `shared`: under the cutoff there, it is under it for all.
        if 2.0 * shared / (size + shared) < CUTOFF:
            return None
        near = [a for a in self.known if 2.0 * min(shared, len(a)) / (size + len(a)) >= CUTOFF]
        if not near:
            return None
        import difflib  # only when needed: it is slow to import

        matches = difflib.get_close_matches(name, near, n=1, cutoff=CUTOFF)
        return matches[0] if matches else None
