"""Diagnostic mode: root-cause keys, confidence, and convergence (TheRoundtAIble's "code red").

Participants write ``ROOT-CAUSE: key`` and ``CONFIDENCE: 0-10`` (from JSON, ``root_cause_key``
and ``confidence``). A key is normalised: lower case, words (letters and digits) joined by
``-``, at most 60 characters (``Race in Session Store`` -> ``race-in-session-store``); a key
with any other character, or longer, is a parse error, reported as a warning and not counted.
Each author's latest parseable diagnosis is their candidate.

Converged: two or more authors, each with confidence 8 or more, give the same key or keys
whose similarity is at least 0.7, the similarity being difflib's ``SequenceMatcher.ratio()``
over the normalised keys (``session-token-expired`` / ``session-token-expiry``: 0.93). The key
reported is the one most supporters gave (the earliest on a tie).

A participant who answers twice in a ``diagnosis: true`` phase without a parseable diagnosis
is dropped from convergence, with a note; their candidate is still listed.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ..syntax.lazyre import Lazy
from ..syntax.record import Record

if TYPE_CHECKING:
    from .state import State

_MAX_KEY_CHARS = 60
_MIN_CONFIDENCE = 8
_SIMILARITY = 0.7
_MAX_FAILURES = 2

_WORD_SEPARATORS = Lazy(r"[\s_\-]+")
_KEY = Lazy(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_CONFIDENCE = Lazy(r"\s*\**\s*(\d{1,2}(?:\.\d+)?)\s*(?:/\s*10)?\s*\**\s*\.?\s*$")


class Candidate(Record):
    """One author's latest diagnosis."""

    __slots__ = ("key", "author", "confidence", "line")
    key: str
    """Normalised root-cause key."""
    author: str
    confidence: int
    """0-10."""
    line: int
    """Line of the ``ROOT-CAUSE:`` marker."""

    def __init__(
        self,
        key: str,
        author: str,
        confidence: int,
        line: int,
    ) -> None:
        self.key = key
        self.author = author
        self.confidence = confidence
        self.line = line

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "author": self.author,
            "confidence": self.confidence,
            "line": self.line,
        }


