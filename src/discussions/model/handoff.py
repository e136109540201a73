"""The hand-off of a decided discussion: what a lead is given to implement (the decisions,
the TODOs with their assignees, the constraints, the evidence cited, the open questions) and
whether a person has approved it. Pure derivation from the discussion's state: no I/O.

    ok, why = is_decided(d)             # why: the reason and what to do next
    forced = forced_reason(d, reason)   # NotDecided unless decided or a --force reason
    ok, why, fix = verdict(d)           # the same, apart
    handoff = build_handoff(d)
    prompt = handoff.to_prompt()        # the instruction text a lead gets
    data = handoff.to_dict()            # the execution-handoff artifact (JSON)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..derive.dissent import Dissent
from ..errors import NotDecided
from ..settings.templates import FINISHED_STATUSES, is_open
from ..syntax.code import code_line_ranges
from ..syntax.text import normalise_newlines
from .handoff_prompt import render_prompt

if TYPE_CHECKING:
    from ..derive.state import Item, Restatement
    from .discussion import Discussion

FORMAT = "discussions-handoff/1"
_NEGATIVE_STATUSES = frozenset({"REJECTED", "ABANDONED", "WITHDRAWN", "UNAPPROVED"})
"""Finished statuses that decide nothing to implement."""
_APPROVAL_STATUSES = ("pending", "approved", "refused")
_MENTION = re.compile(r"(?<![\w@./\\:`-])@([^\W\d_][\w-]*)")
# Greedy, trimmed in code: a lazy group before an optional run and ``$`` backtracks
# quadratically on a long run of spaces and hashes.
_HEADING = re.compile(r"(#{1,6})[ \t]+(.*)")
_PLACEHOLDER = re.compile(r"[ \t]*(?:[-*+][ \t]+(?:\[[ xX]\][ \t]+)?)?\[[^\]\n]*\][ \t]*")
"""A template's unfilled line: ``- [ ] [Requirement 1]``, ``- [Constraint 1]``."""
_QUESTION_HEADINGS = ("open questions", "open question", "questions")
"""Preamble sections read as open questions rather than constraints."""
_LIST_ITEM = re.compile(r"[ ]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(.*)")
_WORDS = re.compile(r"[^\W_]+")


def is_decided(d: Discussion) -> tuple[bool, str]:
    """Whether `d` decided something to implement, and a sentence saying why or why not (and
    what to do next): `verdict`'s parts joined."""
    decided, why, fix = verdict(d)
    return decided, f"{why}; {fix}" if fix else why


def handoff_refusal(d: Discussion) -> str:
    """The sentence that refuses the hand-off of an undecided `d` (``cache.md is not decided:
    the discussion is OPEN and no motion has passed``), without `verdict`'s way past it (an
    apply's ``--force``): the MCP ``handoff`` tool says it as it is, ``export --format
    handoff`` adds its own (``--allow-undecided``)."""
    return f"{d.path.name} is not decided: {verdict(d)[1]}"


def forced_reason(d: Discussion, reason: str | None, what: str = "to apply") -> str:
    """The recorded ``--force --reason`` text ("" when `d` is decided, `is_decided`), or
    `NotDecided` for an undecided discussion without a reason: the one rule `apply` and the
    documentation loop (`draft`) refuse by. `what` says what the decision is needed for
    (``"to apply"``, ``"to document"``)."""
    if reason is not None and not reason.strip():
        raise NotDecided("--force needs --reason TEXT: say why (it is recorded in the file)")
    decided, why = is_decided(d)
    if decided:
        return ""
    if reason is None:
        raise NotDecided(f"{d.path.name} is not decided, so there is nothing {what}: {why}")
    return " ".join(reason.split())


def verdict(d: Discussion) -> tuple[bool, str, str]:
    """(decided, why, what an apply can do about it: ``""`` when nothing). Decided: a
    finished status (`FINISHED_STATUSES` or the template's ``consensus_status``; ``CLOSED``,
    what ``close`` records by default, counts) that is not a refusal (``REJECTED``,
    ``ABANDONED``, ``WITHDRAWN``, ``UNAPPROVED``), or a motion passed while the discussion
    is open, after it was last reopened."""
    status = d.status.strip().upper() or "OPEN"
    template = d.template
    if status in _NEGATIVE_STATUSES:
        return False, f"the discussion ended {status}: nothing was decided to implement", ""
    if status in FINISHED_STATUSES or (template and status == template.consensus_status):
        return True, f"the discussion is {status}", ""
    override = "or override with --force --reason TEXT"
    if not is_open(status, template):
        return (
            False,
            f"the discussion is {status}, which is not a finished status",
            (f"close it with one (`discussions close FILE --status DECIDED`) {override}"),
        )
    since = d.status_changed_line
    passed = [m for m in d.motions if m.result == "passed"]
    current = [m for m in passed if (m.result_line or m.line) > since]
    if current:
        m = current[-1]
        return True, f"a motion passed at line {m.line}: {_one_line(m.text)}", ""
    if passed:
        why = (
            f"the discussion was reopened at line {since}, after the motion of line "
            f"{passed[-1].line} passed"
        )
        return False, why, f"decide again (consensus, or a motion) {override}"
    return (
        False,
        f"the discussion is {status} and no motion has passed",
        (f"reach a decision first (consensus, or a motion), {override}"),
    )


