"""What `discussions status` shows: a discussion's state as lines of text, each made of spans
with a tone an interface may colour, and as the one JSON-ready object; pure functions over a
`Discussion`, so the command line, the terminal app, the web view and the MCP server show
the same thing.

    for line in status_lines(Discussion.load("discussions/feature-x.md"), verbose=True):
        print(line.text)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..derive.diagnosis import describe
from ..derive.quorum import MOCK, independent_sources
from ..derive.runlog import run_state
from ..model.discussion import Discussion, Item
from ..model.sections import SECTIONS, pick
from ..settings.workspace import display_path
from .grounds import grounds_data, grounds_texts
from .hindsight import hindsight_texts
from .verdicts import verdict_data, verdict_texts

if TYPE_CHECKING:
    from ..derive.state import Comment
    from ..model.memory import Revisit

TONES = ("strong", "good", "alert", "warning")
"""What a span's tone may be besides plain (""): bold, success, a human must act, a warning."""


@dataclass(slots=True, frozen=True)
class Span:
    """A piece of a line, in one tone."""

    text: str
    """The words; may hold someone else's text (an interface escapes it for its medium)."""
    tone: str = ""
    """"" (plain) or one of `TONES`."""


@dataclass(slots=True)
class StatusLine:
    """One line of the status; no spans for an empty line."""

    spans: list[Span] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The line without tones."""
        return "".join(s.text for s in self.spans)


def _line(text: str = "", tone: str = "") -> StatusLine:
    return StatusLine([Span(text, tone)] if text else [])


def status_of(d: Discussion) -> dict[str, Any]:
    """The state `status --json` prints: `Discussion.to_dict`, the usage reported so far, and
    the latest run with what became of it (`runlog.run_state`: running, interrupted...)."""
    data = {**d.to_dict(), "usage": d.usage.to_dict()}
    data["revisits"] = [r.to_dict() for r in revisits(d)]
    conflicted = conflict_lines(d)
    if conflicted:  # phase and status mix both sides' moves: not the discussion's
        data.update(phase="conflicted", status="conflicted", conflict_lines=conflicted)
    data.update(verdict_data(d))
    data["grounds"] = grounds_data(d)
    if d.runs:
        data["run"] = run_state(d.runs).to_dict()
    return data


def status_lines(d: Discussion, *, verbose: bool = False) -> list[StatusLine]:
    """The lines `status` prints: phase, who said and voted what, consensus, the latest run,
    usage, diagnosis, passes, motions, items, pending mentions, warnings. `verbose` adds the
    TODOs, assignments and done items, and every comment."""
    lines = [*_escalation(d), *_heading(d), *_authors(d), *_consensus(d)]
    lines += [_line(text, tone) for text, tone in grounds_texts(d)]
    lines += [_line(text, tone) for text, tone in verdict_texts(d)]
    if d.runs:
        lines.append(_line(run_state(d.runs).text()))
    lines += [*_usage(d), *_diagnosis(d), *_passes(d), *_motions(d), *_evidence(d)]
    lines += [*_applies(d), *_choice(d)]
    lines += _items(d, verbose)
    lines += [*_dissent(d), *_pending(d), *_revisit_lines(d)]
    lines += [_line(text, tone) for text, tone in hindsight_texts(d)]
    if verbose:
        lines += _comments(d)
    return lines + _warnings(d)


def _escalation(d: Discussion) -> list[StatusLine]:
    escalation = d.escalation
    if escalation is None:
        return []
    rest = (
        f" (line {escalation.line}): the participants did not agree "
        f"({escalation.value}); a human has to decide: vote, write DECISION:, advance or close."
    )
    return [StatusLine([Span("Escalation", "alert"), Span(rest)])]


def conflict_lines(d: Discussion) -> list[int]:
    """The lines of unresolved merge-conflict markers in `d`: while there are any, its phase
    and status are not known (the parser reads both sides' moves one after the other)."""
    return [w.line for w in d.warnings if w.code == "merge-conflict"]


def _heading(d: Discussion) -> list[StatusLine]:
    info = d.phase_info
    phase = f"{d.phase} ({info.title})" if info else d.phase
    if info and info.voting_mode:
        phase += " - voting"
    status = d.status
    conflicted = conflict_lines(d)
    if conflicted:
        phase = status = f"conflicted (unresolved merge, line {conflicted[0]})"
    lines = [
        StatusLine([Span("Discussion: "), Span(d.title, "strong")]),
        _line(f"File: {display_path(d.path)}"),
        _line(f"Phase: {phase}", "alert" if conflicted else ""),
        _line(f"Status: {status}", "alert" if conflicted else ""),
    ]
    if d.participants:
        lines.append(_line(f"Participants: {', '.join(d.participants)}"))
    if d.language:
        lines.append(_line(f"Language: {d.language}"))
    return lines


def author_votes(d: Discussion) -> dict[str, tuple[str | None, str]]:
    """Each author, in the order they first wrote, with what to show as their vote and the
    summary of their latest comment. The vote is the one they hold in this phase (the derived
    `Discussion.votes`); without one, when their latest comment voted, ``no vote in PHASE
    (voted X before)`` (a vote cast before the votes restarted, or one that does not count,
    as a background participant's); else None."""
    votes, phase, comments = d.votes, d.phase, d.comments
    last: dict[str, Comment] = {}
    for c in reversed(comments):  # each author's latest comment: summarised once, not each
        last.setdefault(c.author, c)
    latest: dict[str, tuple[str | None, str]] = {}
    for author in dict.fromkeys(c.author for c in comments):
        c = last[author]
        before = f"no vote in {phase} (voted {c.vote} before)" if c.vote else None
        latest[author] = (votes.get(author) or before, c.summary)
    return latest


def _authors(d: Discussion) -> list[StatusLine]:
    latest = author_votes(d)
    sources = d.vote_sources
    lines = [_line(), _line(f"Comments: {len(d.comments)} from {len(latest)} author(s)")]
    for author, (vote, summary) in latest.items():
        shown = vote or "no vote"
        label = sources[author].label() if author in sources else ""
        shown += f" ({label})" if label else ""
        lines.append(_line(f"  {author}: {shown}" + (f" - {summary}" if summary else "")))
    return lines


def sources_text(d: Discussion) -> str:
    """``3 READY, 1 independent source (solo: 3 votes)``: how many voices the READY votes
    are (`quorum.independent_sources`); "" without a READY vote from an AI (people alone
    are as many voices as they are)."""
    sources = d.vote_sources
    ready = [v for v in sources.values() if v.vote == "READY"]
    if not any(v.provider for v in ready):
        return ""
    groups = independent_sources(ready)
    said = [f"{_group_name(d, g)}: {_votes(len(g))}" for g in groups]
    mock = sum(1 for v in ready if v.provider == MOCK)
    if mock:
        said.append(f"mock: {_votes(mock)}, no source")
    plural = "" if len(groups) == 1 else "s"
    return f"{len(ready)} READY, {len(groups)} independent source{plural} ({', '.join(said)})"


def _group_name(d: Discussion, voters: list[str]) -> str:
    """The providers of one source's voters (``codex/opencode``), or the person's name."""
    names = [d.vote_sources[v].provider or v for v in voters]
    return "/".join(dict.fromkeys(names))


def _votes(n: int) -> str:
    return f"{n} vote" if n == 1 else f"{n} votes"


def _failed_seats(d: Discussion) -> list[StatusLine]:
    """The seats whose call failed, and how the consensus counts them."""
    result = d.consensus_result
    if result.abstained:
        return [
            _line(
                f"Failed seats: {', '.join(result.abstained)} (abstaining: counted as not READY)",
                "warning",
            )
        ]
    if result.excluded:
        return [
            _line(
                f"Failed seats: {', '.join(result.excluded)} (left out of the count: "
                "consensus.failed_seats: exclude)",
                "warning",
            )
        ]
    return []


def _consensus(d: Discussion) -> list[StatusLine]:
    result = d.consensus_result
    counts = result.counts
    verdict = Span("reached", "good") if result.reached else Span("not reached")
    return [
        _line(),
        _line(
            f"Votes: READY: {counts.get('READY', 0)}, CHANGES: {counts.get('CHANGES', 0)}, "
            f"REJECT: {counts.get('REJECT', 0)}"
        ),
        *([_line(f"Sources: {said}")] if (said := sources_text(d)) else []),
        *_failed_seats(d),
        StatusLine([Span("Consensus: "), verdict, Span(f" ({result.reason})")]),
    ]


def _usage(d: Discussion) -> list[StatusLine]:
    """Tokens and cost as the AI CLIs reported them, in total and per participant."""
    usage = d.usage
    if not usage.total.calls and not usage.total.failed_calls:
        return []
    lines = [_line(f"Usage: {usage.total.text()}")]
    lines += [_line(f"  {name}: {t.text()}") for name, t in usage.by_participant.items()]
    lines += _cut_answers(d, "truncated", "Answers cut to the length limit")
    lines += _cut_answers(d, "cut", "Answers cut by the model's token limit")
    return lines


def _cut_answers(d: Discussion, key: str, what: str) -> list[StatusLine]:
    """A warning line counting the answers whose metadata has `key` (cut short), naming the
    latest three; none when there are none."""
    cut = [c for c in d.comments if key in c.meta]
    if not cut:
        return []
    where = ", ".join(f"{c.author} line {c.line}" for c in cut[-3:])
    return [_line(f"{what}: {len(cut)} ({where})", "warning")]


def _diagnosis(d: Discussion) -> list[StatusLine]:
    diagnosis = describe(d.diagnosis)
    if not diagnosis:
        return []
    return [_line(), *(_line(text) for text in diagnosis)]


def _passes(d: Discussion) -> list[StatusLine]:
    passes = d.passes
    if not passes:
        return []
    who = ", ".join(dict.fromkeys(by for by, _ in passes))
    return [_line(f"Passes: {len(passes)} ({who}; latest line {passes[-1][1]})")]


def _evidence(d: Discussion) -> list[StatusLine]:
    found = d.evidence
    if not found:
        return []
    counts: dict[str, int] = {}
    for e in found:
        counts[e.status] = counts.get(e.status, 0) + 1
    said = ", ".join(f"{n} {status}" for status, n in counts.items())
    lines = [_line(f"Evidence: {said}")]
    for e in found:
        if e.status in ("pending", "refused"):
            why = f" ({e.reason})" if e.reason else ""
            lines.append(_line(f"  {e.status}: {e.request} by {e.by}, line {e.line}{why}"))
    return lines


def _applies(d: Discussion) -> list[StatusLine]:
    if not d.applies:
        return []
    from .applies import applies_lines

    found = applies_lines(d)
    return [_line(), _line(f"Applies ({len(d.applies)}):"), *(_line(f"  {t}") for t in found)]


def _choice(d: Discussion) -> list[StatusLine]:
    """The latest King's Choice, with its line."""
    chosen = d.choice
    if chosen is None:
        return []
    from ..syntax.choice import choice_sentence

    return [_line(), _line(f"{choice_sentence(chosen)} (line {chosen.line})")]


def _motions(d: Discussion) -> list[StatusLine]:
    motions = d.motions
    if not motions:
        return []
    texts = ["", f"Motions ({len(motions)}):"]
    for m in motions:
        texts.append(f"  line {m.line}, {m.by}: {m.text} - {m.result}")
        if m.seconded_by:
            texts.append(f"    seconded by: {', '.join(m.seconded_by)}")
        if m.counts:
            c = m.counts
            texts.append(
                f"    YES {c.get('YES', 0)}, NO {c.get('NO', 0)}, ABSTAIN {c.get('ABSTAIN', 0)}"
            )
        elif m.result == "open" and m.seconded_by:
            texts.append(f"    ballots in: {len(m.ballots)} (sealed until all are in)")
        if m.not_counted:
            texts.append(
                f"    ballots not counted (not on the council): {', '.join(m.not_counted)}"
            )
    return [_line(t) for t in texts]


def _dissent(d: Discussion) -> list[StatusLine]:
    """The minority report under the decisions (`derive.minority`): none without a decision
    or without dissent."""
    dissent = d.dissent
    if not d.decisions or not dissent:
        return []
    lines = [_line(), _line(dissent.headline(), "warning" if dissent.votes else "")]
    return lines + [_line("  " + text.removeprefix("- ")) for text in dissent.lines()]


def _where(i: Item) -> str:
    """Who said an item and where, and who restated it."""
    where = f"{i.author}, line {i.line}"
    return f"{where}; {i.restaters}" if i.restated else where


def _items(d: Discussion, verbose: bool) -> list[StatusLine]:
    """The item sections (`sections.SECTIONS`; open questions, decisions and concerns unless
    `verbose`)."""
    listed = SECTIONS if verbose else pick("questions", "decisions", "concerns")
    lines = []
    for section in listed:
        items = d.items_of(section)
        if not items:
            continue
        lines += [_line(), _line(f"{section.heading} ({len(items)}):")]
        lines += [_line(f"  {section.marker}: {i.text} ({_where(i)})") for i in items]
    return lines


def _pending(d: Discussion) -> list[StatusLine]:
    pending = d.pending_mentions
    if not pending:
        return []
    lines = [_line(), _line(f"Waiting for ({len(pending)}):")]
    lines += [_line(f"  @{p.alias} (mentioned by {p.by}, line {p.line})") for p in pending]
    return lines


def revisits(d: Discussion) -> list[Revisit]:
    """The ``REVISIT-WHEN:`` conditions of the project's other discussions that `d` mentions
    (`memory.revisits_for`)."""
    from ..model.folder import files_holding

    try:  # the memory is loaded only when another discussion holds a condition
        if not files_holding(d.workspace.config.output_directory, d.path, ("revisit-when",)):
            return []
    except OSError:
        return []
    from ..model.memory import revisits_for, significant_words

    def words() -> frozenset[str]:
        return significant_words(d.text)

    return revisits_for(d.workspace, d.path, words, d.header.get("created", ""))


def _revisit_lines(d: Discussion) -> list[StatusLine]:
    found = revisits(d)
    if not found:
        return []
    lines = [_line(), _line(f"Conditions to revisit, mentioned here ({len(found)}):", "alert")]
    for r in found:
        where = f"{display_path(r.file)}:{r.line}"
        lines.append(_line(f"  Revisit: {r.text} ({where}, {r.author})"))
    return lines


def _comments(d: Discussion) -> list[StatusLine]:
    comments = d.comments
    if not comments:
        return []
    lines = [_line(), _line("All comments:")]
    for c in comments:
        vote = f" VOTE: {c.vote}" if c.vote else ""
        via = f" [{c.meta['provider']}]" if "provider" in c.meta else ""
        lines.append(_line(f"  line {c.line}: {c.author}{via}{vote}"))
    return lines


def _warnings(d: Discussion) -> list[StatusLine]:
    warnings = d.warnings
    if not warnings:
        return []
    lines = [_line(), _line(f"Warnings ({len(warnings)}):", "warning")]
    lines += [_line(f"  line {w.line}: {w.message}") for w in warnings]
    return lines
