"""One turn: pick participants, build prompts, call providers, append answers, then the
after-answer steps the runner is given (`steps.Step`: evidence, the council, the phase rules).

* Parallel by default: every participant sees the same snapshot of the file, and the turn takes
  about as long as the slowest provider. ``sequential=True`` lets each see the answers before it.
* Each answer is appended as soon as it arrives, under the file lock, so an interrupted turn
  keeps what finished and a human comment written meanwhile is kept.
* Fallback chain per participant: ``--provider`` if given (alone), else the participant's
  ``provider_hint`` and ``providers.default`` (the default first for a bundled persona, see
  `registry.participant_chain`), ``providers.fallback``. When every provider in the
  chain is simply not installed, the built-in mock answers and the record says so.
* The record: each appended comment carries
  ``<!-- provider: ... | duration: ... | failed: ... -->``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from ...errors import NOT_A_CALL, ProviderError, WindowTooSmall
from ...model import storage
from ...model.budget import Budget, configured_budget, estimate_call, render_budget_stop
from ...model.discussion import Discussion
from ...model.storage import Appended
from ...providers.base import ProviderRequest, complete_with_usage, max_answer_chars
from ...providers.chains import check_callable, missing_cli_note, participant_chain
from ...providers.command import terminate_all
from ...providers.escapes import one_sweep
from ...providers.registry import ProviderRegistry
from ...providers.slots import stoppable, stopped_since, stops_seen
from ...providers.window import chain_window, provider_notes
from ...settings.participants import Participant
from ...settings.workspace import Workspace
from ...syntax.render import analyse_tail, join_blocks, neutralise
from ..evidence.turn import fulfil_quietly
from ..prompt.prompts import build_prompt
from .appending import GroupAppend
from .cli_configs import configs_watched
from .outcomes import (
    Attempt,
    ParticipantOutcome,
    TurnEvent,
    TurnResult,
    length_cut_note,
    stream_reporter,
)
from .parallel import Parallel
from .routing import select_participants
from .steps import AfterAnswers, Step, warm_up


class TurnRunner:
    """Runs turns, each followed by `steps` in order. `on_event` is called (from worker
    threads) as participants progress. The runner people make, with the default steps, is
    `discussions.Runner` (`engine.runner`)."""

    def __init__(
        self,
        workspace: Workspace | None = None,
        *,
        steps: Sequence[Step],
        providers: ProviderRegistry | None = None,
        timeout: float | None = None,
        on_event: Callable[[TurnEvent], None] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self._workspace = workspace
        self.steps = tuple(steps)
        """What each turn does after its answers, in order."""
        self.budget = budget
        """Limits in place of the configured ``budget:`` (None: the configured one)."""
        self._providers = providers
        self.timeout = timeout
        self.on_event = on_event
        self._emit_lock = threading.Lock()
        self._told_missing: set[str] = set()  # not installed, and said so (`_first_telling`)

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
        `providers.registry.participant_chain`: hint and default, fallbacks, installed CLIs)."""
        return participant_chain(self.providers, participant, self.workspace.config, forced)

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
            max_answer_chars=max_answer_chars(self.workspace.config.section("providers")),
        )

    @stoppable()
    def ask(
        self,
        participant: Participant,
        request: ProviderRequest,
        forced: str | None,
        outcome: ParticipantOutcome,
    ) -> str | None:
        """Walk the provider chain; record failures in `outcome`. The mock answers only when
        nothing in the chain is installed (and no provider was forced). Once the calls are
        stopped (Ctrl-C) no further provider is tried: `terminate_all` could not end it."""
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
        seen = stops_seen()
        for index, name in enumerate(chain):
            if stopped_since(seen):
                break
            note = provider_notes(self.providers, name)  # a local server's window, its slots
            emit(TurnEvent("start", participant.alias, participant.name, name, note))
            request.on_output = self._streamer(participant, name)
            try:
                completion = complete_with_usage(self.providers.get(name), request)
            except ProviderError as exc:
                left = None if stopped_since(seen) else len(chain) - index - 1
                self._attempt_failed(participant, name, exc, outcome, emit, left)
                continue
            for event in held or ():  # installed after all: nothing to hide
                self._emit(event)
            outcome.provider = name
            outcome.stand_in = _stands_in(name, outcome)
            outcome.usage = completion.usage
            outcome.truncated = completion.stopped
            outcome.length_cut = completion.length_cut
            return completion.text
        if (
            mock_allowed
            and not stopped_since(seen)
            and all(
                a.reason.startswith("not installed") or a.reason == "no provider of that name"
                for a in outcome.attempts
            )
        ):
            return self._mock_answer(participant, request, outcome)
        for event in held or ():
            self._emit(event)
        return None

    def _attempt_failed(
        self,
        participant: Participant,
        name: str,
        exc: ProviderError,
        outcome: ParticipantOutcome,
        emit: Callable[[TurnEvent], None],
        remaining: int | None,
    ) -> None:
        """Record the failure of `name` in `outcome` and tell it (`_first_telling`), with how
        many providers of the chain are `remaining` to try; None: the calls were stopped
        (Ctrl-C), which ended this one, and nothing is tried or told."""
        outcome.attempts.append(Attempt(name, exc.reason, exc.detail))
        if remaining is not None and self._first_telling(name, exc.reason):
            who = (participant.alias, participant.name, name)
            emit(TurnEvent("attempt_failed", *who, str(exc), remaining=remaining))

    def _mock_answer(
        self, participant: Participant, request: ProviderRequest, outcome: ParticipantOutcome
    ) -> str:
        """The built-in mock's answer when nothing in the chain is installed, with one note
        saying what was missing and what to install or configure."""
        note = missing_cli_note(self.providers, [a.provider for a in outcome.attempts])
        self._emit(TurnEvent("start", participant.alias, participant.name, "mock", note))
        request.on_output = self._streamer(participant, "mock")
        outcome.provider = "mock"
        outcome.mock_fallback = True
        return self.providers.get("mock").complete(request)

    def _first_telling(self, name: str, reason: str) -> bool:
        """Whether a failure of `name` is to be told: every failure of a call, and a provider
        that could not start (not installed, unknown) the first time in this runner (one
        command) only. The attempt is in the outcome either way."""
        if not reason.startswith(NOT_A_CALL):
            return True
        with self._emit_lock:
            if name in self._told_missing:
                return False
            self._told_missing.add(name)
            return True

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
        write: Callable[[str], Appended],
        batch: int = 1,
    ) -> ParticipantOutcome:
        """Ask `participant`, and append its answer (or its pass) with `write` (`batch`: the
        calls started together with this one, itself included, not yet in the file when a
        follow-up is weighed)."""
        outcome = ParticipantOutcome(participant.alias, participant.name)
        started = time.monotonic()
        request = self.request_for(participant, prompt, wants_vote, d.path)
        text = self.ask(participant, request, forced, outcome)
        outcome.duration = time.monotonic() - started
        from ...syntax import answers
        from . import failures, followup, posting  # loaded during the call

        if text is None:
            outcome.status = "failed"  # the file says who got no answer, from whom, why
            failures.record_failure(d, outcome, write)
            return outcome
        limit = request.max_answer_chars
        response, original = followup.read_capped(
            text, limit, followup.answer_echo(prompt, d, participant.name)
        )
        outcome.notes.extend(response.notes)
        if response.only_echo:  # an echo is never a pass: the model said nothing
            outcome.attempts.append(Attempt(outcome.provider or "?", answers.ONLY_ECHO))
            outcome.status = "failed"
            failures.record_failure(d, outcome, write)
            return outcome
        if response.no_response or (not response.comment.strip() and response.vote is None):
            outcome.status = "no_response"
            if not response.no_response:
                outcome.notes.append("the answer held no comment and no vote")
            posting.post_pass(d, participant, outcome, write)
            return outcome

        def refusal(provider: str) -> str | None:  # `d` is shared by the batch's threads
            fresh = Discussion.load(d.path, d.workspace)
            return self.budget_refusal(fresh, [participant] * (batch + 1), provider)

        extra, comment, vote = posting.weak_answer(
            self.providers, d, participant, request, response, outcome, refusal
        )
        outcome.duration = time.monotonic() - started  # a follow-up call included
        if original is not None:
            stopped = outcome.truncated  # the command was stopped while still writing
            outcome.truncated = True
            comment += "\n\n" + followup.truncation_note(original, limit, stopped)
            extra.append(f"truncated: {original} chars" + (" (stopped)" if stopped else ""))
        if outcome.length_cut:  # recorded, so a reader and `status` know it is not whole
            comment += "\n\n" + length_cut_note(outcome.length_cut)
            extra.append(f"cut: {outcome.length_cut}")
        posting.post_answer(d, participant, outcome, neutralise(comment), vote, extra, write)
        return outcome

    # -- a turn ---------------------------------------------------------------------------

    def budget_refusal(
        self, d: Discussion, upcoming: Sequence[Participant], forced: str | None = None
    ) -> str | None:
        """Why calls for the `upcoming` participants, started together, would go past the
        budget (`self.budget`, else the configured ``budget:``), or None. Reads the file's
        totals as they stand; each call is estimated from the providers that may answer it
        (`budget.estimate_call`)."""
        budget = self.budget if self.budget is not None else configured_budget(d)
        if budget.empty:
            return None
        d.reload()
        usage = d.usage
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
        usage = d.usage
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
        preamble: Sequence[str] = (),
    ) -> TurnResult:
        """Invoke `participants` (aliases; default: see `turns.select_participants`) on
        `discussion`, append their answers, then run the runner's `steps` in order (evidence
        fulfilled, an open motion handled when `council` says so, the phase rules).
        Before each call the budget is checked (`budget.Budget`); a call that would go past it
        is not made, the turn stops and a ``RUN-STOP: budget`` block (saying `budget_rounds`
        rounds, and carrying `run_tag`, the identity of the run the turn belongs to) records
        why. `preamble` (a round's ``ROUND`` block) goes into the file before the answers,
        written while the providers think; the prompts see it."""
        d = discussion
        if d.unsaved:
            d.save()
        d.adopt_workspace(self.workspace)
        chosen = select_participants(d, participants or ())
        self._preflight(d, chosen, provider)
        result = TurnResult(file=str(d.path))
        fulfil_quietly(d, result, reload=False)  # requests since the last turn, for all
        write = GroupAppend(d.path, d.workspace.config.base_dir)
        view = _with_preamble(d, write, preamble)

        def budget_stop(reason: str) -> None:
            write.release()  # the preamble goes first
            self._record_budget_stop(d, result, reason, budget_rounds, run_tag)

        def call(on: Discussion, group: Sequence[Participant]) -> None:
            self._call_participants(
                on, group, callout, provider, sequential, result, budget_stop, write
            )

        after = AfterAnswers(
            d, chosen, result, self, provider, council, lambda again: call(d, again), budget_stop
        )
        # escapes; CLIs' own configs; after Ctrl-C, no call of the turn starts
        with one_sweep(), configs_watched(d, result.warnings), stoppable():
            try:
                try:
                    call(view, chosen)
                finally:
                    write.release()  # held while the providers think, written whatever happens
                for step in self.steps:  # evidence, the council, the phase rules, the summary
                    step.run(after)
            except KeyboardInterrupt:
                terminate_all()
                raise
        self._copy_state(d, result)
        return result

    def _preflight(
        self, d: Discussion, chosen: Sequence[Participant], provider: str | None
    ) -> None:
        """Fail before any provider is called: a file we may not write (not a discussion,
        conflict lines, read-only, a link out of the project), a configuration error, a
        provider that cannot be called (`check_providers`), a model too small for any prompt."""
        storage.check_appendable(d.path, d.workspace.config.base_dir)
        self.check_providers(chosen, provider)
        self.check_windows(d, chosen, provider)

    def check_providers(self, chosen: Sequence[Participant], provider: str | None) -> None:
        """Refuse, before anything is written, providers that cannot be called
        (`chains.check_callable`)."""
        check_callable(self.providers, chosen, self.workspace.config, provider)

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

    def window_for(self, participant: Participant, forced: str | None = None) -> int | None:
        """The context window (tokens) `participant`'s prompt is sized for: the smallest
        known among the providers that may answer it; None when none is known."""
        return chain_window(self.providers, self.provider_chain(participant, forced)).tokens

    def check_windows(
        self, d: Discussion, chosen: Sequence[Participant], forced: str | None = None
    ) -> None:
        """Refuse, before any call, participants whose model cannot take their smallest
        prompt (`fitting.misfits`)."""
        if all(self.window_for(p, forced) is None for p in chosen):
            return  # no known window, nothing to fit: `fitting` is not loaded before the calls
        from ..prompt.fitting import misfits, refusal

        found = misfits(d, chosen, self.providers, lambda p: self.provider_chain(p, forced))
        if found:
            raise WindowTooSmall(refusal(found))

    def _prepared(
        self, d: Discussion, p: Participant, callout: str | None, forced: str | None
    ) -> tuple[Participant, str, bool]:
        """`p`, its prompt (sized for its providers' window), and whether the current phase
        asks it for a vote."""
        prompt, _ = build_prompt(d, p, callout, window=self.window_for(p, forced))
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
        write: GroupAppend,
    ) -> None:
        """Call `chosen` one after another, each seeing the answers before it, or in parallel
        on one snapshot; stop before any call the budget cannot cover."""
        if sequential or len(chosen) == 1:
            write.release()  # each call reads the file as it is
            for p in chosen:
                if self._over_budget(d, [p], provider, budget_stop):
                    break
                d.reload()
                job = self._prepared(d, p, callout, provider)
                self._parallel(d, [job], provider, result, write)
            return
        jobs = [self._prepared(d, p, callout, provider) for p in chosen]  # one snapshot for all
        # A cost or token budget with nothing yet to estimate a call from: one call
        # goes first, and what it reports is the evidence for the others.
        first = 1 if self.unestimated(d, chosen, provider) else 0
        for group in (jobs[:first], jobs[first:]):
            if not group:
                continue
            if self._over_budget(d, [part for part, _, _ in group], provider, budget_stop):
                break
            self._parallel(d, group, provider, result, write)

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
        group: GroupAppend,
    ) -> None:
        """Ask for `jobs` (participant, prompt, wants a vote) at once; outcomes into `result`
        in the order of `jobs`, each reported (``done``) as it arrives. What `group` holds is
        written once the calls are under way."""
        write = group.append
        if len(jobs) == 1:  # no thread for one call: Ctrl-C reaches it directly
            warm_up(self.steps)
            group.release()
            part, prompt, wants = jobs[0]
            outcome = self._answer(d, part, prompt, wants, provider, write)
            result.outcomes.append(outcome)
            self._emit(TurnEvent("done", part.alias, part.name, outcome.provider, outcome=outcome))
            return
        calls = Parallel(  # each in a copy of this context: the turn's `one_sweep`
            [
                partial(self._answer, d, part, prompt, wants, provider, write, len(jobs))
                for part, prompt, wants in jobs
            ]
        )
        try:
            warm_up(self.steps)
            try:
                _release(group)
                outcomes: dict[str, ParticipantOutcome] = {}
                for index, outcome in calls.finished():
                    part = jobs[index][0]
                    outcomes[part.alias] = outcome
                    self._emit(
                        TurnEvent("done", part.alias, part.name, outcome.provider, outcome=outcome)
                    )
                result.outcomes.extend(outcomes[part.alias] for part, _, _ in jobs)
            except KeyboardInterrupt:
                # Stop the providers before waiting for the calls; answers already appended
                # stay, nothing half-written is left.
                terminate_all()
                raise
        finally:
            calls.join()


def _stands_in(provider: str, outcome: ParticipantOutcome) -> bool:
    """Whether `provider`, the mock, answered for a chain whose providers ran and failed."""
    if provider != "mock" or not outcome.attempts:
        return False
    from .failures import ran  # after the call: `warm_up` loads it while the call runs

    return any(ran(a) for a in outcome.attempts)


def _with_preamble(d: Discussion, write: GroupAppend, preamble: Sequence[str]) -> Discussion:
    """`d` as the turn's prompts see it: with `preamble` appended, which `write` holds to
    write first."""
    if not preamble:
        return d
    write.hold(list(preamble))
    text = d.text
    return d.seen_as(text + join_blocks(analyse_tail(text, at_file_start=True), list(preamble)))


def _release(group: GroupAppend) -> None:
    """Write what `group` holds while the calls run; if it cannot be written, neither can
    their answers: stop them."""
    try:
        group.release()
    except BaseException:
        terminate_all()
        raise
