"""What a decision governs: ``GOVERNS: src/auth/**, config/auth.yaml`` on a line under a
``DECISION:`` in the same comment names the paths (or globs) that decision governs (issue
38: drift, `check --since`). One rule, `rule_governs`, pure like the others: the paths go to
the decision's item as ``details["governs"]``, so the state, ``status --json`` and
``decisions --json`` show them; a restated decision governs what each statement named
(`restatements.collapse`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .state import Item, State


def governed_paths(text: str) -> list[str]:
    """The paths of a ``GOVERNS:`` line, in order, without repeats: comma-separated, each
    trimmed of spaces and of the backticks that show it as code."""
    paths = (p.strip().strip("`").strip() for p in text.split(","))
    return list(dict.fromkeys(p for p in paths if p))


def rule_governs(s: State) -> None:
    """Each ``GOVERNS:`` line's paths, on the nearest ``DECISION:`` above it in its comment;
    a ``GOVERNS:`` line with none above it governs nothing and is reported."""
    if not s.holds("GOVERNS"):
        return
    decisions = {i.line: i for i in s.items["DECISION"]}
    for c in s.comments:
        decision: Item | None = None
        for m in c.markers:
            if m.kind == "DECISION":
                decision = decisions.get(m.line)
            elif m.kind == "GOVERNS" and decision is None:
                s.warn(
                    m.line,
                    "`GOVERNS:` names what a decision governs: put it on a line under "
                    "the `DECISION:` of the same comment",
                    code="governs-alone",
                )
            elif m.kind == "GOVERNS" and decision is not None and governed_paths(m.text):
                held = decision.details.setdefault("governs", [])
                held += [p for p in governed_paths(m.text) if p not in held]
