"""The council: what the engine does with an open motion (docs/council.md, "Motions").

`handle_motion` runs after a turn (and so after every round of `discussions run`):

1. It finds the latest open motion (`Discussion.motions`, derived by `motions.rule_motions`).
2. Not seconded yet: the other voting participants are asked only whether they second it (a
   callout asking for ``SECOND: yes|no``). Nobody seconds: a ``MOTION-RESULT: lapsed`` block is
   recorded and the discussion resumes.
3. Seconded: every voting participant who has no ballot yet is asked for one, in parallel, each
   prompt built from one snapshot of the file. Until the result is recorded, no prompt shows a
   comment that carries another's ballot, reasons included (`visibility.sealed_for`). The
   ballots are appended together, in one locked append, once all are in.
4. When every required voter has a ballot (people named in ``consensus.human_required`` vote
   with ``BALLOT:`` in the file or ``discussions comment --ballot``), the count is made in code
   (`motions.tally`, with the phase's ``majority_threshold`` and ``abstain_counts_as_no``) and
   recorded as ``<!-- MOTION-RESULT: passed|failed | yes: a | no: b | abstain: c | line: n -->``
   with a visible line. A passed motion is a decision; in a phase whose ``auto_trigger`` is
   ``motion_passed`` it moves the discussion to the next phase.

Everything is written into the file; the rules read it back, so a motion written by hand works
the same way (`record_results` writes the result a hand-written ballot completed).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

from ...derive.motions import Motion, tally
from ...derive.signatures import render_signed
from ...derive.speakers import council_seat
from ...errors import OverBudget
from ...model import storage
from ...providers.command import terminate_all
from ...syntax import clock
from ...syntax.answers import ONLY_ECHO, Echo, parse_response
from ...syntax.render import neutralise
from ..prompt.prompts import build_prompt
from ..turn.failures import ran
from ..turn.followup import answer_echo
from ..turn.outcomes import Attempt, MotionOutcome, ParticipantOutcome, clean_meta, usage_meta
from ..turn.posting import head_meta_at

if TYPE_CHECKING:
    from pathlib import Path

    from ...model.discussion import Discussion
    from ...settings.participants import Participant
    from ..turn.asking import Asker
    from ..turn.steps import AfterAnswers

_SECOND_CALLOUT = (
    '{by} moved a motion (line {line}): "{text}"\n\n'
    "The discussion is paused for seconding. Answer only whether you second it: a second says "
    "the motion should be put to a vote, not how you will vote. Do not discuss the motion. "
    'Respond with JSON only: {{"comment": "", "second": "yes" | "no"}}.'
)
_BALLOT_CALLOUT = (
    'The motion of line {line} by {by}, "{text}", was seconded by {seconders} and is put to a '
    "vote. Cast your ballot. Ballots are sealed: nobody sees another's ballot until all are in. "
    'Respond with JSON only: {{"comment": "one or two sentences of reasons", '
    '"ballot": "YES" | "NO" | "ABSTAIN"}}.'
)


def _open_motion(d: Discussion) -> Motion | None:
    """The latest motion still open, if any."""
    for motion in reversed(d.motions):
        if motion.result == "open":
            return motion
    return None


def motion_step(after: AfterAnswers) -> None:
    """The council's after-answer step: an open motion handled (`handle_motion`) once
    something was said, when the turn handles motions; seconds or ballots the budget cannot
    cover stop the turn."""
    if not (after.council and after.heard):
        return
    d = after.discussion
    try:
        after.result.motion = handle_motion(after.asker, d, provider=after.provider)
    except OverBudget as exc:
        if after.result.budget_stop is None:  # else the turn's stop says it already
            after.budget_stop(str(exc))
    d.reload()


def handle_motion(
    runner: Asker, d: Discussion, *, provider: str | None = None
) -> MotionOutcome | None:
    """Second, ballot on and count the latest open motion (see the module docstring)."""
    d.reload()
    if "MOTION" not in d.text:
        return None  # no motion anywhere (the common case): no parse needed
    settled = record_results(d)
    motion = _open_motion(d)
    if motion is None:
        return _outcome(d, settled[-1]) if settled else None
    voters = voting_participants(d)
    outcome = MotionOutcome(motion.line, motion.text, "waiting")
    if not motion.seconded_by:
        asked = [p for p in voters if p.name != motion.by and p.name not in motion.declined_by]
        callout = _SECOND_CALLOUT.format(by=motion.by, line=motion.line, text=motion.text)
        outcome.asked += collect(runner, d, asked, callout, provider)
        motion = _find(d, motion.line)
        others = [n for n in _required_people(d) if n not in (motion.by, *motion.declined_by)]
        if motion.result == "open" and not motion.seconded_by and (asked or not others):
            _record(d, motion.line, render_result(motion.line, "lapsed"))
            motion = _find(d, motion.line)
    if motion.result == "open" and motion.seconded_by:
        due = [p for p in voters if p.name not in motion.ballots]
        callout = _BALLOT_CALLOUT.format(
            by=motion.by,
            line=motion.line,
            text=motion.text,
            seconders=", ".join(motion.seconded_by),
        )
        outcome.asked += collect(runner, d, due, callout, provider)
        motion = _find(d, motion.line)
        if motion.result == "open":
            people = _required_people(d)
            if not any(n not in motion.ballots for n in people):
                # Every person has voted; a participant whose providers all failed has no
                # ballot: the vote is closed with the ballots that are in.
                _close(d, motion)
            motion = _find(d, motion.line)
    if motion.result != "open" and not motion.recorded:
        _close(d, motion)
        motion = _find(d, motion.line)
    return _outcome(d, motion, outcome)


def _outcome(d: Discussion, motion: Motion, outcome: MotionOutcome | None = None) -> MotionOutcome:
    """`outcome` (or a new one) filled in from `motion`; a passed motion may move the phase."""
    outcome = outcome or MotionOutcome(motion.line, motion.text, "waiting")
    outcome.stage = motion.result if motion.result != "open" else "waiting"
    outcome.seconded_by = list(motion.seconded_by)
    outcome.ballots = dict(motion.ballots)
    outcome.counts = dict(motion.counts)
    if motion.result == "open":
        outcome.waiting_for = [n for n in _required(d) if n not in motion.ballots]
    if motion.result == "passed" and outcome.advanced_to is None:
        outcome.advanced_to = _advance(d, motion)
    return outcome


def record_results(d: Discussion) -> list[Motion]:
    """Record the results that the markers alone decided (a hand-written ballot completed a
    vote, or every other voter declined to second) and nobody recorded yet; a passed one may
    move the phase on (``auto_trigger: motion_passed``). Returns them."""
    d.reload()
    done = [m for m in d.motions if m.result != "open" and not m.recorded]
    for motion in done:
        _close(d, motion)
        if motion.result == "passed":
            _advance(d, motion)
    if done:
        d.reload()
    return done


def render_result(line: int, result: str, counts: dict[str, int] | None = None) -> str:
    """The MOTION-RESULT block: the engine marker and a line a reader sees."""
    if result == "lapsed":
        return (
            f"<!-- MOTION-RESULT: lapsed | line: {line} -->\n\n"
            f"*Motion of line {line} lapsed: nobody seconded it.*\n"
        )
    c = counts or {}
    yes, no, abstain = c.get("YES", 0), c.get("NO", 0), c.get("ABSTAIN", 0)
    return (
        f"<!-- MOTION-RESULT: {result} | yes: {yes} | no: {no} | abstain: {abstain}"
        f" | line: {line} -->\n\n"
        f"*Motion of line {line} {result}: {yes} yes, {no} no, {abstain} abstaining.*\n"
    )


# --------------------------------------------------------------------------- helpers


def voting_participants(d: Discussion) -> list[Participant]:
    """The discussion's participants who vote (the council)."""
    registry = d.workspace.participants
    found = [registry.get(a) for a in d.participants if a in registry]
    return [p for p in found if p.votes]


