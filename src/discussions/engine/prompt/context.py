"""The discussion as one participant's prompt shows it, within a character budget.

A discussion with no more comments than `_recent_for` (a round's worth) that fits is shown as
the file is. Past that, the prompt stays about the size of a round's, however long the file
grows: the comments may add `_growth_for` (``context.growth``, default 0.45) times the size of
the prompt without them. The budget goes in this order of priority:

1. the proposal: the header and the text before the first comment (the introduction);
2. the state of the discussion, derived from every comment the participant may see: the
   mentions of this participant since its latest comment, where each participant stands (its
   current vote, score and pending issues, and latest comment), the open motions, the
   decisions, the open questions, the concerns and the root causes named; all
   of it, whatever the growth allowance (only the character budget can shorten it);
3. the newest comments in full (at most `_recent_for`; first those that mention this
   participant since its latest comment), one that is too long for what is left cut to fit;
4. older comments as one line each, newest first (at most `_digest_for`); the oldest are then
   only counted, their markers being in the state above.

A note says what was left out. In blind or anonymous phases everything is taken from the
participant's view (`visibility.view_for`).

What a prompt never shows (`for_the_prompt`): the file's header fields (its ``Phase:`` and
``Status:`` are those of the day it was created; the prompt states the current phase), the
calls that failed (``FAILED`` blocks, and the ``failed:`` entries of the metadata lines: a
provider's error output, up to hundreds of tokens, that no participant can act on), and the
comments' metadata lines.

A compact context (``compact``, for small windows: `prompts`) is the proposal and the newest
comments, with neither the state of the discussion nor the digest of older comments.
"""

from __future__ import annotations

import re

from ...derive.restatements import item_key
from ...derive.signatures import strip_meta
from ...model.discussion import Comment, Discussion
from ...settings.participants import Participant
from ...syntax.meta import comment_meta_line
from ...syntax.record import Record
from ...syntax.text import normalise_newlines
from .visibility import view_for

_STATE_HEADING = "## State of the discussion (derived from every comment; line numbers of the file)"
_POSITIONS = "Where each participant stands (current vote, latest comment):"
_MOTIONS = "Motions waiting for a result:"
_DECISIONS = "Decisions:"
_QUESTIONS = "Open questions:"
_CONCERNS = "Concerns:"
_DEFAULT_GROWTH = 0.45
_STATE_ITEMS = (
    (_DECISIONS, "DECISION"),
    (_QUESTIONS, "Q"),
    (_CONCERNS, "CONCERN"),
    ("Root causes named:", "ROOT-CAUSE"),
)
_PROPOSAL_SHARE = 0.85
_ITEM_CHARS = 200
_NOTE_ROOM = 200
_MIN_ROOM = 0.5
"""However long the state, the comments keep this share of their allowance (when the
character budget leaves it: the state comes first)."""
_CUT_MIN = 400
_LINE_MIN = 40
"""The least room in which the newest comment is shown cut rather than as one line."""
_HEADER = re.compile(r"\A(?:[ ]{0,3}<!--[^\n]*-->[ \t]*\n)+(?:[ \t]*\n)*")
"""The file's header fields, one HTML comment a line at its start."""
_FAILED = re.compile(
    r"^[ ]{0,3}<!--[ \t]*FAILED[ \t]*:[^\n]*-->[ \t]*\n(?:[ \t]*\n)*"
    r"(?:\*[^\n]*got no answer[^\n]*\*[ \t]*\n?)?",
    re.M,
)
"""A failed call's block: its engine line and the visible line under it (`failures`)."""
_EMPTY_SECTIONS = re.compile(r"^---[ \t]*\n(?:[ \t]*\n)*(?=---[ \t]*$)", re.M)
_BLANK_RUNS = re.compile(r"\n{3,}")


def for_the_prompt(text: str) -> str:
    """`text` (the file, its introduction or a comment) without what a prompt never shows
    (module docstring): the header fields, failed calls, metadata lines."""
    text = _FAILED.sub("", _HEADER.sub("", text))
    lines = text.split("\n")
    kept = [line for line in lines if comment_meta_line([line]) is None]
    text = _EMPTY_SECTIONS.sub("", "\n".join(kept))
    return _BLANK_RUNS.sub("\n\n", text)


