"""Prompt tokens per call over long discussions, and what the answer path takes from real answers.

    python benchmarks/prompts.py               # 10 and 40 rounds, 3 participants
    python benchmarks/prompts.py --rounds 10

Two rows of figures, printed, never asserted:

* Prompt size per call (characters, and tokens by `providers.window.estimate_tokens`) in
  rounds 1, 10 and 40 of a discussion between 3 participants, against the target: a
  participant's prompt at round 10 within 1.5x of round 1. Two providers answer: ``ordinary``,
  a command that writes comments of plain prose (about 500 characters, a vote, no markers),
  and the built-in mock (whose every comment adds a question and often a concern, which the
  state of the discussion keeps, so its prompts grow with them by design).
* The answer-to-vote rate on the recorded answers of a real 135M model
  (``tests/fixtures/real-model``): of the answers to prompts that asked for a vote, how many
  the answer path reads a vote from; and the markers and passes it takes from them, with the
  prompt known (as the engine reads them) and without (as earlier releases did).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "tests" / "fixtures" / "real-model"
ANSWERER = textwrap.dedent(
    """
    import hashlib, json, sys
    prompt = sys.stdin.read()
    with open(sys.argv[1], "a", encoding="utf-8") as log:
        log.write(json.dumps(prompt) + "\\n")
    seed = hashlib.sha256(prompt.encode()).digest()
    sentences = [
        "The proposal reads well and the scope looks about right for a first version.",
        "I would keep the session handling simple and revisit it once we see real traffic.",
        "The migration path matters more to me than the choice of library here.",
        "We should write down how a user recovers an account before we build the forms.",
        "Rate limiting on the login endpoint is cheap to add now and costly to add later.",
        "I agree with the last comment on keeping the first release small.",
        "Tests for the failure paths would give me more confidence than another review.",
        "The error messages shown to users should not reveal whether an account exists.",
    ]
    text = " ".join(sentences[(seed[i] + i) % len(sentences)] for i in range(6))
    vote = "CHANGES" if "(@security)" in prompt else "READY"
    print(json.dumps({"comment": text, "vote": vote}))
    """
)


def estimate(text: str) -> int:
    try:
        from discussions.providers.window import estimate_tokens
    except ImportError:  # a release before the estimate: the same rule
        ascii_chars = len(text.encode("ascii", "ignore"))
        return -(-ascii_chars // 3) + len(text) - ascii_chars
    return estimate_tokens(text)


def setup(work: Path, log: Path, window: int | None = None) -> Path:
    """A project whose default provider is the `ordinary` answerer (with a context `window`
    when given); the discussion's path."""
    from discussions import Discussion

    script = work / "answer.py"
    script.write_text(ANSWERER, encoding="utf-8")
    home = Path(os.environ["DISCUSSIONS_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    command = f"{sys.executable} {script} {log}"
    declared = f"    context_window: {window}\n" if window else ""
    (home / "providers.yaml").write_text(
        f"providers:\n  - name: ordinary\n    command: {json.dumps(command)}\n{declared}", "utf-8"
    )
    (work / "discussions.yaml").write_text("providers:\n  default: ordinary\n", "utf-8")
    d = Discussion.create(
        "Add user authentication",
        context="Add login with email and password, sessions, and account recovery. "
        "Users today share one admin account; we want one account each before the beta.",
        path=work / "discussions" / "auth.md",
    )
    d.save()
    return d.path


def prompt_sizes(
    rounds: int, provider: str | None, window: int | None = None
) -> dict[int, list[str]]:
    """{round: prompts sent in it}, from a discussion of `rounds` rounds."""
    from discussions import Discussion, Runner

    work = Path(tempfile.mkdtemp(prefix="discussions-prompts-"))
    os.environ["DISCUSSIONS_HOME"] = str(work / "userdir")
    os.chdir(work)
    log = work / "prompts.log"
    path = setup(work, log, window)
    runner = Runner()
    seen: dict[int, list[str]] = {}
    for n in range(1, rounds + 1):
        d = Discussion.load(path)
        if provider == "mock":
            from discussions.engine.prompts import build_prompt

            seen[n] = [
                build_prompt(d, runner.workspace.participants.get(a))[0] for a in d.participants
            ]
        before = log.read_text("utf-8").count("\n") if log.exists() else 0
        runner.run_turn(d, provider=provider)
        if provider != "mock":
            lines = log.read_text("utf-8").splitlines()[before:]
            seen[n] = [json.loads(x) for x in lines]
    return seen


def growth(rounds: int) -> None:
    print(
        f"Prompt size per call, 3 participants, {rounds} rounds (target: round 10 <= 1.5x round 1)"
    )
    for label, provider, window in (
        ("ordinary", None, None),
        ("mock", "mock", None),
        ("2k window", None, 2048),
    ):
        seen = prompt_sizes(rounds, provider, window)
        row = []
        first = statistics.mean(estimate(p) for p in seen[1])
        for n in (1, 10, 40):
            if n in seen and seen[n]:
                chars = statistics.mean(len(p) for p in seen[n])
                tokens = statistics.mean(estimate(p) for p in seen[n])
                row.append(
                    f"round {n}: {chars:,.0f} chars, {tokens:,.0f} tokens ({tokens / first:.2f}x)"
                )
        print(f"  {label:9} " + " | ".join(row))
        if window:
            most = max(estimate(p) for prompts in seen.values() for p in prompts)
            print(f"  {'':9} largest prompt {most:,} tokens; the window leaves {_room(window):,}")


def _room(window: int) -> int:
    try:
        from discussions.providers.window import prompt_tokens
    except ImportError:
        return window
    return prompt_tokens(window)


def answers() -> None:
    from discussions.engine.responses import parse_response
    from discussions.syntax.markers import extract
    from discussions.syntax.render import render_comment

    try:
        from discussions.engine.echoes import prompt_echo
    except ImportError:
        prompt_echo = None
    rows = {}
    for label, known in (("prompt known", True), ("prompt unknown", False)):
        asked = votes = passes = markers = 0
        for a in sorted(FIXTURES.glob("*.answer.txt")):
            prompt = a.with_name(a.name.replace(".answer.", ".prompt.")).read_text("utf-8")
            text = a.read_text("utf-8")
            if known and prompt_echo is not None:
                r = parse_response(text, prompt_echo(prompt))
            else:
                r = parse_response(text)
            wanted = "This phase collects votes" in prompt
            asked += wanted
            votes += wanted and r.vote is not None
            passes += r.no_response
            block = render_comment("AI-X", r.comment, vote=r.vote)
            markers += len(extract(block.split("\n", 1)[1], 2).markers)
        rows[label] = (asked, votes, passes, markers)
    print("Recorded answers of a real 135M model (28):")
    for label, (asked, votes, passes, markers) in rows.items():
        print(
            f"  {label:15} votes {votes} of {asked} asked ({votes / max(asked, 1):.0%}); "
            f"passes {passes}; markers {markers}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    growth(args.rounds)
    answers()


if __name__ == "__main__":
    main()
