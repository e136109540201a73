"""The hand-off of a decided discussion: what a lead is given to implement (the decisions,
the TODOs with their assignees, the constraints, the evidence cited, the open questions) and
whether a person has approved it. Pure derivation from the discussion's state: no I/O.

    ok, why = is_decided(d)
    handoff = build_handoff(d)
    prompt = handoff.to_prompt()        # the instruction text a lead gets
    data = handoff.to_dict()            # the execution-handoff artifact (JSON)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..settings.templates import OPEN_STATUSES
from .handoff_prompt import render_prompt
from .ledger import is_settled

if TYPE_CHECKING:
    from ..derive.state import Item
    from .discussion import Discussion

FORMAT = "discussions-handoff/1"
NEGATIVE_STATUSES = frozenset({"REJECTED", "ABANDONED", "WITHDRAWN", "UNAPPROVED"})
"""Finished statuses that decide nothing to implement."""
APPROVAL_STATUSES = ("pending", "approved", "refused")
_MENTION = re.compile(r"(?<![\w@./\\:`-])@([^\W\d_][\w-]*)")
# Greedy, trimmed in code: a lazy group before an optional run and ``$`` backtracks
# quadratically on a long run of spaces and hashes.
_HEADING = re.compile(r"#{1,6}[ \t]+(.*)")
_PLACEHOLDER = re.compile(r"[ \t]*(?:[-*+][ \t]+(?:\[[ xX]\][ \t]+)?)?\[[^\]\n]*\][ \t]*")
"""A template's unfilled line: ``- [ ] [Requirement 1]``, ``- [Constraint 1]``."""
_CONSTRAINT_HEADINGS = ("context", "constraints", "requirements")
_WORDS = re.compile(r"[^\W_]+")


def is_decided(d: Discussion) -> tuple[bool, str]:
    """Whether `d` decided something to implement, and a sentence saying why or why not: a
    finished status that is not a refusal (``REJECTED``, ``ABANDONED``, ``WITHDRAWN``,
    ``UNAPPROVED``), or a passed motion."""
    status = d.status.strip().upper()
    initial = d.template.status if d.template else "OPEN"
    if status in NEGATIVE_STATUSES:
        return False, f"the discussion ended {status}: nothing was decided to implement"
    if status not in OPEN_STATUSES and is_settled(status, initial):
        return True, f"the discussion is {status}"
    passed = [m for m in d.motions if m.result == "passed"]
    if passed:
        m = passed[-1]
        return True, f"a motion passed at line {m.line}: {_one_line(m.text)}"
    return False, (
        f"the discussion is {status or 'OPEN'} and no motion has passed; reach a decision "
        "first (consensus, or a motion), or override with --force --reason TEXT"
    )


@dataclass(slots=True)
class HandoffItem:
    """A decision, constraint or open question, where the file has it."""

    text: str
    author: str
    line: int
    source: str = ""
    """For constraints: ``context`` (the preamble) or ``concern`` (a ``CONCERN:`` line);
    for decisions: ``decision`` or ``motion``."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "author": self.author, "line": self.line}
        if self.source:
            out["source"] = self.source
        return out


@dataclass(slots=True)
class HandoffTodo:
    """A ``TODO:`` or ``ASSIGNED:`` line: who it is for (its first ``@mention``), and whether
    a ``DONE:`` line names it."""

    text: str
    author: str
    line: int
    assignee: str | None = None
    done: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "author": self.author,
            "line": self.line,
            "assignee": self.assignee,
            "done": self.done,
        }


@dataclass(slots=True)
class HandoffEvidence:
    """An evidence block the discussion cites: what was read, at which version."""

    number: int
    request: str
    ref: str
    by: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "request": self.request,
            "ref": self.ref,
            "by": self.by,
            "line": self.line,
        }


@dataclass(slots=True)
class Approval:
    """Whether a person consented to the hand-off: ``pending`` until someone does."""

    status: str = "pending"
    """``pending``, ``approved`` or ``refused``."""
    by: str = ""
    """Who answered (``Name <email>``)."""
    at: str = ""
    """When (UTC stamp)."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "by": self.by or None, "at": self.at or None}