class Context(Record):
    """The discussion as shown to one participant.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = (
        "text", "full_comments", "digested_comments", "omitted_comments", "truncated_preamble",
        "state_lines",
    )  # fmt: skip
    text: str
    full_comments: int
    digested_comments: int
    omitted_comments: int
    truncated_preamble: bool
    state_lines: int
    """Lines of the state of the discussion shown (0: none, the file is shown whole)."""

    def __init__(
        self,
        text: str,
        full_comments: int,
        digested_comments: int,
        omitted_comments: int,
        truncated_preamble: bool,
        state_lines: int = 0,
    ) -> None:
        self.text = text
        self.full_comments = full_comments
        self.digested_comments = digested_comments
        self.omitted_comments = omitted_comments
        self.truncated_preamble = truncated_preamble
        self.state_lines = state_lines

    @property
    def complete(self) -> bool:
        return not (self.digested_comments or self.omitted_comments or self.truncated_preamble)


def _setting(d: Discussion, key: str, default: int) -> int:
    value = d.workspace.config.section("context").get(key, default)
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return default


def _recent_for(d: Discussion) -> int:
    """``context.recent_comments``: comments shown in full (default: one per participant of
    the discussion, at least 3)."""
    return _setting(d, "recent_comments", max(3, len(d.participants)))


def _digest_for(d: Discussion) -> int:
    """``context.digest_comments``: older comments listed one line each (default: twice
    `_recent_for`)."""
    return _setting(d, "digest_comments", 2 * _recent_for(d))


def _render(c: Comment) -> str:
    """A comment in full, without the engine's metadata line (provider, duration, digest) and
    what else a prompt never shows (`for_the_prompt`)."""
    return f"---\n\nName: {c.author}\n\n{for_the_prompt(strip_meta(c.body)).strip()}\n"


def _short(text: str, limit: int = _ITEM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _digest_line(c: Comment) -> str:
    """One line for an older comment: who, its vote, its mentions, its first line of prose
    (its markers are in the state)."""
    head = f"- line {c.line}, {c.author}"
    if c.vote:
        head += f", vote {c.vote}"
    if c.mentions:
        head += ", to " + " ".join("@" + a for a in c.mentions)
    return f"{head}: {c.summary or '(no text)'}"


def _head(text: str, comments: list[Comment]) -> str:
    """The header and the introduction: the text before the first comment."""
    first_comment_line = comments[0].line - 2 if comments else text.count("\n") + 1
    lines = text.split("\n")[: max(first_comment_line - 1, 0)]
    return "\n".join(lines).rstrip() + "\n"


def _mentioning(comments: list[Comment], p: Participant) -> list[int]:
    """Indexes of the comments that mention `p` after its own latest comment."""
    mine = [i for i, c in enumerate(comments) if c.author == p.name]
    since = mine[-1] + 1 if mine else 0
    return [i for i in range(since, len(comments)) if p.alias in comments[i].mentions]


def state_lines(d: Discussion, p: Participant, comments: list[Comment], viewed: bool) -> list[str]:
    """The state of the discussion for `p`, from `comments` (what `p` may see); `viewed`:
    `comments` is a blind or anonymous view, so the file's own votes and motions are not
    used."""
    lines: list[str] = []
    asked = _mentioning(comments, p)
    if asked:
        lines.append(f"Mentions of you (@{p.alias}) since your latest comment:")
        lines += [f"- line {comments[i].line}, {comments[i].author}" for i in asked]
    lines += _positions(d, p, comments, viewed)
    motions = [] if viewed else [m for m in d.motions if m.result == "open"]
    if motions:
        lines.append(_MOTIONS)
        for motion in motions:
            by = f"moved by {motion.by}, line {motion.line}"
            if motion.seconded_by:
                by += f"; seconded by {', '.join(motion.seconded_by)}"
            lines.append(f"- {_short(motion.text)} ({by})")
    for heading, kind in _STATE_ITEMS:
        # The same item raised again is listed once (`restatements.item_key`, as every view).
        items: dict[str, tuple[str, list[str]]] = {}
        for c in comments:
            for m in c.markers:
                if m.kind == kind:
                    said = items.setdefault(item_key(m.text) or m.text, (_short(m.text), []))
                    said[1].append(f"{c.author}, line {m.line}")
        if items:
            lines.append(heading)
            lines += [f"- {text} ({_places(where)})" for text, where in items.values()]
    return lines


def _positions(d: Discussion, p: Participant, comments: list[Comment], viewed: bool) -> list[str]:
    """Where each author stands: current vote and score, the pending issues of its latest
    comment, and where that comment is."""
    latest: dict[str, Comment] = {}
    for c in comments:
        latest[c.author] = c
    if not latest:
        return []
    lines = [_POSITIONS]
    votes = {} if viewed else d.votes
    scores = {} if viewed else d.scores
    for author, c in latest.items():
        vote = votes.get(author) or (c.vote if viewed else None) or "no vote"
        score = f", score {scores[author]}" if author in scores else ""
        who = f"{author} (you)" if author == p.name else author
        lines.append(f"- {who}: {vote}{score}, latest comment at line {c.line}")
        pending = [m.text for m in c.markers if m.kind == "PENDING"]
        lines += [f"  - pending issue: {_short(text)}" for text in pending]
    return lines


def _places(where: list[str]) -> str:
    """Where an item was raised: the first time, and the latest with a count between."""
    if len(where) <= 2:
        return "; ".join(where)
    return f"{where[0]}; again {len(where) - 1} times, latest {where[-1]}"


def _fit_lines(lines: list[str], budget: int) -> list[str]:
    """As many of `lines` as fit in `budget` characters, in order."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    return kept


