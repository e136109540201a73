"""How decisions look in hindsight: in `status`, the outcome people recorded
(`derive.outcomes`) and the re-trials of the first ballot (`derive.retrials`); across a
folder, the calibration report (`model.calibration`)."""

from __future__ import annotations

from typing import Any

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


def calibration_lines(data: dict[str, Any], where: str) -> list[str]:
    """The report `calibration` prints, from its JSON (`Calibration.to_dict`)."""
    counts = ", ".join(f"{n} {v}" for v, n in data["verdicts"].items() if n)
    head = f"Calibration: {data['judged']} of {data['discussions']} discussions in {where} judged"
    lines = [head + (f" ({counts})" if counts else "") + "."]
    if not data["judged"]:
        lines.append("Record how a decision turned out: discussions outcome FILE --verdict ...")
        return lines
    for title, rows in (("persona", data["personas"]), ("provider", data["providers"])):
        lines += ["", *_table(title, rows)]
    debate = data["debate"]
    n = debate["overturned"]
    lines.append("")
    if not n:
        lines.append("Debate delta: no judged debate overturned its first ballot's majority.")
    else:
        lines.append(
            f"Debate delta: the debate overturned {n} first-ballot majorit"
            f"{'y' if n == 1 else 'ies'}; the first ballot was right in "
            f"{_num(debate['first_ballot_right'])} of {n}, the debate in "
            f"{_num(debate['debate_right'])} of {n}."
        )
    return lines


def _table(title: str, rows: list[dict[str, Any]]) -> list[str]:
    """One table: a row per persona or provider."""
    if not rows:
        return [f"By {title}: no votes."]
    width = max(len(title), *(len(r["name"]) for r in rows))
    out = [f"{'By ' + title:<{width + 3}}  votes  agreed  agreement  confidence  Brier"]
    for r in rows:
        out.append(
            f"{r['name']:<{width + 3}}  {r['votes']:>5}  {_num(r['agreed']):>6}  "
            f"{_num(r['agreement']):>9}  {r['with_confidence']:>10}  {_num(r['brier']):>5}"
        )
    return out


def _num(value: float | None) -> str:
    """``2``, ``1.5``, ``0.667``; ``-`` for none."""
    if value is None:
        return "-"
    return f"{value:.3f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