def _required_people(d: Discussion) -> list[str]:
    required = d.workspace.config.section("consensus").get("human_required")
    return [" ".join(str(n).split()) for n in required] if isinstance(required, list) else []


def _required(d: Discussion) -> list[str]:
    names = [p.name for p in voting_participants(d)] + _required_people(d)
    return list(dict.fromkeys(names))


def off_council_note(d: Discussion, author: str) -> str:
    """What to tell `author`, who seconds or ballots, when they are not on the council
    (their second or ballot is recorded and not counted); empty when they are on it."""
    if council_seat(author, _required(d)) is not None:
        return ""
    return (
        f"Note: {author} is not on this discussion's council, so the second or ballot is "
        "recorded but not counted. The council is the voting participants and the people "
        "listed in consensus.human_required (discussions.yaml)."
    )


def _find(d: Discussion, line: int) -> Motion:
    d.reload()
    for motion in d.motions:
        if motion.line == line:
            return motion
    raise LookupError(f"no motion at line {line}")  # pragma: no cover - the file only grows


def _close(d: Discussion, motion: Motion) -> None:
    """Count `motion`'s ballots and record the result."""
    info = d.template.phase(motion.phase) if d.template else None
    threshold = info.majority_threshold if info else 0.5
    as_no = info.abstain_counts_as_no if info else False
    if motion.result == "lapsed":
        _record(d, motion.line, render_result(motion.line, "lapsed"))
        return
    result, counts = tally(motion.ballots, threshold, as_no)
    _record(d, motion.line, render_result(motion.line, result, counts))


