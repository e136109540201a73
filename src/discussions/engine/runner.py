"""One turn: pick participants, build prompts, call providers, append answers, apply rules.

* Parallel by default: every participant sees the same snapshot of the file, and the turn takes
  about as long as the slowest provider. ``sequential=True`` lets each see the answers before it.
* Each answer is appended as soon as it arrives, under the file lock, so an interrupted turn
  keeps what finished and a human comment written meanwhile is kept.
* Fallback chain per participant: ``--provider`` if given (alone), else the participant's
  ``provider_hint``, ``providers.default``, ``providers.fallback``. When every provider in the
  chain is simply not installed, the built-in mock answers and the record says so.
* The record: each appended comment carries
  ``<!-- provider: ... | duration: ... | failed: ... -->``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..derive.rules import body_digest
from ..errors import DiscussionsError, OverBudget, ProviderError
from ..model import storage
from ..model.discussion import Discussion
from ..model.usage import (
    Budget,
    configured_budget,
    discussion_usage,
    estimate_call,
    render_budget_stop,
)
from ..providers.base import ProviderRequest, complete_with_usage
from ..providers.command import terminate_all
from ..providers.registry import ProviderRegistry, missing_cli_note, provider_chain
from ..providers.usage import UNKNOWN
from ..settings.participants import Participant
from ..settings.workspace import Workspace
from ..syntax import clock
from ..syntax.markers import extract
from ..syntax.render import neutralise, render_comment
from . import followup, phases
from .failures import failed_meta, ran, record_failure
from .outcomes import (
    Attempt,
    ParticipantOutcome,
    TurnEvent,
    TurnResult,
    clean_meta,
    render_pass,
    usage_meta,
)
from .prompts import build_prompt
from .responses import Response, parse_response
from .streamevents import stream_reporter
from .turns import select_participants

if TYPE_CHECKING:
    pass


class Runner:
    """Runs turns. `on_event` is called (from worker threads) as participants progress."""

    def __init__(
        self,
        workspace: Workspace | None = None,
        *,
        providers: ProviderRegistry | None = None,
        timeout: float | None = None,
        on_event: Callable[[TurnEvent], None] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self._workspace = workspace
        self.budget = budget
        """Limits in place of the configured ``budget:`` (None: the configured one)."""
        self._providers = providers
        self.timeout = timeout
        self.on_event = on_event
        self._emit_lock = threading.Lock()

    @property
    def workspace(self) -> Workspace:
        if self._workspace is None:
            self._workspace = Workspace.discover()
        return self._workspace

    @property
    def providers(self) -> ProviderRegistry:
        if self._providers is None:
            self._providers = ProviderRegistry.load(self.workspace.config.base_dir)
        return self._providers

    def _emit(self, event: TurnEvent) -> None:
        if self.on_event is not None:
            with self._emit_lock:
                self.on_event(event)

    def provider_chain(self, participant: Participant, forced: str | None = None) -> list[str]:
        """Provider names to try for `participant`, in order (see
        `providers.registry.provider_chain`: hint, default, fallbacks, then installed CLIs)."""
        config = self.workspace.config
        return provider_chain(
            self.providers,
            hint=participant.provider_hint,
            default=config.default_provider,
            fallbacks=config.fallback_providers,
            forced=forced,
            detect=bool(config.section("providers").get("detect", True)),
        )

    # -- one participant ------------------------------------------------------------------

    def request_for(
        self, participant: Participant, prompt: str, wants_vote: bool, file: Path | None = None
    ) -> ProviderRequest:
        """What `participant` is asked; `file` is the discussion its answer is appended to."""
        return ProviderRequest(
            prompt=prompt,
            timeout=self.timeout or self.workspace.config.provider_timeout,
            timeout_explicit=self.timeout is not None,
            participant_name=participant.name,
            participant_alias=participant.alias,
            participant_role=participant.role,
            concerns=list(participant.concerns),
            wants_vote=wants_vote,
            file=file,
            max_answer_chars=followup.max_answer_chars(
                self.workspace.config.section("providers")
            ),
        )

    def ask(
        self,
        participant: Participant,
        request: ProviderRequest,
        forced: str | None,
        outcome: ParticipantOutcome,
    ) -> str | None:
        """Walk the provider chain; record failures in `outcome`. The mock answers only when
        nothing in the chain is installed (and no provider was forced)."""
        mock_allowed = not forced and self.workspace.config.section("providers").get(
            "mock_fallback", True
        )
        chain = self.provider_chain(participant, forced)
        # When nothing in the chain is installed the mock will answer: the chain's instant
        # "not installed" failures are then held back (the mock's start event carries one note
        # for them), so no display repeats them for every participant.
        held: list[TurnEvent] | None = None
        if mock_allowed and all(self.providers.status(n) in ("missing", "unknown") for n in chain):
            held = []
        emit = self._emit if held is None else held.append
        for index, name in enumerate(chain):
            emit(TurnEvent("start", participant.alias, participant.name, name))
            request.on_output = self._streamer(participant, name)
            try:
                completion = complete_with_usage(self.providers.get(name), request)
            except ProviderError as exc:
                outcome.attempts.append(Attempt(name, exc.reason, exc.detail))
                emit(
                    TurnEvent(
                        "attempt_failed",
                        participant.alias,
                        participant.name,
                        name,
                        str(exc),
                        remaining=len(chain) - index - 1,
                    )
                )
                continue
            for event in held or ():  # installed after all: nothing to hide
                self._emit(event)
            outcome.provider = name
            outcome.stand_in = name == "mock" and any(ran(a) for a in outcome.attempts)
            outcome.usage = completion.usage
            outcome.truncated = completion.stopped
            return completion.text
        if mock_allowed and all(
            a.reason.startswith("not installed") or a.reason == "no provider of that name"
            for a in outcome.attempts
        ):
            note = missing_cli_note(self.providers, [a.provider for a in outcome.attempts])
            self._emit(TurnEvent("start", participant.alias, participant.name, "mock", note))
            request.on_output = self._streamer(participant, "mock")
            outcome.provider = "mock"
            outcome.mock_fallback = True
            return self.providers.get("mock").complete(request)
        for event in held or ():
            self._emit(event)
        return None

    def _streamer(self, participant: Participant, provider: str) -> Callable[[str], None] | None:
        """The `on_output` callback for one provider call: reports ``chunk`` events (None when
        nobody listens, so a call without a display does no streaming work)."""
        if self.on_event is None:
            return None

        def report(line: str, text: str) -> None:
            self._emit(
                TurnEvent("chunk", participant.alias, participant.name, provider, line, text=text)
            )

        return stream_reporter(report)

    # -- one participant ------------------------------------------------------------------

    def _answer(
        self,
        d: Discussion,
        participant: Participant,
        prompt: str,
        wants_vote: bool,
        forced: str | None,
        batch: int = 1,
    ) -> ParticipantOutcome:
        """Ask `participant` and record what came (`batch`: the calls started together with
        this one, itself included, not yet in the file when a follow-up is weighed)."""
        outcome = ParticipantOutcome(participant.alias, participant.name)
        started = time.monotonic()
        request = self.request_for(participant, prompt, wants_vote, d.path)
        text = self.ask(participant, request, forced, outcome)
        outcome.duration = time.monotonic() - started
        if text is None:
            outcome.status = "failed"
            record_failure(d, outcome)  # the file says who got no answer, from whom, why
            return outcome
        limit = request.max_answer_chars
        response, original = followup.read_capped(text, limit)
        outcome.notes.extend(response.notes)
        if response.no_response or (not response.comment.strip() and response.vote is None):
            outcome.status = "no_response"
            if not response.no_response:
                outcome.notes.append("the answer held no comment and no vote")
            # A pass is recorded, not a comment: the file shows who had nothing to add.
            ran_first = [a for a in outcome.attempts if ran(a)]  # calls, not missing CLIs
            meta = [*usage_meta(outcome), *failed_meta(ran_first)]
            block = render_pass(participant.name, [*meta, f"at: {clock.now_stamp()}"])
            done = storage.append(d.path, [block], root=d.workspace.config.base_dir)
            outcome.notes.extend(done.lost_messages(d.path))
            return outcome
        extra, comment, vote = self._weak_answer(d, participant, request, response, outcome, batch)
        outcome.duration = time.monotonic() - started  # a follow-up call included
        if original is not None:
            stopped = outcome.truncated  # the command was stopped while still writing
            outcome.truncated = True
            comment += "\n\n" + followup.truncation_note(original, limit, stopped)
            extra.append(f"truncated: {original} chars" + (" (stopped)" if stopped else ""))
        self._post(d, participant, outcome, neutralise(comment), vote, extra)
        return outcome

    def _weak_answer(
        self,
        d: Discussion,
        participant: Participant,
        request: ProviderRequest,
        response: Response,
        outcome: ParticipantOutcome,
        batch: int,
    ) -> tuple[list[str], str, str | None]:
        """(metadata parts, comment, vote) once a stand-in's vote is set aside and a missing
        vote or score has been asked for once (`followup`), where the budget leaves room for
        that call besides the `batch` calls not yet in the file."""
        extra: list[str] = []
        comment, vote = response.comment, response.vote
        if outcome.stand_in and vote:
            outcome.notes.append(f"the mock stood in: its vote {vote} is not counted")
            comment += f"\n\n*[Mock standing in for a failed provider: vote {vote} not counted.]*"
            extra.append(f"stand-in: mock, vote {vote} not counted")
            vote = None
        if vote and not participant.votes:
            outcome.notes.append(f"background participant: vote {vote} not recorded")
            vote = None
        kind = followup.missing(d, outcome, request.wants_vote, comment, vote)
        if kind is None or outcome.provider is None:
            return extra, comment, vote
        fresh = Discussion.load(d.path, d.workspace)  # `d` is shared by the batch's threads
        refusal = self.budget_refusal(fresh, [participant] * (batch + 1), outcome.provider)
        if refusal is not None:
            outcome.notes.append(f"no {kind} in the answer; no follow-up: {refusal}")
            return extra, comment, vote
        prompt = followup.follow_up_prompt(d, kind, comment)
        got = followup.ask_follow_up(self.providers, request, outcome.provider, prompt, kind)
        outcome.usage = followup.add_usage(outcome.usage, got.usage or UNKNOWN)
        extra.append(got.meta())
        if not got.found:
            outcome.notes.append(f"no {kind} in the answer, nor in the one follow-up")
            return extra, comment, vote
        outcome.vote_from_follow_up = True
        comment += "\n\n" + got.note()
        if got.score is not None:
            comment += f"\n\nSCORE: {got.score}"
        return extra, comment, got.vote or vote

    def _post(
        self,
        d: Discussion,
        participant: Participant,
        outcome: ParticipantOutcome,
        comment: str,
        vote: str | None,
        extra: list[str],
    ) -> None:
        """Append the answer as a comment with its metadata line; read its vote back."""
        digest = body_digest(
            render_comment(participant.name, comment, vote=vote).split("\n", 1)[1]
        )
        meta = [f"provider: {outcome.provider}", f"duration: {outcome.duration:.1f}s"]
        meta.extend(failed_meta(outcome.attempts))
        if outcome.mock_fallback:
            meta.append("note: no configured AI CLI is installed")
        meta.extend(clean_meta(part) for part in extra)
        meta.extend(usage_meta(outcome)[1:])
        meta += [f"digest: {digest}", f"at: {clock.now_stamp()}"]
        block = render_comment(participant.name, comment, vote=vote, meta=" | ".join(meta))
        done = storage.append(d.path, [block], root=d.workspace.config.base_dir)
        outcome.notes.extend(done.lost_messages(d.path))
        outcome.status = "posted"
        # What is reported is what the file says: the vote read back from the bytes written.
        written = extract(block.split("\n", 1)[1], 2)
        outcome.vote = written.vote if participant.votes else None
        if outcome.vote != vote:
            outcome.notes.append(
                f"the answer's vote {vote or 'none'} reads as {outcome.vote or 'none'} in the file"
            )

    # -- a turn ---------------------------------------------------------------------------

    def budget_refusal(
        self, d: Discussion, upcoming: Sequence[Participant], forced: str | None = None
    ) -> str | None:
        """Why calls for the `upcoming` participants, started together, would go past the
        budget (`self.budget`, else the configured ``budget:``), or None. Reads the file's
        totals as they stand; each call is estimated from the providers that may answer it
        (`usage.estimate_call`)."""
        budget = self.budget if self.budget is not None else configured_budget(d)
        if budget.empty:
            return None
        d.reload()
        usage = discussion_usage(d)
        estimates = (
            [estimate_call(usage, self.provider_chain(p, forced)) for p in upcoming]
            if budget.estimates
            else []
        )
        return budget.refusal(usage.total, len(upcoming), estimates)

    def unestimated(
        self, d: Discussion, upcoming: Sequence[Participant], forced: str | None
    ) -> bool:
        """Whether a cost or token budget applies and some upcoming call has nothing to be
        estimated from yet: no provider that may answer it has answered in this discussion,
        and no other provider reported a figure."""
        budget = self.budget if self.budget is not None else configured_budget(d)
        if not budget.estimates:
            return False
        usage = discussion_usage(d)
        for p in upcoming:
            e = estimate_call(usage, self.provider_chain(p, forced))
            if not e.seen and (
                (budget.max_cost_usd is not None and not e.cost_basis)
                or (budget.max_tokens is not None and not e.tokens_basis)
            ):
                return True
        return False

    def run_turn(
        self,
        discussion: Discussion,
        participants: Sequence[str] | None = None,
        callout: str | None = None,
        *,
        provider: str | None = None,
        sequential: bool = False,
        council: bool = True,
        budget_rounds: int = 0,
        run_tag: str = "",
    ) -> TurnResult:
        """Invoke `participants` (aliases; default: see `turns.select_participants`) on
        `discussion`, append their answers, then apply the phase rules. With `council`, an open
        motion is then handled (`council.handle_motion`: seconds, sealed ballots, result).
        Before each call the budget is checked (`usage.Budget`); a call that would go past it
        is not made, the turn stops and a ``RUN-STOP: budget`` block (saying `budget_rounds`
        rounds, and carrying `run_tag`, the identity of the run the turn belongs to) records
        why."""
        d = discussion
        if d.unsaved:
            d.save()
        d.adopt_workspace(self.workspace)
        chosen = select_participants(d, participants or ())
        # A file we may not write (not a discussion, conflict lines, read-only, a link out of
        # the project) fails now, before any provider is called.
        storage.check_appendable(d.path, d.workspace.config.base_dir)
        providers = self.providers  # configuration errors surface before anything runs
        if provider:
            providers.get(provider)  # unknown or untrusted: fail before anything runs
        result = TurnResult(file=str(d.path))

        def budget_stop(reason: str) -> None:
            self._record_budget_stop(d, result, reason, budget_rounds, run_tag)

        try:
            self._call_participants(d, chosen, callout, provider, sequential, result, budget_stop)
        except KeyboardInterrupt:
            terminate_all()
            raise

        d.reload()
        if result.no_answer:  # nothing was said: no motion is handled, no phase moves
            self._copy_state(d, result)
            return result
        if council:
            self._council(d, provider, result, budget_stop)
        self._conclude(d, result)
        return result

    def _record_budget_stop(
        self, d: Discussion, result: TurnResult, reason: str, budget_rounds: int, run_tag: str
    ) -> None:
        """Stop the turn for `reason`: note it in `result` and append the RUN-STOP block."""
        result.budget_stop = reason
        block = render_budget_stop(reason, budget_rounds, run_tag)
        storage.append(d.path, [block], root=d.workspace.config.base_dir)

    def _over_budget(
        self,
        d: Discussion,
        upcoming: Sequence[Participant],
        provider: str | None,
        budget_stop: Callable[[str], None],
    ) -> bool:
        """Stop before calls that would go past the budget; record why in the file."""
        reason = self.budget_refusal(d, upcoming, provider)
        if reason is not None:
            budget_stop(reason)
        return reason is not None

    @staticmethod
    def _prepared(
        d: Discussion, p: Participant, callout: str | None
    ) -> tuple[Participant, str, bool]:
        """`p`, its prompt, and whether the current phase asks it for a vote."""
        prompt, _ = build_prompt(d, p, callout)
        info = d.phase_info
        return p, prompt, bool(info and info.voting_mode and p.votes)

    def _call_participants(
        self,
        d: Discussion,
        chosen: Sequence[Participant],
        callout: str | None,
        provider: str | None,
        sequential: bool,
        result: TurnResult,
        budget_stop: Callable[[str], None],
    ) -> None:
        """Call `chosen` one after another, each seeing the answers before it, or in parallel
        on one snapshot; stop before any call the budget cannot cover."""
        if sequential or len(chosen) == 1:
            for p in chosen:
                if self._over_budget(d, [p], provider, budget_stop):
                    break
                d.reload()
                self._parallel(d, [self._prepared(d, p, callout)], provider, result)
            return
        jobs = [self._prepared(d, p, callout) for p in chosen]  # one snapshot for everyone
        # A cost or token budget with nothing yet to estimate a call from: one call
        # goes first, and what it reports is the evidence for the others.
        first = 1 if self.unestimated(d, chosen, provider) else 0
        for group in (jobs[:first], jobs[first:]):
            if not group:
                continue
            if self._over_budget(d, [part for part, _, _ in group], provider, budget_stop):
                break
            self._parallel(d, group, provider, result)

    def _council(
        self,
        d: Discussion,
        provider: str | None,
        result: TurnResult,
        budget_stop: Callable[[str], None],
    ) -> None:
        """Handle an open motion (seconds, sealed ballots, result) after the answers."""
        from .council import handle_motion

        try:
            result.motion = handle_motion(self, d, provider=provider)
        except OverBudget as exc:  # seconds or ballots the budget cannot cover
            if result.budget_stop is None:  # else the turn's stop says it already
                budget_stop(str(exc))
        d.reload()

    def _conclude(self, d: Discussion, result: TurnResult) -> None:
        """Apply the phase rules, refresh the summary file, and copy the state into `result`."""
        result.changes.extend(phases.settle(d))
        if self.workspace.config.summary_files:
            from ..model.summary import write_summary

            try:
                write_summary(d)
            except DiscussionsError as exc:  # the answers are in; the summary can be rebuilt
                result.warnings.append(f"summary not updated: {exc}")
        self._copy_state(d, result)

    @staticmethod
    def _copy_state(d: Discussion, result: TurnResult) -> None:
        """The discussion's phase, status, votes and consensus into `result`."""
        result.phase = d.phase
        result.status = d.status
        result.votes = d.votes
        result.consensus = d.consensus_result.to_dict()

    def _parallel(
        self,
        d: Discussion,
        jobs: Sequence[tuple[Participant, str, bool]],
        provider: str | None,
        result: TurnResult,
    ) -> None:
        """Ask for `jobs` (participant, prompt, wants a vote) at once; outcomes into `result`
        in the order of `jobs`, each reported (``done``) as it arrives."""
        if len(jobs) == 1:  # no thread for one call: Ctrl-C reaches it directly
            part, prompt, wants = jobs[0]
            outcome = self._answer(d, part, prompt, wants, provider)
            result.outcomes.append(outcome)
            self._emit(TurnEvent("done", part.alias, part.name, outcome.provider, outcome=outcome))
            return
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            futures = [
                pool.submit(self._answer, d, part, prompt, wants, provider, len(jobs))
                for part, prompt, wants in jobs
            ]
            try:
                by_future = {f: part for (part, _, _), f in zip(jobs, futures, strict=True)}
                outcomes: dict[str, ParticipantOutcome] = {}
                for fut in _as_completed(futures):
                    part = by_future[fut]
                    outcome = fut.result()
                    outcomes[part.alias] = outcome
                    self._emit(
                        TurnEvent("done", part.alias, part.name, outcome.provider, outcome=outcome)
                    )
                result.outcomes.extend(outcomes[part.alias] for part, _, _ in jobs)
            except KeyboardInterrupt:
                # Stop the providers before the pool waits for its workers; answers already
                # appended stay, nothing half-written is left.
                for f in futures:
                    f.cancel()
                terminate_all()
                raise

