"""Recorded answers of a real small model, through the openai-compatible provider.

``tests/fixtures/real-model-2`` holds what SmolLM2-135M-Instruct, served by llama-cpp-python's
server, was sent and answered in real discussions (see its README). What the answer path takes
from them must be what the model wrote: a vote only where the model wrote one, never the
prompt's own format lines echoed back as a decision.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from discussions.syntax.answers import parse_response

FOLDER = Path(__file__).parent.parent / "fixtures" / "real-model-2"
CALLS = sorted(p.name[:2] for p in FOLDER.glob("[0-9][0-9].json"))
ANSWERED = [n for n in CALLS if (FOLDER / f"{n}.answer.txt").stat().st_size]
WROTE_VOTE = re.compile(
    r'VOTE:\s*(READY|CHANGES|REJECT)|"vote"\s*:\s*"(READY|CHANGES|REJECT)"', re.I
)


def test_the_fixtures_are_there_and_byte_exact() -> None:
    assert len(CALLS) >= 6
    for n in CALLS:
        meta = json.loads((FOLDER / f"{n}.json").read_text(encoding="utf-8"))
        answer = (FOLDER / f"{n}.answer.txt").read_bytes()
        assert (FOLDER / f"{n}.prompt.txt").read_bytes()
        if meta["status"] == 200:
            assert answer and meta["usage"]["prompt_tokens"] > 0
        else:
            assert answer == b"" and "maximum context length" in meta["error"]


@pytest.mark.parametrize("n", ANSWERED)
def test_what_is_taken_from_an_answer_is_what_the_model_wrote(n: str) -> None:
    answer = (FOLDER / f"{n}.answer.txt").read_text(encoding="utf-8")
    response = parse_response(answer)
    assert response.comment.strip() or response.no_response
    if response.vote is not None:
        written = {(a or b).upper() for a, b in WROTE_VOTE.findall(answer)}
        assert response.vote in written