@dataclass(slots=True)
class Handoff:
    """What a lead gets from a decided discussion (see the module docstring)."""

    title: str
    path: str
    status: str
    decided: bool
    reason: str
    """`is_decided`'s sentence."""
    decisions: list[HandoffItem] = field(default_factory=list)
    todos: list[HandoffTodo] = field(default_factory=list)
    constraints: list[HandoffItem] = field(default_factory=list)
    evidence: list[HandoffEvidence] = field(default_factory=list)
    questions: list[HandoffItem] = field(default_factory=list)
    approval: Approval = field(default_factory=Approval)

    def approve(self, by: str, at: str) -> None:
        """Record that `by` consented at `at`."""
        self.approval = Approval("approved", by, at)

    def refuse(self, by: str, at: str) -> None:
        """Record that `by` refused at `at`."""
        self.approval = Approval("refused", by, at)

    def words(self) -> set[str]:
        """The lower-case words of the decisions and open TODOs (what a lead is matched on)."""
        texts = [i.text for i in self.decisions] + [t.text for t in self.todos if not t.done]
        return {w.lower() for text in texts for w in _WORDS.findall(text)}

    def to_dict(self) -> dict[str, Any]:
        """The execution-handoff artifact, as JSON-ready data."""
        return {
            "format": FORMAT,
            "title": self.title,
            "file": self.path,
            "status": self.status,
            "decided": self.decided,
            "reason": self.reason,
            "decisions": [i.to_dict() for i in self.decisions],
            "todos": [t.to_dict() for t in self.todos],
            "constraints": [i.to_dict() for i in self.constraints],
            "evidence": [e.to_dict() for e in self.evidence],
            "open_questions": [i.to_dict() for i in self.questions],
            "approval": self.approval.to_dict(),
        }

    def to_prompt(self) -> str:
        """The instruction text the lead gets: what to implement, where, and what not to do."""
        return render_prompt(self)


def build_handoff(d: Discussion) -> Handoff:
    """The hand-off of `d` as the file stands (decided or not: `decided` and `reason` say)."""
    decided, reason = is_decided(d)
    # A passed motion is one of the state's decisions already (`derive.motions`).
    moved = {m.line for m in d.motions if m.result == "passed"}
    decisions = [_item(i, "motion" if i.line in moved else "decision") for i in d.decisions]
    known = {i.line for i in decisions}
    decisions += [
        HandoffItem(_one_line(m.text), m.by, m.line, "motion")
        for m in d.motions
        if m.result == "passed" and m.line not in known
    ]
    decisions.sort(key=lambda i: i.line)
    return Handoff(
        title=d.title,
        path=str(d.path),
        status=d.status,
        decided=decided,
        reason=reason,
        decisions=decisions,
        todos=_todos(d),
        constraints=_context(d) + [_item(i, "concern") for i in d.concerns],
        evidence=[
            HandoffEvidence(e.number, e.request, e.ref, e.by, e.line)
            for e in d.evidence
            if e.status in ("fulfilled", "same") and e.number
        ],
        questions=[_item(i, "") for i in d.questions],
    )


def _item(i: Item, source: str) -> HandoffItem:
    return HandoffItem(i.text, i.author, i.line, source)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _key(text: str) -> str:
    """A TODO's text compared with ``DONE:`` lines: words only, lower case, no mentions."""
    return " ".join(w.lower() for w in _WORDS.findall(_MENTION.sub("", text)))


def _todos(d: Discussion) -> list[HandoffTodo]:
    done = [_key(i.text) for i in d.done]
    out: list[HandoffTodo] = []
    for i in sorted([*d.todos, *d.assigned], key=lambda i: i.line):
        found = _MENTION.search(i.text)
        key = _key(i.text)
        finished = bool(key) and any(key == k or (len(key) > 8 and key in k) for k in done)
        assignee = found.group(1).lower() if found else None
        out.append(HandoffTodo(i.text, i.author, i.line, assignee, finished))
    return out


def _context(d: Discussion) -> list[HandoffItem]:
    """The preamble's Context / Constraints / Requirements sections, one item each (the
    whole preamble when it has no heading at all)."""
    preamble = d.preamble
    sections: list[tuple[str, str, list[str]]] = []
    for raw in preamble.splitlines():
        if raw.strip() == "---":
            break  # the template's footer ("Discussion begins below")
        heading = _HEADING.match(raw.strip())
        if heading:
            sections.append((heading.group(1).rstrip(" \t#").strip(), raw, []))
        elif sections and not _PLACEHOLDER.fullmatch(raw):
            sections[-1][2].append(raw)
    lines = d.text.splitlines()
    items = [
        HandoffItem("\n".join(body).strip(), "", _line_of(lines, raw), "context")
        for name, raw, body in sections
        if name.lower() in _CONSTRAINT_HEADINGS and "\n".join(body).strip()
    ]
    if items or sections:
        return items
    text = preamble.strip()
    first = text.splitlines()[0] if text else ""
    return [HandoffItem(text, "", _line_of(lines, first), "context")] if text else []


def _line_of(lines: list[str], raw: str) -> int:
    """The 1-based line of the first line equal to `raw` (the preamble comes first)."""
    for n, line in enumerate(lines, 1):
        if line.strip() == raw.strip():
            return n
    return 0