NARRATIVE_CALLOUT = (
    "Write a narrative summary of this discussion for someone who has not read it: what is "
    "proposed, where people agree, where they disagree and why, what is decided, and what is "
    "still open. A few short paragraphs of markdown. Do not add new opinions and do not vote."
)


def narrate(
    runner: Runner,
    d: Discussion,
    alias: str = "moderator",
    provider: str | None = None,
    callout: str = NARRATIVE_CALLOUT,
) -> tuple[str, str]:
    """A narrative summary (or, with another `callout`, another text about the discussion,
    such as `prompts.POST_CALLOUT`) written by participant `alias`. Returns (text, who wrote
    it). Nothing is written to the file."""
    participant = d.workspace.participants.get(alias)
    prompt, _ = build_prompt(d, participant, callout, memory=False)
    outcome = ParticipantOutcome(participant.alias, participant.name)
    text = runner.ask(
        participant, runner.request_for(participant, prompt, False), provider, outcome
    )
    if text is None:
        raise ProviderError(participant.alias, "no provider answered", outcome.error)
    comment = parse_response(text).comment
    return neutralise(comment).strip(), f"{participant.name} via {outcome.provider}"


def _as_completed(futures: list[Future[ParticipantOutcome]]) -> Iterator[Future[Any]]:
    """Futures as they finish, waiting in short slices so Ctrl-C reaches the main thread."""
    left = set(futures)
    while left:
        done, left = wait(left, timeout=0.2, return_when=FIRST_COMPLETED)
        yield from (f for f in futures if f in done)
