"""The documentation loop (docs/documentation-loop.md): a leader drafts a document from
a decided discussion, the council votes approval, its blockers go back to the leader, who
revises; bounded by ``max_revisions`` (the template's ``output``, `settings.output`).

Everything is written into the discussion, and where the loop stands is read back from it
(`position`), never kept elsewhere, so a loop killed half-way resumes where the file says:

1. No draft yet: the leader is asked for one; its answer is appended as ``DRAFT 1``
   (`syntax.drafts`, with the document's digest).
2. Voters without a vote since the last draft are asked, in parallel (`council.collect`, the
   same calls as ballots): ``VOTE: READY`` or ``VOTE: CHANGES`` with ``CONCERN:`` lines, the
   blockers. The leader drafts; it does not vote on its own document.
3. Every vote READY: the last draft is written to the output's path (atomically, never over a
   different file without `force`) and the status becomes ``APPROVED``. Otherwise, while
   revisions are left, the leader writes the next version with the blockers in its prompt;
   when none are left, ``FILE.doc.unapproved.md`` is written with the open blockers and the
   status becomes ``UNAPPROVED``.
4. The leader writes a closing summary, which ends the loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...atomic import replace_file
from ...derive.dissent import Concern
from ...derive.rules import derive
from ...errors import ConfigError, DocumentExists, OverBudget, UnknownParticipant
from ...model import storage
from ...model.handoff import forced_reason
from ...settings.output import Output, document_path_problem
from ...syntax import clock
from ...syntax.answers import parse_response
from ...syntax.drafts import render_draft
from ...syntax.evidence import fence_span
from ...syntax.fences import fence_block
from ...syntax.text import normalise_newlines
from ..prompt.prompts import build_prompt, prompt_chars
from ..turn.outcomes import ParticipantOutcome, length_cut_note
from .motions import collect, voting_participants

if TYPE_CHECKING:
    from ...derive.drafts import Draft
    from ...model.discussion import Discussion
    from ...settings.participants import Participant
    from ..turn.asking import Asker

APPROVED, UNAPPROVED = "APPROVED", "UNAPPROVED"

DECIDED = "The discussion has reached its decision."
_UNDECIDED = (
    "The discussion has not reached a decision; a person asked for its document anyway "
    "({reason}): record where it stands, and say what is still undecided."
)
_DRAFT_CALLOUT = (
    "{state} You are the leader of its documentation: write "
    "the document that records it ({path}): what was decided, why, and what follows. "
    "Answer with the document only, in markdown, without a vote."
)
_REVISE_CALLOUT = (
    "The council did not approve draft {number} of the document ({path}). Its blockers:\n\n"
    "{blockers}\n\nWrite version {next} of the whole document, resolving every blocker. "
    "Answer with the document only, in markdown, without a vote.\n\n{draft}"
)
# The draft is in the callout itself: the discussion part of a prompt is compacted (newest
# comments, those mentioning the voter first), so a draft at the end of the file can be left
# out of it; the thing under review never is.
_VOTE_CALLOUT = (
    "{leader} wrote draft {number} of the document that records this discussion's decision "
    "({path}); it follows. Vote whether it is ready: READY if it may be published as it is, "
    "CHANGES if not, with each blocker on its own line starting with CONCERN:. Respond with "
    'JSON only: {{"comment": "your reasons and CONCERN: lines", "vote": "READY" | "CHANGES"}}.'
    "\n\n{draft}"
)
_DRAFT_SHARE = 0.5
"""The share of the smallest prompt budget of those asked that a draft in a callout may take."""
_SUMMARY_CALLOUT = (
    "The documentation loop has ended: {result}. Write a short closing summary of the "
    "discussion and its document for the record (two or three sentences), without a vote."
)


@dataclass(slots=True)
class Position:
    """Where the loop stands, read from the file (`position`)."""

    drafts: list[Draft]
    votes: dict[str, str] = field(default_factory=dict)
    """Each voter's latest vote since the last draft."""
    blockers: list[Concern] = field(default_factory=list)
    """The ``CONCERN:`` lines of the latest comment of each voter who voted CHANGES."""
    result: str = ""
    """``APPROVED`` or ``UNAPPROVED`` once recorded after the last draft."""
    summarised: bool = False
    """The leader wrote its closing summary after the result."""