class Diagnosis(Record):
    """The diagnosis state of a discussion."""

    __slots__ = ("candidates", "converged", "key", "supporters", "dropped", "notes")
    candidates: list[Candidate]
    """Each author's latest parseable diagnosis, in file order."""
    converged: bool
    key: str | None
    """The root cause agreed on, when converged."""
    supporters: list[str]
    """Authors whose candidates support `key`."""
    dropped: list[str]
    """Authors dropped from convergence (two answers without a parseable diagnosis)."""
    notes: list[str]

    def __init__(
        self,
        candidates: list[Candidate] | None = None,
        converged: bool = False,
        key: str | None = None,
        supporters: list[str] | None = None,
        dropped: list[str] | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.candidates = [] if candidates is None else candidates
        self.converged = converged
        self.key = key
        self.supporters = [] if supporters is None else supporters
        self.dropped = [] if dropped is None else dropped
        self.notes = [] if notes is None else notes

    def to_dict(self) -> dict[str, Any]:
        return {
            "converged": self.converged,
            "key": self.key,
            "supporters": list(self.supporters),
            "candidates": [c.to_dict() for c in self.candidates],
            "dropped": list(self.dropped),
            "notes": list(self.notes),
        }


def normalise_key(text: str) -> str | None:
    """``Race in Session_Store`` -> ``race-in-session-store``; None when the key holds other
    characters than letters, digits and separators, is empty, or is longer than 60."""
    words = _WORD_SEPARATORS.sub("-", text.strip().strip("`*").strip().lower()).strip("-")
    if not words or len(words) > _MAX_KEY_CHARS or not _KEY.fullmatch(words):
        return None
    return words


def parse_confidence(text: str) -> int | None:
    """``8``, ``8/10``, ``**9**``, ``8.5`` -> the whole number (0-10); anything else -> None."""
    m = _CONFIDENCE.match(text)
    if not m or float(m.group(1)) > 10:
        return None
    return int(float(m.group(1)))


def similarity(a: str, b: str) -> float:
    """difflib's ``SequenceMatcher.ratio()`` of two normalised keys (1.0: the same key)."""
    if a == b:
        return 1.0
    import difflib  # only when needed: it is slow to import

    return difflib.SequenceMatcher(None, a, b).ratio()


def converge(
    candidates: list[Candidate], dropped: Collection[str] = ()
) -> tuple[str | None, list[str]]:
    """(key, supporters) of the largest group of confident candidates whose keys match the
    group's anchor; (None, []) when no group has two members."""
    sure = [c for c in candidates if c.confidence >= _MIN_CONFIDENCE and c.author not in dropped]
    best: list[Candidate] = []
    for anchor in sure:
        group = [c for c in sure if similarity(anchor.key, c.key) >= _SIMILARITY]
        if len(group) > len(best):
            best = group
    if len(best) < 2:
        return None, []
    counts: dict[str, int] = {}
    for c in best:
        counts[c.key] = counts.get(c.key, 0) + 1
    key = max(counts, key=lambda k: counts[k])  # first key on a tie (dicts keep order)
    return key, [c.author for c in best]


def rule_diagnosis(s: State) -> None:
    """Root-cause candidates, failures in diagnosis phases, convergence."""
    t = s.template
    diagnosis_phases = {p.id for p in t.phases if p.diagnosis} if t else set()
    if not diagnosis_phases and not s.holds("ROOT-CAUSE", "CONFIDENCE"):
        return  # no candidate and no failure to count: the empty `Diagnosis`
    phase_at = _phase_lines(s)
    result = Diagnosis()
    latest: dict[str, Candidate] = {}
    failures: dict[str, int] = {}
    registry = s.registry
    for c in s.comments:
        key: str | None = None
        key_line = 0
        confidence: int | None = None
        for m in c.markers:
            if m.kind == "ROOT-CAUSE":
                key = normalise_key(m.text)
                key_line = m.line
                if key is None:
                    s.warn(
                        m.line,
                        f"invalid root-cause key `{m.text[:80]}` (expected words of letters and "
                        f"digits, at most {_MAX_KEY_CHARS} characters); not counted",
                    )
            elif m.kind == "CONFIDENCE":
                confidence = parse_confidence(m.text)
                if confidence is None:
                    s.warn(
                        m.line, f"invalid confidence `{m.text[:40]}` (expected 0-10); not counted"
                    )
        if key is not None and confidence is not None:
            latest.pop(c.author, None)
            latest[c.author] = Candidate(key, c.author, confidence, key_line)
        elif (
            diagnosis_phases
            and registry.for_author(c.author) is not None
            and _phase_of(c.line, phase_at) in diagnosis_phases
        ):
            failures[c.author] = failures.get(c.author, 0) + 1
            if failures[c.author] == _MAX_FAILURES:
                result.dropped.append(c.author)
                result.notes.append(
                    f"{c.author} gave no parseable diagnosis twice (last at line {c.line}) and "
                    "is left out of convergence"
                )
    result.candidates = sorted(latest.values(), key=lambda x: x.line)
    key, supporters = converge(result.candidates, set(result.dropped))
    result.converged = key is not None
    result.key = key
    result.supporters = supporters
    s.diagnosis = result


def describe(diagnosis: Diagnosis) -> list[str]:
    """Lines for `status` and the summary; none when nobody gave a diagnosis."""
    if not diagnosis.candidates and not diagnosis.notes:
        return []
    if diagnosis.converged:
        head = (
            f"Diagnosis: converged on '{diagnosis.key}' "
            f"(supported by {', '.join(diagnosis.supporters)})"
        )
    else:
        head = (
            "Diagnosis: not converged (two participants must name the same root cause "
            f"with confidence {_MIN_CONFIDENCE} or more)"
        )
    lines = [head]
    for c in diagnosis.candidates:
        lines.append(
            f"  ROOT-CAUSE: {c.key} ({c.author}, confidence {c.confidence}, line {c.line})"
        )
    lines += [f"  Note: {note}" for note in diagnosis.notes]
    return lines


def decision_text(diagnosis: Diagnosis) -> str | None:
    """The converged diagnosis as a decision, for `discussions decisions`; None if not
    converged."""
    if not diagnosis.converged:
        return None
    return f"Root cause: {diagnosis.key} (diagnosis converged: {', '.join(diagnosis.supporters)})"


def _phase_lines(s: State) -> list[tuple[int, str]]:
    """(line, phase) from the header's phase on, one entry per transition."""
    first = s.doc.header.get("phase") or (s.template.first_phase if s.template else "")
    out = [(0, first)]
    out += [(m.line, m.target) for m in s.doc.engine_markers if m.kind == "phase-transition"]
    return out


def _phase_of(line: int, phase_at: list[tuple[int, str]]) -> str:
    phase = phase_at[0][1]
    for at, target in phase_at:
        if at < line:
            phase = target
    return phase
