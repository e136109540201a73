"""Prompt tokens per call over long discussions, and what the answer path takes from real answers.

    python benchmarks/prompts.py               # 10 and 40 rounds, 3 participants
    python benchmarks/prompts.py --rounds 10
    python benchmarks/prompts.py --shape       # the instruction share only

Three rows of figures, printed, never asserted:

* The instruction share of a prompt: the characters outside the discussion it shows (persona,
  phase, task, format, how to ask for evidence) over the whole, for the three participants
  of a fresh discussion (no comment yet) and after three rounds, with no window and with a
  2,048-token window (a compact prompt, where the release has one); and over the prompts a
  release actually sent to a real 135M model (``tests/fixtures/real-model``).
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
            from discussions.engine.prompt.prompts import build_prompt

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
    from discussions.syntax.answers import parse_response
    from discussions.syntax.markers import extract
    from discussions.syntax.render import render_comment

    try:
        from discussions.syntax.answers import prompt_echo
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


def instruction_share(prompt: str) -> tuple[int, float]:
    """(characters outside the discussion shown, their share of `prompt`)."""
    if "<discussion>" not in prompt:
        return len(prompt), 1.0
    inside = prompt.split("<discussion>", 1)[1].split("</discussion>", 1)[0]
    outside = len(prompt) - len(inside)
    return outside, outside / max(len(prompt), 1)


def _share_row(label: str, prompts: list[str]) -> None:
    figures = [instruction_share(p) for p in prompts]
    chars = statistics.mean(len(p) for p in prompts)
    outside = statistics.mean(f[0] for f in figures)
    share = statistics.mean(f[1] for f in figures)
    print(f"  {label:32} {chars:7,.0f} chars, {outside:6,.0f} instructions ({share:.0%})")


def shape() -> None:
    from discussions import Discussion, Runner
    from discussions.engine.prompt.prompts import build_prompt

    print("Instruction share (characters outside the discussion shown, of the prompt)")
    work = Path(tempfile.mkdtemp(prefix="discussions-shape-"))
    os.environ["DISCUSSIONS_HOME"] = str(work / "userdir")
    os.chdir(work)
    path = setup(work, work / "prompts.log")
    runner = Runner()
    for rounds in (0, 3):
        for _ in range(rounds):
            runner.run_turn(Discussion.load(path))
        d = Discussion.load(path)
        people = [d.workspace.participants.get(a) for a in d.participants]
        when = "fresh" if not rounds else f"after {rounds} rounds"
        for label, window in (("no window", None), ("2,048-token window", 2048)):
            prompts = [build_prompt(d, p, window=window)[0] for p in people]
            _share_row(f"{when}, {label}", prompts)
    sent = [p.read_text("utf-8") for p in sorted(FIXTURES.glob("*.prompt.txt"))]
    _share_row("sent by release 0.2 (28 prompts)", [p for p in sent if "<discussion>" in p])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--shape", action="store_true", help="the instruction share only")
    args = parser.parse_args()
    shape()
    if args.shape:
        return
    growth(args.rounds)
    answers()


if __name__ == "__main__":
    main()
