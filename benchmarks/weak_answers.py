"""Weak answers of a real small model: how many of the recorded answers carry a vote, how many
the engine would follow up (one call each), and how many the answer cap cuts.

Reads the prompts and answers SmolLM2-135M-Instruct gave (`NN.prompt.txt`, `NN.answer.txt`,
byte for byte) from the folder named on the command line, else from the one test answer in
tests/fixtures/real-model. Prints one row per figure; nothing is timed.

    python benchmarks/weak_answers.py /path/to/real-model
"""

from __future__ import annotations

import sys
from pathlib import Path

from discussions.engine.turn.followup import DEFAULT_MAX_ANSWER_CHARS, cap_answer
from discussions.syntax.answers import parse_response

_VOTE_ASKED = "This phase collects votes"


def main() -> None:
    folder = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else (Path(__file__).parent.parent / "tests" / "fixtures" / "real-model")
    )
    answers = sorted(folder.glob("*.answer.txt"))
    asked = votes = follow_ups = cut = passes = 0
    lengths: list[int] = []
    for path in answers:
        text = path.read_text(encoding="utf-8")
        prompt = path.with_name(path.name.replace(".answer.", ".prompt."))
        wants = prompt.exists() and _VOTE_ASKED in prompt.read_text(encoding="utf-8")
        capped, original = cap_answer(text, DEFAULT_MAX_ANSWER_CHARS)
        response = parse_response(capped)
        lengths.append(len(text))
        cut += original is not None
        passes += response.no_response
        if wants:
            asked += 1
            votes += response.vote is not None
            follow_ups += response.vote is None and not response.no_response
    print(f"answers read                    {len(answers)}")
    print(f"asked for a vote                {asked}")
    print(f"carrying a vote                 {votes} ({_share(votes, asked)})")
    print(f"followed up (one call each)     {follow_ups}")
    print(f"read as a pass                  {passes}")
    print(f"cut at {DEFAULT_MAX_ANSWER_CHARS:,} characters        {cut}")
    if lengths:
        print(f"answer length, characters       {min(lengths):,} to {max(lengths):,}")


def _share(n: int, total: int) -> str:
    return f"{100 * n / total:.0f}%" if total else "-"


if __name__ == "__main__":
    main()
