"""The built-in mock provider: deterministic, persona-aware, instant, and plainly a mock.

Same prompt and participant in, same answer out. It speaks from the participant's role and
concerns, asks one of their questions with ``Q:``, and votes only when the phase asks for a vote.
Every answer starts with a line saying it is a mock, so nobody mistakes it for a model.
"""

from __future__ import annotations

import hashlib
import json

from .base import Provider, ProviderRequest

MOCK_BANNER = "*[mock response: written by the built-in mock provider, not by an AI model]*"


class MockProvider(Provider):
    name = "mock"
    is_mock = True

    def complete(self, request: ProviderRequest) -> str:
        digest = hashlib.sha256(
            (request.participant_alias + "\0" + request.prompt).encode("utf-8")
        ).digest()
        role = request.participant_role or "participant"
        who = request.participant_name or "A participant"
        concerns = request.concerns or ["What problem are we solving, and for whom?"]
        first = concerns[digest[0] % len(concerns)]
        second = concerns[digest[1] % len(concerns)]
        lines = [
            MOCK_BANNER,
            "",
            f"{who} here, reading this as the {role}.",
            "",
            f"The question I would want answered before going further: {first}",
        ]
        if second != first:
            lines += ["", f"I would also check: {second}"]
        lines += ["", f"Q: {first}"]
        vote: str | None = None
        if request.wants_vote:
            vote = ("READY", "READY", "CHANGES")[digest[2] % 3]
            lines += ["", f"My vote is {vote} (a mock vote, chosen deterministically)."]
        return json.dumps({"comment": "\n".join(lines), "vote": vote})
