"""State derivation: an ordered list of small named rules over a parsed file.

Like markdown-it-py's rulers, each rule reads the parse (`Document`) and what earlier rules
put on the `State`, and adds its one concern: the header, the engine markers, the comments and
their markers, votes, mentions, integrity checks, the title. A new capability adds a rule (and
a field), not a branch in a long function. Rules are pure: the workspace (participants,
templates, configuration) is read, never changed.

    state = derive(text, path_stem, workspace)
    state.phase, state.votes, state.items["Q"], state.warnings ...
"""

from __future__ import annotations

import _thread
import gc
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from ..syntax import conflicts
from ..syntax.code import CodeLines
from ..syntax.document import Document, ParseWarning
from ..syntax.kinds import engine_kinds
from ..syntax.markers import parse_score
from ..syntax.parse import parse_document
from ..syntax.typos import CloseAliases
from .ballots import rule_first_ballot, rule_phase_rules, rule_positions, rule_voters
from .citations import rule_citations
from .contrarian import rule_contrarian
from .diagnosis import rule_diagnosis
from .governs import rule_governs
from .loaded import loaded_rule
from .minority import rule_dissent
from .motions import rule_motions, rule_passes
from .notes import rule_notes
from .quorum import rule_quorum
from .readings import engine_meta as engine_meta  # re-exported: callers and tests
from .readings import remember_comments as remember_comments
from .readings import rule_comments as rule_comments  # in RULES; the ledger runs it alone
from .restatements import rule_restatements
from .runlog import group_runs
from .signatures import body_digest as body_digest  # re-exported: callers and tests
from .signatures import own_text as own_text
from .signatures import strip_meta as strip_meta
from .state import Item, PendingMention, RunMark, State
from .translated import rule_translated_markers
from .usage import rule_usage

if TYPE_CHECKING:
    from ..settings.workspace import Workspace

_HEADING_PREFIX = "#"

Rule = Callable[[State], None]


# --------------------------------------------------------------------------- rules


def rule_discussion_header(s: State) -> None:
    if not s.doc.is_discussion:
        s.warn(1, "missing `<!-- DISCUSSION -->` header line", "error")


def rule_template(s: State) -> None:
    templates = s.workspace.templates
    name = s.doc.header.get("template")
    if not name:
        s.template = templates.find(s.workspace.config.default_template)
        return
    s.template = templates.find(name)
    if s.template is None:
        s.warn(s.header_line("template"), f"unknown template '{name}'", "error")


def rule_header_phase(s: State) -> None:
    t = s.template
    s.phase = s.doc.header.get("phase") or (t.first_phase if t else "initial_feedback")
    known = t.phase_ids() if t else []
    if known and s.phase not in known:
        s.warn(
            s.header_line("phase"),
            f"phase '{s.phase}' is not a phase of template '{t.name if t else ''}'"
            f" ({', '.join(sorted(known))})",
            "error",
        )
    s.status = s.doc.header.get("status") or "OPEN"


def rule_engine_markers(s: State) -> None:
    known = set(s.template.phase_ids()) if s.template else set()
    for m in s.doc.engine_markers:
        if m.kind == "phase-transition":
            if m.source and m.source != s.phase:
                s.warn(m.line, f"transition from '{m.source}' but the phase was '{s.phase}'")
            if known and m.target not in known:
                s.warn(m.line, f"transition to unknown phase '{m.target}'", "error")
            s.phase = m.target
            s.reset_line = s.phase_line = m.line
        elif m.kind == "vote-reset":
            s.reset_line = m.line
        elif m.kind == "status-change":
            s.status = m.target
            s.status_line = m.line


def rule_participants(s: State) -> None:
    header = s.doc.header
    if "participants" in header:
        s.participants = [
            a.strip().lstrip("@").lower() for a in header["participants"].split(",") if a.strip()
        ]
    else:
        s.participants = list(s.template.participants) if s.template else []


