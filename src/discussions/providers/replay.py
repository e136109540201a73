"""``replay:PATH``: answer from a recorded discussion instead of a model.

Each participant gets that participant's recorded answers from the file at ``PATH``, in file
order: its comments (without the engine's metadata line) and its passes. The n-th call for a
participant returns its n-th recorded answer. Strict: when the recording has no answer left
for a participant, the call fails (`ReplayMiss`); nothing ever falls back to a live model.

The position is kept per provider object, and the registry hands out one object per path for
its lifetime: one ``discussions run`` or ``discussions turn`` replays from the start.
A replay call costs nothing, so it reports zero tokens and zero cost.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from ..errors import ProviderFailed
from ..format import decode, parse_document
from .base import Completion, Provider, ProviderRequest
from .usage import Usage

PREFIX = "replay:"
NO_RESPONSE = '{"sentinel": "NO_RESPONSE"}'


class ReplayMiss(ProviderFailed):
    """The recording holds no (further) answer for a participant."""


@dataclass(slots=True)
class Recorded:
    line: int
    text: str


def _strip_meta(body: str) -> str:
    lines = body.split("\n")
    for i, raw in enumerate(lines[:8]):
        line = raw.strip()
        if line.startswith("<!--") and line.endswith("-->") and "provider:" in line[4:14]:
            return "\n".join(lines[:i] + lines[i + 1 :])
    return body


def recorded_answers(path: Path) -> dict[str, list[str]]:
    """``{author: [answer text, ...]}`` in file order; a pass reads as the NO_RESPONSE
    sentinel."""
    text, _ = decode(path.read_bytes())
    doc = parse_document(text)
    found: dict[str, list[Recorded]] = {}
    for c in doc.comments:
        found.setdefault(c.author.strip(), []).append(
            Recorded(c.line, _strip_meta(c.body).strip("\n"))
        )
    for m in doc.engine_markers:
        if m.kind == "pass":
            who = m.target.partition("|")[0].strip()  # the name; the call's usage follows
            found.setdefault(who, []).append(Recorded(m.line, NO_RESPONSE))
    return {a: [r.text for r in sorted(rs, key=lambda r: r.line)] for a, rs in found.items()}


class ReplayProvider(Provider):
    """Answers from a recorded discussion file, strictly in order."""

    def __init__(self, path: Path, name: str | None = None) -> None:
        self.path = path
        self.name = name or f"{PREFIX}{path}"
        self._answers: dict[str, list[str]] | None = None
        self._next: dict[str, int] = {}
        self._lock = threading.Lock()

    def _load(self) -> dict[str, list[str]]:
        if self._answers is None:
            try:
                self._answers = recorded_answers(self.path)
            except OSError as exc:
                raise ProviderFailed(
                    self.name, f"cannot read the recording: {exc.strerror or exc}"
                ) from None
        return self._answers

    def complete(self, request: ProviderRequest) -> str:
        return self.complete_with_usage(request).text

    def complete_with_usage(self, request: ProviderRequest) -> Completion:
        who = request.participant_name.strip()
        with self._lock:
            answers = self._load().get(who, [])
            index = self._next.get(who, 0)
            if index >= len(answers):
                raise ReplayMiss(
                    self.name,
                    f"no recorded answer #{index + 1} for {who or 'this participant'}",
                    f"{self.path} holds {len(answers)} answer(s) by {who!r}",
                )
            self._next[who] = index + 1
        return Completion(answers[index], Usage(0, 0, 0.0))