def _record(d: Discussion, line: int, block: str) -> None:
    """Append `block` under the lock unless the motion was closed meanwhile."""

    def change(now: Discussion) -> None:
        if any(m.line == line and m.recorded for m in now.motions):
            return
        now.add_block(block)

    d.transact(change)


def _advance(d: Discussion, motion: Motion) -> str | None:
    info = d.phase_info
    if info is None or info.auto_trigger != "motion_passed" or info.next is None:
        return None
    if d.phase != motion.phase:
        return None
    d.advance(info.next, strict=False)
    d.save()
    return info.next


def collect(
    runner: Asker,
    d: Discussion,
    asked: Sequence[Participant],
    callout: str,
    provider: str | None,
    *,
    vote: bool = False,
) -> list[ParticipantOutcome]:
    """Ask `asked` in parallel from one snapshot of `d` (in which the prompts show no other
    ballot on an undecided motion, see `visibility.sealed_for`); append every answer in one
    locked append once all are in. With `vote`, an answer's ``VOTE:`` is written too."""
    if not asked:
        return []
    refusal = runner.budget_refusal(d, asked, provider)
    if refusal is not None:
        raise OverBudget(refusal)  # the turn records the stop
    prompts = [
        (p, build_prompt(d, p, callout, window=runner.window_for(p, provider))[0]) for p in asked
    ]
    with ThreadPoolExecutor(max_workers=len(prompts)) as pool:
        futures = [
            pool.submit(
                _compose, runner, p, prompt, answer_echo(prompt, d, p.name), d.path, provider, vote
            )
            for p, prompt in prompts
        ]
        try:
            left = set(futures)
            while left:  # short waits, so Ctrl-C reaches this thread
                _, left = wait(left, timeout=0.2)
            answers = [f.result() for f in futures]
        except KeyboardInterrupt:
            # Stop the providers before the pool waits for its workers: nothing of this
            # collection is written (sealed ballots are appended all together or not at all).
            for f in futures:
                f.cancel()
            terminate_all()
            raise
    blocks = [block for _, block in answers if block]
    if blocks:
        storage.append(d.path, blocks, root=d.workspace.config.base_dir)
    d.reload()
    return [o for o, _ in answers]


def _compose(
    runner: Asker,
    participant: Participant,
    prompt: str,
    echo: Echo,
    file: Path,
    provider: str | None,
    vote: bool = False,
) -> tuple[ParticipantOutcome, str | None]:
    """Ask one participant; return the outcome and the comment block to append to `file`
    (None when there is nothing to write). `echo`: what the prompt attributes to whom."""
    outcome = ParticipantOutcome(participant.alias, participant.name)
    started = time.monotonic()
    request = runner.request_for(participant, prompt, vote, file)
    text = runner.ask(participant, request, provider, outcome)
    outcome.duration = time.monotonic() - started
    if text is None:
        return outcome, None
    response = parse_response(text, echo)
    outcome.notes.extend(response.notes)
    if response.only_echo:  # an echo is never a pass: the model said nothing
        outcome.attempts.append(Attempt(outcome.provider or "?", ONLY_ECHO))
        return outcome, None
    if response.no_response or not response.comment.strip():
        outcome.status = "no_response"
        return outcome, None
    comment = neutralise(response.comment)
    cast = response.vote if vote else None
    outcome.vote = cast
    meta = [f"provider: {outcome.provider}", f"duration: {outcome.duration:.1f}s"]
    if outcome.attempts:
        failed = [clean_meta(f"{a.provider} ({a.reason})") for a in outcome.attempts if ran(a)]
        meta += ["failed: " + "; ".join(failed)] if failed else []  # calls, not missing CLIs
    meta.extend(usage_meta(outcome)[1:])  # what the call reported: counted by the budget
    meta.extend(head_meta_at(file, comment))  # what its citations are read at
    meta.append(f"at: {clock.now_stamp()}")
    outcome.status = "posted"
    return outcome, render_signed(participant.name, comment, meta, cast)