@dataclass(slots=True)
class DocOutcome:
    """What `draft_document` did, and where the loop stands."""

    file: str
    stage: str = "waiting"
    """``approved``, ``unapproved`` or ``waiting`` (a call failed: run `draft` again)."""
    version: int = 0
    written: str = ""
    """The document (approved) or ``FILE.doc.unapproved.md`` written."""
    blockers: list[Concern] = field(default_factory=list)
    asked: list[ParticipantOutcome] = field(default_factory=list)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "stage": self.stage,
            "version": self.version,
            "written": self.written,
            "blockers": [b.to_dict() for b in self.blockers],
            "asked": [o.to_dict() for o in self.asked],
            "note": self.note,
        }


def output_of(d: Discussion) -> Output | None:
    """The template's documentation output, if it declares one."""
    out = d.template.output if d.template else None
    return out if out is not None and out.type == "documentation" else None


def position(d: Discussion, leader: str, voters: list[str]) -> Position:
    """Where the loop stands in `d` (see the module docstring)."""
    pos = Position(d.drafts)
    if not pos.drafts:
        return pos
    last = pos.drafts[-1].line
    latest: dict[str, int] = {}
    for i, c in enumerate(d.comments):
        if c.line > last and c.author in voters and c.vote:
            pos.votes[c.author], latest[c.author] = c.vote, i
    for name in voters:
        if pos.votes.get(name) == "CHANGES":
            c = d.comments[latest[name]]
            concerns = [m for m in c.markers if m.kind == "CONCERN"]
            found = [Concern(name, m.text.strip(), m.line) for m in concerns]
            pos.blockers += found or [Concern(name, "(no CONCERN: given)", c.line)]
    if d.status in (APPROVED, UNAPPROVED) and d.status_changed_line > last:
        pos.result = d.status
        after = d.status_changed_line
        pos.summarised = any(c.author == leader and c.line > after for c in d.comments)
    return pos


def draft_document(
    runner: Asker,
    d: Discussion,
    *,
    leader: str | None = None,
    force: bool = False,
    provider: str | None = None,
    force_reason: str | None = None,
) -> DocOutcome:
    """Run (or resume) the documentation loop on `d` until it ends or a call fails.

    A loop not started yet needs a decided discussion (`handoff.forced_reason`, the rule
    `apply` refuses by: a finished status or a passed motion), or `force_reason`, recorded in
    draft 1; `NotDecided` before any call otherwise. A loop under way resumes whatever the
    status (its own ``APPROVED`` or ``UNAPPROVED`` included)."""
    d.adopt_workspace(runner.workspace)
    d.reload()
    forced = "" if d.drafts else forced_reason(d, force_reason, "to document")
    out = output_of(d) or Output()
    _target(d, out)  # a bad output path is refused before any call
    lead = _leader(d, leader or out.leader)
    voters = [p for p in voting_participants(d) if p.name != lead.name] or [lead]
    runner.check_providers([lead, *voters], provider)  # one that cannot run: before any call
    names = [p.name for p in voters]
    outcome = DocOutcome(str(d.path))
    loop = _Loop(runner, d, out, lead, voters, provider, force, outcome, forced)
    while True:
        d.reload()
        pos = position(d, lead.name, names)
        outcome.version = pos.drafts[-1].number if pos.drafts else 0
        outcome.blockers = pos.blockers
        if pos.result or not loop.step(pos):
            break
    if pos.result:
        outcome.stage = pos.result.lower()
        outcome.written = str(_target(d, out) if pos.result == APPROVED else _unapproved(d))
        if not pos.summarised:
            result = f"the document was {outcome.stage} at draft {outcome.version}"
            outcome.asked += collect(
                runner, d, [lead], _SUMMARY_CALLOUT.format(result=result), provider
            )
    return outcome