@dataclass(slots=True)
class HandoffItem:
    """A decision, constraint or open question, where the file has it."""

    text: str
    author: str
    line: int
    source: str = ""
    """For constraints: ``context`` (the preamble) or ``concern`` (a ``CONCERN:`` line);
    for decisions: ``decision`` or ``motion``; for questions: ``context`` (the preamble's
    Open Questions section) or ``""`` (a ``Q:`` line)."""
    section: str = ""
    """For ``context`` items: the heading of the preamble section (``""`` before any)."""
    restated: tuple[Restatement, ...] = ()
    """Who said it again and where (`Item.restated`): a restated item is listed once."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "author": self.author, "line": self.line}
        if self.source:
            out["source"] = self.source
        if self.source == "context":
            out["section"] = self.section
        if self.restated:
            out["restated"] = [r.to_dict() for r in self.restated]
        return out


@dataclass(slots=True)
class _HandoffTodo:
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
class _HandoffEvidence:
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
class _Approval:
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
    todos: list[_HandoffTodo] = field(default_factory=list)
    constraints: list[HandoffItem] = field(default_factory=list)
    evidence: list[_HandoffEvidence] = field(default_factory=list)
    questions: list[HandoffItem] = field(default_factory=list)
    approval: _Approval = field(default_factory=_Approval)
    dissent: Dissent = field(default_factory=Dissent)
    """The minority report (`derive.dissent`): the lead reads it before the decisions."""
    folder: str = ""
    """The folder of the discussion file, relative to the project (what the lead must not
    touch); ``""`` when unknown."""

    def approve(self, by: str, at: str) -> None:
        """Record that `by` consented at `at`."""
        self.approval = _Approval("approved", by, at)

    def refuse(self, by: str, at: str) -> None:
        """Record that `by` refused at `at`."""
        self.approval = _Approval("refused", by, at)

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
            "dissent": self.dissent.to_dict(),
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
    known = {i.line for i in decisions} | {r.line for i in d.decisions for r in i.restated}
    decisions += [
        HandoffItem(_one_line(m.text), m.by, m.line, "motion")
        for m in d.motions
        if m.result == "passed" and m.line not in known
    ]
    decisions.sort(key=lambda i: i.line)
    context, asked = _context(d)
    return Handoff(
        title=d.title,
        path=str(d.path),
        status=d.status,
        decided=decided,
        reason=reason,
        decisions=decisions,
        todos=_todos(d),
        constraints=context + [_item(i, "concern") for i in d.concerns],
        evidence=[
            _HandoffEvidence(e.number, e.request, e.ref, e.by, e.line)
            for e in d.evidence
            if e.status in ("fulfilled", "same") and e.number
        ],
        questions=asked + [_item(i, "") for i in d.questions],
        dissent=d.dissent,
        folder=_folder(d),
    )


def _folder(d: Discussion) -> str:
    """The discussion's folder relative to the project root (its name when outside)."""
    parent = d.path.absolute().parent
    root = d.workspace.config.project_root
    if root is not None and parent.is_relative_to(root.absolute()):
        rel = parent.relative_to(root.absolute()).as_posix()
        return "" if rel == "." else rel
    return parent.name


def _item(i: Item, source: str) -> HandoffItem:
    return HandoffItem(i.text, i.author, i.line, source, restated=tuple(i.restated))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _words_of(text: str) -> list[str]:
    """A TODO's or DONE's words, lower case, without its mentions."""
    return [w.lower() for w in _WORDS.findall(_MENTION.sub("", text))]


_END = ""
"""The key marking, in a `_Trie` node, that a DONE's words end there."""
_Trie = dict[str, Any]


def _add(trie: _Trie, words: list[str]) -> None:
    node = trie
    for w in words:
        node = node.setdefault(w, {})
    node[_END] = {}


