"""``replay:PATH``: answer from a recorded discussion instead of a model.

Each participant gets that participant's recorded answers from the file at ``PATH``, in file
order: its comments (without the engine's metadata line) and its passes. Strict: when the
recording has no answer left for a participant, the call fails (`ReplayMiss`); nothing ever
falls back to a live model.

The position comes from the discussion being answered (`ProviderRequest.file`): a participant
whose answers there include n from this recording (comments whose record names it as the
provider, passes that name it) gets its answer n + 1. So separate commands continue where the
last one stopped, answers from other providers (or people) do not move the position, and a
call past the end fails every time. A request without a file (a text that is not written into
a discussion) counts per provider object instead: its first call gets the first answer.
A replay call costs nothing, so it reports zero tokens and zero cost.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from ..derive.motions import pass_fields
from ..derive.rules import engine_meta
from ..derive.signatures import own_text
from ..errors import ProviderFailed
from ..syntax.parse import parse_document
from ..syntax.text import decode
from .base import REPLAY_PREFIX, Completion, Provider, ProviderRequest
from .usage import Usage

PREFIX = REPLAY_PREFIX
NO_RESPONSE = '{"sentinel": "NO_RESPONSE"}'


class ReplayMiss(ProviderFailed):
    """The recording holds no (further) answer for a participant."""


@dataclass(slots=True)
class Answer:
    """One answer of a participant in a discussion file."""

    line: int
    author: str
    text: str
    """The comment's own text (no metadata line, no engine blocks written after it), or
    `NO_RESPONSE` for a pass."""
    provider: str
    """The provider the file records for it ("" when none is recorded)."""


def _file_answers(path: Path) -> list[Answer]:
    """Every comment and pass in the discussion at `path`, in file order."""
    text, _ = decode(path.read_bytes())
    doc = parse_document(text)
    marker_lines = sorted(m.line for m in doc.engine_markers)
    found = [
        Answer(
            c.line,
            c.author.strip(),
            own_text(c, marker_lines).strip("\n"),
            engine_meta(c.body).get("provider", ""),
        )
        for c in doc.comments
    ]
    for m in doc.engine_markers:
        if m.kind == "pass":
            who, provider = pass_fields(m.target)
            found.append(Answer(m.line, who, NO_RESPONSE, provider))
    return sorted(found, key=lambda a: a.line)


def _recorded_answers(path: Path) -> dict[str, list[str]]:
    """``{author: [answer text, ...]}`` in file order; a pass reads as the NO_RESPONSE
    sentinel."""
    answers: dict[str, list[str]] = {}
    for a in _file_answers(path):
        answers.setdefault(a.author, []).append(a.text)
    return answers


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


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
            self._answers = _recorded_answers(self.path)
        return self._answers

    def names_this_recording(self, provider: str) -> bool:
        """Whether `provider`, as a file records it, is this recording (however its path was
        spelled: ``replay:src.md`` and ``replay:./src.md`` are one recording)."""
        if not provider.startswith(PREFIX):
            return False
        given = Path(os.path.expanduser(provider[len(PREFIX) :]))
        return provider == self.name or _same_file(given, self.path)

    def replayed(self, file: Path, who: str) -> int:
        """How many of `who`'s answers in `file` came from this recording."""
        mine: dict[str, bool] = {}  # each spelling of a provider looked at once
        count = 0
        for a in _file_answers(file):
            if a.author == who:
                if a.provider not in mine:
                    mine[a.provider] = self.names_this_recording(a.provider)
                count += mine[a.provider]
        return count

    def complete(self, request: ProviderRequest) -> str:
        return self.complete_with_usage(request).text

    def complete_with_usage(self, request: ProviderRequest) -> Completion:
        who = request.participant_name.strip()
        try:
            with self._lock:
                answers = self._load().get(who, [])
            # Read outside the lock: participants asked in parallel do not wait for each other.
            index = self._position(request, who)
        except OSError as exc:
            raise ProviderFailed(
                self.name, f"cannot read {exc.filename or 'a file'}: {exc.strerror or exc}"
            ) from None
        if index >= len(answers):
            into = request.file
            where = f"; {index} already replayed into {into.name}" if into else ""
            raise ReplayMiss(
                self.name,
                f"no recorded answer #{index + 1} for {who or 'this participant'}",
                f"{self.path} holds {len(answers)} answer(s) by {who!r}{where}",
            )
        if request.file is None:
            with self._lock:
                self._next[who] = index + 1
        return Completion(answers[index], Usage(0, 0, 0.0))

    def _position(self, request: ProviderRequest, who: str) -> int:
        """The index of `who`'s next recorded answer (see the module's docstring). Without a
        file, the count of this object's answers to `who`."""
        if request.file is None:
            with self._lock:
                return self._next.get(who, 0)
        if _same_file(request.file, self.path):
            raise ProviderFailed(
                self.name,
                "the recording is the discussion being answered",
                "replay into another discussion file",
            )
        return self.replayed(request.file, who)