@dataclass(slots=True)
class _Loop:
    """One run of the loop: what each step needs."""

    runner: Asker
    d: Discussion
    out: Output
    leader: Participant
    voters: list[Participant]
    provider: str | None
    force: bool
    outcome: DocOutcome
    forced: str = ""
    """The ``--force --reason`` text that started the loop on an undecided discussion."""

    def step(self, pos: Position) -> bool:
        """Take the next step from `pos`; False when nothing moved (a call failed)."""
        if not pos.drafts:
            state = _UNDECIDED.format(reason=self.forced) if self.forced else DECIDED
            return self._draft(1, _DRAFT_CALLOUT.format(state=state, path=self._shown()))
        last = pos.drafts[-1]
        due = [p for p in self.voters if p.name not in pos.votes]
        if due:
            callout = _VOTE_CALLOUT.format(
                leader=self.leader.name,
                number=last.number,
                path=self._shown(),
                draft=self._quoted(last, due),
            )
            view = _under_review(self.d, last)
            self.outcome.asked += collect(self.runner, view, due, callout, self.provider, vote=True)
            self.d.reload()
            now = position(self.d, self.leader.name, [p.name for p in self.voters])
            if len(now.votes) == len(pos.votes):
                self.outcome.note = "no new vote came in; run `discussions draft` again"
                return False
            return True
        if all(v == "READY" for v in pos.votes.values()):
            self._approve(last)
        elif last.number - 1 < self.out.max_revisions:
            blockers = "\n".join(f"- {b.by}: {b.text}" for b in pos.blockers)
            callout = _REVISE_CALLOUT.format(
                number=last.number,
                next=last.number + 1,
                path=self._shown(),
                blockers=blockers,
                draft=self._quoted(last, [self.leader]),
            )
            return self._draft(last.number + 1, callout, _under_review(self.d, last))
        else:
            self._reject(last, pos.blockers)
        return True

    def _quoted(self, draft: Draft, asked: list[Participant]) -> str:
        """`draft` for a callout to `asked`: whole, or cut at a line end to what the smallest
        of their prompts leaves it (`_DRAFT_SHARE`), with the cut stated."""
        runner, d = self.runner, self.d
        room = min(prompt_chars(d, runner.window_for(p, self.provider)) for p in asked)
        return _quote_draft(draft, int(room * _DRAFT_SHARE))

    def _shown(self) -> str:
        return str(_target(self.d, self.out).name)

    def _draft(self, number: int, callout: str, shown: Discussion | None = None) -> bool:
        """Ask the leader for draft `number` and append it; False when no draft came. `shown`:
        the discussion as the prompt shows it (`_under_review`), when not as the file is."""
        d, lead = self.d, self.leader
        refusal = self.runner.budget_refusal(d, [lead], self.provider)
        if refusal is not None:
            raise OverBudget(refusal)
        window = self.runner.window_for(lead, self.provider)
        prompt = build_prompt(shown or d, lead, callout, window=window)[0]
        outcome = ParticipantOutcome(lead.alias, lead.name)
        started = time.monotonic()
        request = self.runner.request_for(lead, prompt, False, d.path)
        text = self.runner.ask(lead, request, self.provider, outcome)
        outcome.duration = time.monotonic() - started
        self.outcome.asked.append(outcome)
        if text is None:
            self.outcome.note = f"{lead.name} wrote no draft; run `discussions draft` again"
            return False
        # No echo is taken out: a revision repeats the lines of the draft shown in its prompt.
        document = parse_response(text).comment.strip()
        if not document:
            outcome.status = "no_response"
            self.outcome.note = f"{lead.name} answered with an empty draft"
            return False
        outcome.status = "posted"
        if outcome.length_cut:  # the reviewers, and whoever approves it, see it is not whole
            document += "\n\n" + length_cut_note(outcome.length_cut)
        forced = self.forced if number == 1 else ""
        block = render_draft(number, lead.name, document, clock.now_stamp(), forced)

        def build(text: str) -> list[str]:
            # Another `draft` may have written this version meanwhile: not twice.
            drafts = derive(text, d.workspace, d.path.stem).drafts
            return [] if any(x.number >= number for x in drafts) else [block]

        storage.locked_append(d.path, build, root=d.workspace.config.base_dir)
        return True

    def _approve(self, last: Draft) -> None:
        target = _target(self.d, self.out)
        document = last.content + "\n"
        same = target.exists() and target.read_text("utf-8", errors="replace") == document
        if target.exists() and not same and not self.force:
            raise DocumentExists(
                f"{target} exists and is not draft {last.number}; nothing was written. "
                "Run `discussions draft FILE --force` to replace it"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_file(target, document, what="the document")
        self._close(APPROVED)

    def _reject(self, last: Draft, blockers: list[Concern]) -> None:
        lines = [last.content, "", "## Open blockers", ""]
        lines += [f"- {b.by}: {b.text} (line {b.line})" for b in blockers]
        replace_file(_unapproved(self.d), "\n".join(lines) + "\n", what="the unapproved document")
        self._close(UNAPPROVED)

    def _close(self, status: str) -> None:
        self.d.reload()
        if self.d.status != status:
            self.d.set_status(status, strict=False)
            self.d.save()


def _quote_draft(draft: Draft, limit: int) -> str:
    """Draft `draft` in a fence, at most about `limit` characters: whole, or its first lines
    and a line saying where it was cut (a reviewer judges what it saw, and knows it)."""
    content = draft.content.rstrip("\n")
    head = f"Draft {draft.number}:"
    if len(content) + len(head) + 20 <= limit:
        return f"{head}\n\n{fence_block(content, 'markdown')}"
    kept = content[: max(0, limit - len(head) - 200)].rsplit("\n", 1)[0]
    note = (
        f"[Draft {draft.number} is cut for lack of room: its first {len(kept)} of "
        f"{len(content)} characters are shown; the rest is in the file (line {draft.line}).]"
    )
    return f"{head}\n\n{fence_block(kept, 'markdown')}\n{note}"


def _under_review(d: Discussion, draft: Draft) -> Discussion:
    """`d` as a prompt that quotes `draft` in its task shows the discussion: the draft's content
    reduced to one line saying where it is (every line number kept), so the prompt does not
    carry the document twice. `d` itself when the block's fence is not found."""
    lines = normalise_newlines(d.text).split("\n")
    span = fence_span(lines, draft.line)
    if span is None:
        return d
    # The block's marker stays (without it the note would read as the text of the comment
    # above, whose digest would then not match: a forged comment, its lines no longer its
    # author's own); its fenced content becomes the note.
    lines[span[0]] = f"[Draft {draft.number} by {draft.by}: quoted under Your task below]"
    for i in range(span[0] + 1, span[1] + 1):
        lines[i] = ""
    return d.seen_as("\n".join(lines))


def _leader(d: Discussion, alias: str) -> Participant:
    """The leader: `alias`, else the discussion's first voting participant."""
    registry = d.workspace.participants
    if alias:
        if alias.lstrip("@") not in registry:
            raise UnknownParticipant(
                f"unknown leader '{alias}'; name a participant (`discussions participants list`)"
            )
        return registry.get(alias.lstrip("@"))
    voters = voting_participants(d)
    if not voters:
        raise UnknownParticipant(
            "the discussion has no voting participant to lead its document; name one with "
            "--leader or in the template's output.leader"
        )
    return voters[0]


def check_output(d: Discussion) -> None:
    """Refuse, before any AI is asked, a template whose document would go where no document
    belongs (`_target`); `run` calls it before its rounds, `draft_document` before its calls."""
    _target(d, output_of(d) or Output())


def _target(d: Discussion, out: Output) -> Path:
    """Where the approved document goes: the output's path (relative to the project
    folder), else ``FILE.doc.md`` next to the discussion. The path as written and the file it
    really reaches (links followed) must both pass `document_path_problem`, stay in the
    project and not be a discussion: checked again just before the write, since an AI's turn
    may have placed a link meanwhile."""
    if not out.path:
        return d.path.with_name(f"{d.path.stem}.doc.md")
    root = d.workspace.config.base_dir.resolve()
    target = (root / out.path).resolve()  # links followed: where the bytes would go
    problem = document_path_problem(out.path)
    if problem is None and not target.is_relative_to(root):
        problem = "leads out of the project"
    if problem is None:
        real = document_path_problem(str(target.relative_to(root)))
        problem = f"leads through a link to a file that {real}" if real else None
    if problem is None and storage.is_discussion_file(target):
        problem = "names a discussion file"
    if problem is not None:
        raise ConfigError(
            f"the template's output.path {out.path!r} {problem}; nothing was asked or written. "
            "The approved document is a markdown file of the project's documentation: give a "
            "relative path such as docs/decision.md"
        )
    return target


def _unapproved(d: Discussion) -> Path:
    return d.path.with_name(f"{d.path.stem}.doc.unapproved.md")