def rule_votes(s: State) -> None:
    """Each voter's latest vote since the last reset; background participants don't count."""
    registry = s.registry
    for c in s.comments:
        participant = registry.for_author(c.author)
        if participant is not None and not participant.votes:
            continue
        for marker in c.markers:
            if marker.kind == "VOTE" and marker.line > s.reset_line:
                s.votes.pop(c.author, None)  # keep dict order = order of latest votes
                s.votes[c.author] = marker.text


_MEANINGLESS = {
    "",
    "none",
    "n/a",
    "na",
    "-",
    "--",
    "no",
    "nothing",
    "no issues",
    "no issue",
    "none.",
    "no pending issues",
    "null",
    "nil",
}


def rule_scores(s: State) -> None:
    """Scores and pending issues (consensus mode ``score``): each scorer's latest ``SCORE:``
    since the reset, clamped to 0-10, and the ``PENDING:`` lines of that comment. Meaningless
    entries ("none", "n/a", "-") are dropped; background participants' scores do not count."""
    if not s.holds("SCORE", "PENDING"):
        return
    registry = s.registry
    pending: dict[str, list[Item]] = {}
    for c in s.comments:
        participant = registry.for_author(c.author)
        if participant is not None and not participant.votes:
            continue
        mine = [m for m in c.markers if m.kind in ("SCORE", "PENDING") and m.line > s.reset_line]
        if not mine:
            continue
        for m in mine:
            if m.kind == "SCORE":
                value = parse_score(m.text)
                if value is None:
                    s.warn(
                        m.line, f"invalid score `{m.text}` (expected a number 0-10); not counted"
                    )
                    continue
                s.scores.pop(c.author, None)
                s.scores[c.author] = value
        pending[c.author] = [
            Item("PENDING", m.text, c.author, m.line)
            for m in mine
            if m.kind == "PENDING" and m.text.strip().strip(".").lower() not in _MEANINGLESS
        ]
    s.pending_issues = [item for items in pending.values() for item in items]


_RUN_KINDS = engine_kinds(reader="runs")
"""The blocks `rule_runs` reads: ``round``, ``run-stop``, ``escalation``."""


def rule_runs(s: State) -> None:
    """Rounds of the latest run, stops, and an escalation still waiting for a human."""
    registry = s.registry
    marks: list[RunMark] = []
    for m in s.doc.engine_markers:
        if m.kind not in _RUN_KINDS:
            continue
        value, _, rest = m.target.partition("|")
        fields: dict[str, str] = {}
        for part in rest.split("|"):
            key, sep, val = part.partition(":")
            if sep:
                fields[key.strip()] = val.strip()
        mark = RunMark(m.kind, m.line, value.strip(), fields)
        if m.kind == "round":
            marks.append(mark)
        elif m.kind == "run-stop":
            marks.append(mark)
            s.stops.append(mark)
        else:
            s.escalation = mark
    s.runs = group_runs(marks)
    s.rounds = list(s.runs[-1].rounds) if s.runs else []
    if s.escalation is None:
        return
    line = s.escalation.line
    answered = any(
        m.line > line and m.kind in ("phase-transition", "status-change")
        for m in s.doc.engine_markers
    ) or any(
        c.line > line
        and registry.for_author(c.author) is None
        and any(mk.kind in ("VOTE", "DECISION", "SCORE") for mk in c.markers)
        for c in s.comments
    )
    if answered:
        s.escalation = None