def _named(trie: _Trie, words: list[str]) -> bool:
    """Whether a DONE in `trie` has exactly `words`, or (three words or more) starts with
    them: ``DONE: write the cache tests in tests/`` names ``TODO: write the cache tests``."""
    node = trie
    for w in words:
        if w not in node:
            return False
        node = node[w]
    return bool(words) and (_END in node or len(words) >= 3)


def _todos(d: Discussion) -> list[_HandoffTodo]:
    """The TODO and ASSIGNED lines, each done when a later DONE line names it (`_named`);
    read from the end, so each DONE is added once and each TODO looked up once."""
    people = d.workspace.participants
    items = sorted([*d.todos, *d.assigned], key=lambda i: i.line)
    dones = sorted(d.done, key=lambda i: i.line)
    later: _Trie = {}
    out: list[_HandoffTodo] = []
    for i in reversed(items):
        while dones and dones[-1].line > i.line:
            _add(later, _words_of(dones.pop().text))
        found = _MENTION.search(i.text)
        assignee = people.author_alias(found.group(1)) if found else None
        out.append(
            _HandoffTodo(i.text, i.author, i.line, assignee, _named(later, _words_of(i.text)))
        )
    out.reverse()
    return out


def _first_line(d: Discussion, preamble: str) -> int:
    """The file line the preamble starts on (it follows the header block)."""
    text = d.text
    offset = text.find(preamble)
    if offset < 0:  # the state reads the text with its newlines normalised
        text = normalise_newlines(text)
        offset = text.find(preamble)
    return text.count("\n", 0, offset) + 1 if offset >= 0 else 1


@dataclass(slots=True)
class _Section:
    name: str
    """The heading's text; ``""`` for text before the first section."""
    line: int
    """The heading's file line (0 for the untitled section: its first line counts)."""
    body: list[tuple[int, str]] = field(default_factory=list)
    """(file line, line) of each line under the heading."""


def _sections(d: Discussion) -> list[_Section]:
    """The preamble's sections: a ``#`` or ``##`` heading that is not in code starts one (the
    title's heading excepted), a ``---`` line that is not in code ends the preamble (the
    template's footer follows), a template's unfilled placeholder line is left out. One
    pass, each line looked at once."""
    preamble = d.preamble
    first = _first_line(d, preamble)
    code = code_line_ranges(preamble)
    title = d.title.strip().lower()
    current = _Section("", 0)
    sections = [current]
    k = 0
    for i, raw in enumerate(preamble.split("\n")):
        while k < len(code) and code[k][1] < i:
            k += 1
        if k < len(code) and code[k][0] <= i:
            current.body.append((first + i, raw))
            continue
        if raw.strip() == "---":
            break
        heading = _HEADING.match(raw.strip())
        if heading and len(heading.group(1)) <= 2:
            name = heading.group(2).rstrip(" \t#").strip()
            if title and heading.group(1) == "#" and name.lower() == title:
                title = ""  # the title's own heading: its text is the title, not a section
                continue
            current = _Section(name, first + i)
            sections.append(current)
        elif not _PLACEHOLDER.fullmatch(raw):
            current.body.append((first + i, raw))
    return sections


def _trimmed(body: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """`body` without its leading and trailing blank lines."""
    start, end = 0, len(body)
    while start < end and not body[start][1].strip():
        start += 1
    while end > start and not body[end - 1][1].strip():
        end -= 1
    return body[start:end]


def _context(d: Discussion) -> tuple[list[HandoffItem], list[HandoffItem]]:
    """The preamble as (constraints, questions): each section with text is one constraint
    item (``source`` ``context``, ``section`` its heading); an Open Questions section gives
    one question per list item (or paragraph)."""
    constraints: list[HandoffItem] = []
    questions: list[HandoffItem] = []
    for section in _sections(d):
        body = _trimmed(section.body)
        if not body:
            continue
        if section.name.lower() in _QUESTION_HEADINGS:
            questions += _questions(section.name, body)
            continue
        text = "\n".join(raw.rstrip() for _, raw in body)
        line = section.line or body[0][0]
        constraints.append(HandoffItem(text, "", line, "context", section.name))
    return constraints, questions


def _questions(name: str, body: list[tuple[int, str]]) -> list[HandoffItem]:
    """An Open Questions section's list items (or paragraphs), one question each."""
    out: list[tuple[int, list[str]]] = []
    open_item = False
    for line, raw in body:
        item = _LIST_ITEM.match(raw)
        if item:
            out.append((line, [item.group(1)]))
        elif not raw.strip():
            open_item = False
            continue
        elif open_item:
            out[-1][1].append(raw)
        else:
            out.append((line, [raw]))
        open_item = True
    return [
        HandoffItem(_one_line(" ".join(parts)), "", line, "context", name)
        for line, parts in out
        if _one_line(" ".join(parts))
    ]
