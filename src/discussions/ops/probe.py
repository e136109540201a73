"""A provider checked with a prompt as large as the configuration will send, and whether it fits.

``providers test --deep`` used to send a 30-token question; a model whose window is smaller
than every real prompt passed it. `probe_prompt` builds a real prompt instead: a sample
discussion (the default template, ordinary comments by two people) long enough that its prompt
is cut to the configured budget, as a long discussion's is, for the workspace's first AI
participant. `window_fit` then says whether that prompt fits the provider's context window:
with the token count the provider reported when there is one, else an estimate that errs on
the high side (`estimate_tokens`).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..engine.prompt.prompts import build_prompt, max_chars_for
from ..errors import DiscussionsError
from ..model.discussion import Discussion
from ..providers.window import estimate_tokens
from ..settings.participants import Participant
from ..settings.workspace import Workspace

_SAMPLE = (
    "Comment {n}: I read the proposal again. Rolling it out behind a flag keeps the risk small, "
    "but we still need the error rate of the old path as a baseline, and someone has to own the "
    "rollback. Q: who watches the dashboards during the first week? I would start with one "
    "region, widen it when the numbers hold for two days, and write down what makes us stop. "
    "The migration script should be idempotent so a retry cannot double-apply anything.\n"
)


@dataclass(slots=True)
class ProbePrompt:
    """The prompt a deep test sends, and what it is."""

    text: str
    participant: str
    """The alias it was built for."""
    budget_chars: int
    """The configured budget the prompt was cut to."""

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def estimated_tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass(slots=True)
class WindowFit:
    """Whether a prompt fits a context window."""

    tokens: int
    counted: bool
    """`tokens` is the provider's own count (else an estimate)."""
    window: int | None
    """The provider's context window; None when unknown."""
    answer_room: int = 0
    """Tokens the answer may take (the provider's ``max_tokens``); servers count them too."""

    @property
    def fits(self) -> bool | None:
        return None if self.window is None else self.tokens + self.answer_room <= self.window

    def describe(self) -> str:
        how = "counted by the provider" if self.counted else "estimated"
        head = f"{self.tokens:,} prompt tokens ({how})"
        if self.answer_room:
            head += f" and {self.answer_room:,} for the answer"
        if self.window is None:
            return f"{head}; context window unknown (set context_window: in providers.yaml)"
        if self.fits:
            return f"{head} fit the context window of {self.window:,}"
        return f"{head} do not fit the context window of {self.window:,}"


def window_fit(
    probe: ProbePrompt, window: int | None, counted: int | None, answer_room: int = 0
) -> WindowFit:
    """How `probe` (and `answer_room` tokens for the answer) fits `window`, by the provider's
    `counted` input tokens when known."""
    if counted is not None:
        return WindowFit(counted, True, window, answer_room)
    return WindowFit(probe.estimated_tokens, False, window, answer_room)


def _participant(ws: Workspace, d: Discussion) -> Participant:
    for alias in d.participants:
        try:
            return ws.participants.get(alias)
        except DiscussionsError:
            continue
    for participant in ws.participants:
        return participant
    raise DiscussionsError("no AI participant is configured; add one to build a test prompt")


def probe_prompt(ws: Workspace, max_chars: int | None = None) -> ProbePrompt:
    """The prompt of a long sample discussion, cut to `max_chars` (default: the configured
    budget)."""
    with tempfile.TemporaryDirectory(prefix="discussions-probe-") as tmp:
        path = Path(tmp) / "provider-check.md"
        d = Discussion.create("Provider check", workspace=ws, path=path)
        budget = max_chars or max_chars_for(d)
        for n in range(budget // len(_SAMPLE) + 8):
            d.add_comment("Alice" if n % 2 else "Bob", _SAMPLE.format(n=n + 1))
        d.save()
        d = Discussion.load(path, ws)
        participant = _participant(ws, d)
        text, _ctx = build_prompt(d, participant, max_chars=budget)
    return ProbePrompt(text, participant.alias, budget)