def rule_mentions(s: State) -> None:
    """Pending mentions. A participant waits until they comment after the mention; a person
    (no participant of that name) until they comment or the phase moves on; a mention close to
    a participant's alias but matching nobody is a typo, reported and never waited for."""
    registry = s.registry
    last_by_alias: dict[str, int] = {}
    for index, c in enumerate(s.comments):
        for key in registry.author_aliases(c.author):
            last_by_alias[key] = index
    known = set(registry.aliases())
    close_to = CloseAliases(known)  # each distinct unknown mention compared once
    people: set[str] = set()
    for c in s.comments:
        people.update(registry.author_aliases(c.author))
    pending: dict[str, PendingMention] = {}
    reported: set[str] = set()
    for index, c in enumerate(s.comments):
        own = registry.author_aliases(c.author)
        for alias in c.mentions:
            line = c.mention_lines[alias]
            for target in s.participants if alias == "all" else [alias]:
                if target in own or target in pending:
                    continue
                if target not in known and target not in people:
                    close = close_to.closest(target)
                    if close is not None:
                        if target not in reported:
                            reported.add(target)
                            s.mention_typos.append((target, close, line))
                            s.warn(
                                line,
                                f"@{target} matches no participant; did you mean @{close}?",
                                code="mention-typo",
                                subject=f"@{target}",
                                fix=f"@{close}",
                            )
                        continue
                if target not in known and c.line < s.phase_line:
                    continue  # a person mentioned in an earlier phase is not waited for now
                if last_by_alias.get(target, -1) <= index:
                    pending[target] = PendingMention(target, c.author, line)
    s.pending = list(pending.values())


def rule_integrity(s: State) -> None:
    """Comments the engine wrote carry a digest of their text: a comment cut short by an
    interrupted write (or changed afterwards) no longer matches it."""
    marker_lines = [m.line for m in s.doc.engine_markers]
    for c in s.comments:
        recorded = c.meta.get("digest")
        if not recorded or ("provider" in c.meta and not c.forged):
            continue  # an AI's answer not forged: `forgery` found its digest matching
        if recorded != body_digest(own_text(c, marker_lines)):
            cost = (
                "; its votes and markers count for nothing (`git diff` shows the change: undo "
                "it, and put a correction in a comment of your own)"
                if c.forged
                else ""
            )
            s.warn(
                c.line,
                f"comment by {c.author} does not match the digest the engine recorded: it was "
                f"cut short by an interrupted write, or edited after it was written{cost}",
                "error",
            )


def rule_conflicts(s: State) -> None:
    """An error on each merge-conflict line left in the file."""
    for line in conflicts.conflict_lines(s.text):
        s.warn(
            line,
            "unresolved merge-conflict line: `discussions resolve FILE` redoes the merge; "
            "if it says the branches moved phase or status differently, `discussions resolve "
            "--ours-phase FILE` (or --theirs-phase); if both edited one line, edit between "
            "the markers by hand, then `git add FILE`",
            "error",
            code="merge-conflict",
        )


def rule_title(s: State) -> None:
    s.title = s.doc.header.get("title") or ""
    if s.title:
        return
    for raw in s.doc.preamble.split("\n"):
        if raw.startswith(_HEADING_PREFIX):
            heading = raw.lstrip("#")
            if heading[:1] in (" ", "\t") and raw[: len(raw) - len(heading)] == "#":
                s.title = heading.strip().rstrip("#").strip()
                if s.title:
                    return
    s.title = s.path_stem


ITEM_RULES: list[tuple[str, Rule]] = [("governs", rule_governs)]
"""The rules that attach to a comment's items what other lines of the same comment say
(`Item.details`), after the comments rule: `derive` runs them in `RULES`, and the decision
ledger on the comments that hold a decision (`model.ledger`)."""

