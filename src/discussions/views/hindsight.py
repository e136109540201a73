"""How a decision looks in hindsight, as `status` shows it: the outcome people recorded
(`derive.outcomes`) and the re-trials of its first ballot (`derive.retrials`)."""

from __future__ import annotations

from ..derive.outcomes import latest
from ..model.discussion import Discussion


def hindsight_texts(d: Discussion) -> list[tuple[str, str]]:
    """(text, tone) lines for `status`: the outcome that counts (and how many it replaced),
    then each re-trial with the votes that would flip; none when the file has neither."""
    out: list[tuple[str, str]] = []
    outcome = latest(d.outcomes)
    if outcome is not None:
        earlier = len(d.outcomes) - 1
        more = f" (replaces {earlier} earlier)" if earlier else ""
        tone = "good" if outcome.verdict == "right" else "warning"
        out += [("", ""), (f"Outcome: {outcome.text()}{more}", tone)]
    for r in d.retrials:
        out += [("", ""), (r.headline(), "warning" if r.flips else "")]
        out += [(f"  {v.text()}", "") for v in r.votes]
    return out