def _shorten(text: str, budget: int, what: str) -> tuple[str, bool]:
    """`text` cut at a line end to fit `budget`, saying that the rest of `what` was left out."""
    if len(text) <= budget:
        return text, False
    cut = text[: max(0, budget - 60)].rsplit("\n", 1)[0]
    return cut + f"\n[... rest of {what} left out ...]\n", True


def _growth_for(d: Discussion) -> float:
    """``context.growth``: what the comments may add to a prompt, as a share of its size
    without them (the frame and the proposal; default 0.45)."""
    value = d.workspace.config.section("context").get("growth", _DEFAULT_GROWTH)
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return _DEFAULT_GROWTH


class _Shown(Record):
    """Which comments the context shows, and how."""

    __slots__ = ("full", "digest", "cut", "omitted")

    def __init__(self) -> None:
        self.full: dict[int, str] = {}
        self.digest: dict[int, str] = {}
        self.cut = 0
        self.omitted = 0


def build_context(
    d: Discussion, participant: Participant, max_chars: int, frame: int = 0, compact: bool = False
) -> Context:
    """The discussion part of `participant`'s prompt, at most about `max_chars` long, its
    comments adding at most `_growth_for` times the size of the prompt without them (`frame`,
    the rest of the prompt, and the proposal); `compact`: the proposal and the newest comments
    only. See the module docstring."""
    view = view_for(d, participant)  # blind or anonymous phases: what this participant sees
    raw = view.text if view else normalise_newlines(d.text)
    comments = view.comments if view else d.comments
    text, head = for_the_prompt(raw), for_the_prompt(_head(raw, comments))
    allowance = int(_growth_for(d) * (frame + len(head)))
    whole = max_chars if compact else min(max_chars, len(head) + allowance)
    if len(comments) <= _recent_for(d) and len(text) <= whole:
        return Context(text, len(comments), 0, 0, False)
    avail = max(0, max_chars - _NOTE_ROOM)
    share = int(avail * _PROPOSAL_SHARE) if comments else avail
    head, truncated = _shorten(head, share, "the introduction")
    avail -= len(head)
    every = [] if compact else state_lines(d, participant, comments, view is not None)
    state = _fit_lines(every, avail - len(_STATE_HEADING) - 1)
    state_text = "\n".join([_STATE_HEADING, *state]) + "\n" if state else ""
    avail -= len(state_text)
    room = max(allowance - len(state_text) - _NOTE_ROOM, int(allowance * _MIN_ROOM))
    room = avail if compact else room  # a small window: the comments get what it leaves
    digested = 0 if compact else _digest_for(d)
    shown = _choose(comments, participant, min(avail, room), _recent_for(d), digested)
    note = _note(shown, len(comments), truncated, len(every) - len(state), not compact)
    out = [head, "\n" + note + "\n"]
    if state_text:
        out.append("\n" + state_text)
    if shown.digest:
        out.append("\nDigest of older comments:\n")
        out += [shown.digest[i] + "\n" for i in sorted(shown.digest)]
    out += ["\n" + shown.full[i] for i in sorted(shown.full)]
    return Context(
        "".join(out), len(shown.full), len(shown.digest), shown.omitted, truncated, len(state)
    )


def _choose(
    comments: list[Comment], p: Participant, budget: int, recent: int, digested: int
) -> _Shown:
    """Newest first (those mentioning `p` since its latest comment before all): up to
    `recent` comments in full, one that is too long for what is left of `budget` cut to fit;
    then up to `digested` as a digest line each; the rest omitted."""
    order = [*reversed(_mentioning(comments, p))]
    order += [i for i in range(len(comments) - 1, -1, -1) if i not in order]
    shown = _Shown()
    used = 0
    for n, i in enumerate(order):
        left = budget - used
        if left < _LINE_MIN:  # nothing more fits: the rest is counted, not rendered
            shown.omitted += len(order) - n
            break
        full = _render(comments[i])
        if len(shown.full) < recent and len(full) + 1 <= left:
            shown.full[i] = full
        elif len(shown.full) < recent and left >= _CUT_MIN:
            shown.full[i], _ = _shorten(full, left - 1, f"comment at line {comments[i].line}")
            shown.cut += 1
        elif len(shown.digest) < digested and len(_digest_line(comments[i])) + 1 <= left:
            shown.digest[i] = _digest_line(comments[i])
        else:
            shown.omitted += 1
            continue
        used += len(shown.full.get(i) or shown.digest[i]) + 1
    return shown


def _note(shown: _Shown, total: int, truncated: bool, state_cut: int, state: bool) -> str:
    """What the context shows of the discussion, and what it leaves out (`state`: the state
    of the discussion is shown)."""
    text = f"[Context: {len(shown.full)} of {total} comments in full, the newest"
    if shown.cut:
        text += f" ({shown.cut} of them shortened)"
    if shown.digest:
        text += f"; {len(shown.digest)} older ones as one line each"
    if shown.omitted:
        where = " (their markers are in the state below)" if state else ""
        text += f"; {shown.omitted} not shown{where}"
    if state_cut:
        text += f"; {state_cut} lines of the state left out for lack of room"
    if truncated:
        text += "; the introduction was shortened"
    return text + ".]"