RULES: list[tuple[str, Rule]] = [
    ("discussion_header", rule_discussion_header),
    ("template", rule_template),
    ("header_phase", rule_header_phase),
    ("engine_markers", rule_engine_markers),
    ("participants", rule_participants),
    ("comments", rule_comments),
    ("citations", rule_citations),
    *ITEM_RULES,
    ("votes", rule_votes),
    ("quorum", rule_quorum),
    ("scores", rule_scores),
    ("runs", rule_runs),
    ("diagnosis", rule_diagnosis),
    ("passes", rule_passes),
    ("motions", rule_motions),
    ("notes", rule_notes),
    ("restatements", rule_restatements),
    ("dissent", rule_dissent),
    ("mentions", rule_mentions),
    ("integrity", rule_integrity),
    ("title", rule_title),
    ("conflicts", rule_conflicts),
    ("evidence", loaded_rule("evidence", blocks="evidence", marker="EVIDENCE")),
    ("drafts", loaded_rule("drafts", blocks="drafts")),
    ("applies", loaded_rule("applies", blocks="applies")),
    ("voters", rule_voters),
    ("first_ballot", rule_first_ballot),
    ("contrarian", rule_contrarian),
    ("positions", rule_positions),
    ("phase_rules", rule_phase_rules),
    ("usage", rule_usage),
    ("retrials", loaded_rule("retrials", blocks="retrials")),
    ("outcomes", loaded_rule("outcomes", marker="OUTCOME")),
    ("choices", loaded_rule("choices", blocks="choices")),
    ("rechecks", loaded_rule("rechecks", blocks="rechecks")),
    ("translated_markers", rule_translated_markers),
]


def derive(
    text: str,
    workspace: Workspace,
    path_stem: str = "",
    extra_warnings: list[ParseWarning] | None = None,
) -> State:
    """Parse `text` and run every rule (with the cyclic garbage collector paused)."""
    with COLLECTOR_PAUSE:
        code: list[CodeLines | None] = []
        doc = parse_document(text, code)
        return derive_parsed(doc, text, workspace, path_stem, extra_warnings, code)


def derive_parsed(
    doc: Document,
    text: str,
    workspace: Workspace,
    path_stem: str = "",
    extra_warnings: list[ParseWarning] | None = None,
    comment_code: list[CodeLines | None] | None = None,
    resume: State | None = None,
) -> State:
    """`derive` of `text` whose parse `doc` the caller has already (an editor's buffer parsed
    again only from the comment an edit is in, `syntax.reparse`); `comment_code`, what the
    parse found of each comment's code lines (`parse.parse_document`), where it has it.
    `resume`: a derivation of an earlier version in the same workspace, whose readings of the
    comments that did not change are taken rather than made again (`readings`)."""
    with COLLECTOR_PAUSE:
        state = State(doc=doc, workspace=workspace, path_stem=path_stem, text=text)
        state.comment_code = comment_code or []
        if resume is not None and resume.workspace is workspace:
            state.readings = list(resume.readings)
        state.warnings = list(extra_warnings or []) + list(doc.warnings)
        for _name, rule in RULES:
            rule(state)
        state.comment_code = []  # read; the state may be kept (an editor's), they need not
        state.warnings.sort(key=lambda w: w.line)
    return state


class _CollectorPause:
    """Pauses Python's cyclic garbage collector while a file is derived; re-entrant and safe
    across threads (the collector is one for the process).

    A long file makes hundreds of thousands of small objects with no cycles among them; the
    collector's passes over them, triggered by the allocations, cost a fifth to a quarter of
    the time. Reference counting frees them as ever; the collector resumes when the last
    derivation ends, if it was on when the first began."""

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._depth = 0
        self._resume = False

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._depth += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._resume:
                gc.enable()


COLLECTOR_PAUSE = _CollectorPause()


# --------------------------------------------------------------------------- helpers


def mention_typos(
    mentioned: list[str], known: set[str], people: Collection[str] = ()
) -> list[tuple[str, str]]:
    """(mention, closest alias) for mentions that match no participant and no person but are
    close to a participant's alias (difflib ratio 0.75 or more): ``@securty`` -> ``security``."""
    found: list[tuple[str, str]] = []
    close_to = CloseAliases(known)
    for name in dict.fromkeys(mentioned):
        if name == "all" or name in known or name in people:
            continue
        close = close_to.closest(name)
        if close is not None:
            found.append((name, close))
    return found
