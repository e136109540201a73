"""Reading what a model answered, as forgivingly as is safe: pure (no I/O, nothing of the
engine), in one pass from the text to a `Response`. The lines that repeat the prompt go
first (`Echo`), then the answer format the prompt asks for, or what real models write
instead, is read (its markers with `markers`).

## The answer

Accepted, in order of preference:

* ``{"comment": "...", "vote": "READY|CHANGES|REJECT|null"}`` bare, in a fenced block, or
  surrounded by prose; with trailing commas or ``//`` / ``/* */`` comments;
* ``{"sentinel": "NO_RESPONSE"}`` (or a bare ``NO_RESPONSE``): nothing to add;
* anything else: the whole text is the comment, and its last valid ``VOTE:`` line the vote.

Lines that repeat the prompt the answer was asked with (`Echo`) are taken out first, of
the text and of the JSON comment: an echo is never a marker, a vote or a pass (an answer that
only repeated its prompt is no answer, `Response.only_echo`).

``VOTE:`` lines are taken out of the comment text and the vote is written once, by the engine,
at the end. An invalid vote value is not a vote; it is reported in `Response.notes`.

## Echoes: lines of the prompt an answer repeats (never its own markers, vote or pass)

Small models often repeat their prompt: the response format, the task, the persona, the
discussion shown to them. One rule says what is an echo: **a line counts as an echo when the
prompt attributes it to someone else or to the engine's instructions; a participant repeating
its own earlier words still means them.** `Echo.drop` takes echoes out before the answer is
read (`parse_response`), for every answer the engine reads (`turn.followup.answer_echo`).

In detail, the participant's own earlier lines are the lines of its comments the engine wrote
(not the forged ones, `signatures.forgery`); a line of the answer is an echo when, once
stripped:

* it is a line of the engine's instructions (a line of the prompt that is not a line of the
  discussion file, so never one of the participant's own) with at least two words (a lone
  ``}`` or ``---`` is never taken for an echo);
* it is marker-shaped (``WORD: text``), not one of its own lines, and its text is the text of
  such a line of the prompt with another keyword (``DONE: a task someone has taken on`` from
  two example lines);
* it is the answer's last line, cut off where the model stopped, and its marker text is the
  start of such a text;
* it is someone else's line of the discussion shown in the prompt (a comment, the proposal)
  with at least `_QUOTE_WORDS` words: a sentence copied word for word is a quotation;
* it belongs to a passage copied from the prompt: lines in a row (blank lines do not break
  it) that are lines of the prompt, with `_MIN_PASSAGE` or more of them neither the engine's
  nor the participant's own, or with such a quoted sentence. The participant's own lines
  inside such a passage (between lines that are not its own) are part of the copy. A short
  line alone, such as ``VOTE: READY`` that someone else also wrote, stays the answer's own;
* or the answer has such lines and its other lines are all short lines of the prompt (a
  heading, a tag): it repeated the prompt and said nothing of its own.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .markers import extract, normalise_ballot, normalise_second, normalise_vote, vote_line_numbers
from .render import neutralise

# -- echoes --------------------------------------------------------------------------------

_WORD = re.compile(r"\w+")
_MARKER_SHAPED = re.compile(r"^[\W_]*?(?:\*\*|__)?([A-Z][A-Z-]*)(?:\*\*|__)?[ \t]*:[ \t]*(.+)$")
_MIN_WORDS = 2
_QUOTE_WORDS = 4
_MIN_CUT_CHARS = 8
_MIN_PASSAGE = 3


def _words(line: str) -> int:
    return len(_WORD.findall(line))


@dataclass(slots=True, frozen=True)
class Echo:
    """What one prompt attributes to whom, to recognise its lines in the answer to it."""

    lines: frozenset[str] = frozenset()
    """The engine's lines (not the discussion's), stripped, of at least two words."""
    examples: frozenset[str] = frozenset()
    """The text after ``WORD:`` of the marker-shaped lines among `lines`."""
    shown: frozenset[str] = frozenset()
    """Every stripped line of the prompt, short ones and the discussion's included."""
    others: frozenset[str] = frozenset()
    """Lines of the discussion the prompt shows that are not the participant's own."""
    own: frozenset[str] = frozenset()
    """The participant's own earlier lines: never an echo."""

    def __bool__(self) -> bool:
        return bool(self.shown)

    def is_echo(self, line: str, last: bool = False) -> bool:
        """Whether `line`, on its own, repeats the prompt (`last`: it may have been cut off)."""
        stripped = line.strip()
        if not stripped or stripped in self.own:
            return False
        if stripped in self.lines or self._quoted(stripped):
            return True
        m = _MARKER_SHAPED.match(stripped)
        if m is None:
            return False
        text = m.group(2).strip()
        if text in self.examples:
            return True
        return (
            last and len(text) >= _MIN_CUT_CHARS and any(e.startswith(text) for e in self.examples)
        )

    def _quoted(self, stripped: str) -> bool:
        """A sentence of someone else's, shown in the prompt, copied word for word."""
        return stripped in self.others and _words(stripped) >= _QUOTE_WORDS

    def drop(self, text: str) -> tuple[str, int]:
        """`text` without the lines that repeat the prompt, and how many were taken out."""
        if not self.shown:
            return text, 0
        lines = text.split("\n")
        last = max((i for i, x in enumerate(lines) if x.strip()), default=-1)
        echoed = {i for i, x in enumerate(lines) if self.is_echo(x, i == last)}
        echoed |= self._passages(lines, echoed)
        kept = [x for i, x in enumerate(lines) if i not in echoed]
        if echoed and all(self._filler(x) for x in kept):
            return "", len(lines)  # what is left is the prompt's headings and tags
        return "\n".join(kept), len(echoed)

    def _filler(self, line: str) -> bool:
        """A blank line, or a short line of the prompt that is not the participant's own."""
        stripped = line.strip()
        return not stripped or (
            stripped in self.shown and stripped not in self.own and _words(stripped) < _MIN_WORDS
        )

    def _passages(self, lines: list[str], echoed: set[int]) -> set[int]:
        """Lines of passages copied from what the prompt shows: runs of lines of the prompt
        (blank lines do not break a run) holding `_MIN_PASSAGE` lines or more of it that are
        neither the engine's (echoes on their own) nor the participant's own, or a sentence of
        someone else's (`_quoted`). A single short line, such as someone's ``VOTE: READY``
        said again, stays the answer's own."""
        found: set[int] = set()
        run: list[int] = []
        for i, line in enumerate([*lines, "\0"]):
            stripped = line.strip()
            if not stripped:
                continue
            if stripped in self.shown or i in echoed:
                run.append(i)
                continue
            found |= self._copied(lines, run, echoed)
            run = []
        return found

    def _copied(self, lines: list[str], run: list[int], echoed: set[int]) -> set[int]:
        """The lines of `run` that repeat the prompt, when it is a passage (`_passages`): its
        lines of someone else's, and the participant's own lines it holds between two lines
        that are not (its own words inside a copy of the prompt are part of the copy; said
        alone, or after its new words, they are meant)."""
        own = [i for i in run if lines[i].strip() in self.own]
        engine = {i for i in run if i in echoed and not self._quoted(lines[i].strip())}
        others = [i for i in run if i not in engine and lines[i].strip() not in self.own]
        if len(others) < _MIN_PASSAGE and not any(self._quoted(lines[i].strip()) for i in others):
            return set()
        outer = [i for i in run if i not in own]
        return set(others) | {i for i in own if outer[0] < i < outer[-1]}


NO_ECHO = Echo()


def prompt_echo(prompt: str, quoted: Iterable[str] = (), own: Iterable[str] = ()) -> Echo:
    """The `Echo` of `prompt`. `quoted`: the lines of the discussion file (the prompt shows
    some of them: the words of their authors, not the engine's); `own`: the lines of the
    participant's own comments among them (its words, which it may repeat and mean)."""
    quoted_lines = {q.strip() for q in quoted}
    own_lines = frozenset(o.strip() for o in own) - {""}
    shown = {x.strip() for x in prompt.split("\n")}
    lines = {s for s in shown if s not in quoted_lines and _words(s) >= _MIN_WORDS}
    examples = set()
    for s in lines:
        m = _MARKER_SHAPED.match(s)
        if m is not None and _words(m.group(2)) >= _MIN_WORDS:
            examples.add(m.group(2).strip())
    others = frozenset(s for s in shown & quoted_lines if s) - own_lines
    return Echo(frozenset(lines), frozenset(examples), frozenset(shown), others, own_lines)


# -- the answer ----------------------------------------------------------------------------

# Every scan below is linear in the answer's length: a model that prints a megabyte of
# garbage costs a megabyte's worth of work, and nothing here raises.
_FENCE_LINE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_SENTINEL_ONLY = re.compile(r"^\W*NO_RESPONSE\W*$")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
# A JSON string (possibly unclosed), a // comment or a /* */ comment (possibly unclosed).
# Each alternative always matches once it has started, so nothing backtracks.
_JSON_PART = re.compile(
    r'"(?:[^"\\]+|\\.)*(?:"|\\?\Z)|//[^\n]*|/\*(?:[^*]+|\*(?!/))*(?:\*/|\Z)', re.S
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_CANDIDATES = 20
_VOTE_ROUNDS = 4


@dataclass(slots=True)
class Response:
    """A parsed answer."""

    comment: str
    """Comment text, already neutralised (`format.neutralise`), without VOTE lines; empty for
    no response. Rendered with `format.render_comment` as it is: the parser then finds
    exactly `vote` in the comment."""
    vote: str | None = None
    """READY, CHANGES, REJECT or None."""
    no_response: bool = False
    """The participant said it has nothing to add."""
    structured: bool = False
    """The answer was the JSON format (as opposed to free markdown)."""
    notes: list[str] = field(default_factory=list)
    """Things worth telling the user (an invalid vote value, say)."""
    action: str = "CONTRIBUTE"
    """The turn action: ``CONTRIBUTE``, ``PASS`` (then `no_response`) or ``CALL_VOTE``."""
    motion: str | None = None
    """What a ``CALL_VOTE`` moves; written once at the end of `comment` as ``MOTION:``."""
    second: str | None = None
    """``yes`` or ``no``; written once at the end of `comment` as ``SECOND:``."""
    ballot: str | None = None
    """``YES``, ``NO`` or ``ABSTAIN``; written once at the end of `comment` as ``BALLOT:``."""
    echoed: int = 0
    """How many lines of the answer repeated the prompt and were left out."""

    @property
    def only_echo(self) -> bool:
        """The answer only repeated its prompt: no comment, no vote, and no pass either (an
        echo is never a pass: the model said nothing)."""
        return bool(self.echoed) and not (self.comment.strip() or self.vote or self.no_response)


ONLY_ECHO = "answered only with lines of its prompt"
"""Why an answer that only repeated its prompt is recorded as no answer (`Response.only_echo`)."""


def parse_response(text: str, echo: Echo = NO_ECHO) -> Response:
    """Parse a provider's answer. Never raises; never loses the text but for the lines that
    repeat the prompt (`echo`, see `echoes.prompt_echo`); what it returns always encodes as
    UTF-8 (lone surrogates become U+FFFD)."""
    text = _SURROGATE.sub("\ufffd", text)
    try:
        response = _parse(text, echo)
    except RecursionError:  # pragma: no cover - a guard; json and markdown-it are bounded
        body = neutralise(text)
        return Response(_strip_blank_ends(body), None, notes=["answer too deeply nested"])
    if response.echoed:
        n = response.echoed
        lines = f"{n} line{'s' if n != 1 else ''}"
        if response.comment.strip() or response.vote:
            response.notes.append(f"{lines} repeating the prompt left out")
        else:
            response.notes.append(f"the answer only repeated the prompt ({lines} left out)")
    return response


def _parse(text: str, echo: Echo) -> Response:
    text, echoed = echo.drop(text.replace("\r\n", "\n").replace("\r", "\n"))
    text = text.strip()
    if _SENTINEL_ONLY.match(text):
        return Response("", no_response=True, structured=False)
    obj = _find_object(text)
    notes: list[str] = []
    if obj is not None:
        if _clean(str(obj.get("sentinel", ""))).upper() == "NO_RESPONSE":
            return Response("", no_response=True, structured=True)
        comment, inner = echo.drop(_clean(_comment_field(obj)))
        echoed += inner
        raw_vote = obj.get("vote")
        json_vote: str | None = None
        if isinstance(raw_vote, str) and raw_vote.strip().lower() not in ("", "null", "none"):
            json_vote = normalise_vote(raw_vote)
            if json_vote is None:
                notes.append(f"invalid vote '{_clean(raw_vote)}' ignored")
        elif raw_vote is not None and not isinstance(raw_vote, str):
            notes.append(f"invalid vote {_clean(repr(raw_vote)[:80])} ignored")
        comment += _score_lines(obj, notes)
        comment += _diagnosis_lines(obj, notes)
        comment += _evidence_lines(obj, notes)
        body, line_vote, line_notes = _take_vote_lines(comment)
        notes += line_notes
        response = Response(
            body, json_vote or line_vote, structured=True, notes=notes, echoed=echoed
        )
        return _council(response, obj)
    body, vote, notes = _take_vote_lines(text)
    return _council(Response(body, vote, structured=False, notes=notes, echoed=echoed), {})


_ANSWER_KEYS = ("comment", "sentinel", "action", "second", "ballot")
_COUNCIL_KINDS = ("MOTION", "SECOND", "BALLOT")


def _council(response: Response, obj: dict[str, Any]) -> Response:
    """Turn actions (``action``, ``motion``, ``second``, ``ballot`` fields, or ``MOTION:`` /
    ``SECOND:`` / ``BALLOT:`` lines in the text): the lines are taken out of the comment and
    written once at its end, the last of each kind (a JSON field wins over a line)."""
    found = extract(response.comment, 1)
    lines = {m.line: m for m in found.markers if m.kind in _COUNCIL_KINDS}
    values = {m.kind: m.text for m in lines.values()}
    if lines:
        response.comment = _strip_blank_ends(neutralise(_drop_lines(response.comment, set(lines))))
    action = _clean(str(obj.get("action") or "")).strip().upper().replace(" ", "_")
    if action in ("PASS", "CONTRIBUTE", "CALL_VOTE"):
        response.action = action
    elif action:
        response.notes.append(f"unknown action '{action[:40]}' ignored")
    for key in ("motion", "second", "ballot"):
        value = obj.get(key)
        if isinstance(value, str) and value.strip():
            values[key.upper()] = _clean(value)
        elif isinstance(value, bool) and key == "second":
            values["SECOND"] = "yes" if value else "no"
    if response.action == "PASS" and not values:
        return Response(
            "", no_response=True, structured=True, notes=response.notes, echoed=response.echoed
        )
    motion = " ".join(values.get("MOTION", "").split())[:300]
    if motion:
        response.motion = motion
        response.action = "CALL_VOTE"
    elif response.action == "CALL_VOTE":
        response.notes.append("CALL_VOTE without a motion ignored")
        response.action = "CONTRIBUTE"
    if "SECOND" in values:
        response.second = normalise_second(values["SECOND"])
        if response.second is None:
            response.notes.append(f"invalid second '{values['SECOND'][:40]}' ignored")
    if "BALLOT" in values:
        response.ballot = normalise_ballot(values["BALLOT"])
        if response.ballot is None:
            response.notes.append(f"invalid ballot '{values['BALLOT'][:40]}' ignored")
    extra = [f"MOTION: {motion}"] if motion else []
    extra += [f"SECOND: {response.second}"] if response.second else []
    extra += [f"BALLOT: {response.ballot}"] if response.ballot else []
    if extra:
        response.comment = neutralise(
            (response.comment + "\n\n" if response.comment else "") + "\n".join(extra)
        )
    return response


def _clean(value: str) -> str:
    return _SURROGATE.sub("\ufffd", value)


def _score_lines(obj: dict[str, Any], notes: list[str]) -> str:
    """``consensus_score`` and ``pending_issues`` JSON fields (TheRoundtAIble's format) as the
    ``SCORE:`` / ``PENDING:`` lines the file records; nothing when absent."""
    lines: list[str] = []
    score = obj.get("consensus_score", obj.get("score"))
    if isinstance(score, int | float) and not isinstance(score, bool) and math.isfinite(score):
        lines.append(f"SCORE: {max(0, min(10, int(score)))}")
    elif score is not None:
        notes.append(f"invalid score {_clean(repr(score)[:40])} ignored")
    pending = obj.get("pending_issues")
    if isinstance(pending, str):
        pending = [pending]
    if isinstance(pending, list):
        for item in pending[:50]:
            if isinstance(item, str) and item.strip():
                lines.append("PENDING: " + " ".join(_clean(item).split())[:300])
    return "\n\n" + "\n".join(lines) if lines else ""


def _diagnosis_lines(obj: dict[str, Any], notes: list[str]) -> str:
    """``root_cause_key`` and ``confidence`` JSON fields as ``ROOT-CAUSE:`` / ``CONFIDENCE:``
    lines, written as given (on one line) so that the parser normalises the key and reports
    what it cannot read; nothing when absent."""
    lines: list[str] = []
    key = obj.get("root_cause_key")
    if isinstance(key, str) and key.strip():
        lines.append("ROOT-CAUSE: " + " ".join(_clean(key).split())[:200])
    elif key is not None:
        notes.append(f"invalid root_cause_key {_clean(repr(key)[:40])} ignored")
    confidence = obj.get("confidence")
    if isinstance(confidence, int | float) and not isinstance(confidence, bool):
        lines.append(f"CONFIDENCE: {confidence:g}")
    elif isinstance(confidence, str) and confidence.strip():
        lines.append("CONFIDENCE: " + " ".join(_clean(confidence).split())[:40])
    elif confidence is not None:
        notes.append(f"invalid confidence {_clean(repr(confidence)[:40])} ignored")
    return "\n\n" + "\n".join(lines) if lines else ""


def _evidence_lines(obj: dict[str, Any], notes: list[str]) -> str:
    """The ``"evidence"`` field of a JSON answer as ``EVIDENCE:`` lines to add to the comment."""
    value = obj.get("evidence")
    if value is None:
        return ""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        notes.append("evidence field ignored: not a list of requests")
        return ""
    requests = [" ".join(str(x).split()) for x in items if isinstance(x, str) and x.strip()]
    return "".join(f"\n\nEVIDENCE: {r[:300]}" for r in requests)


def _comment_field(obj: dict[str, Any]) -> str:
    for key in ("comment", "text", "content", "message", "response"):
        value = obj.get(key)
        if isinstance(value, str):
            return value
    return ""


def _take_vote_lines(text: str) -> tuple[str, str | None, list[str]]:
    """Neutralise `text`, then take its VOTE lines (outside code) out; return (text, last
    valid vote, notes). Taking lines out can change what is code (a line that was part of a
    paragraph no longer is), so this repeats on the result until no VOTE line is left; the
    text returned, rendered as a comment, holds no vote of its own."""
    text = neutralise(text)
    vote: str | None = None
    notes: list[str] = []
    for _ in range(_VOTE_ROUNDS):
        found = extract(text, 1)
        drop = {m.line for m in found.markers if m.kind == "VOTE"}
        for w in found.warnings:
            if w.message.startswith("invalid vote"):
                drop.add(w.line)
                notes.append(w.message.replace("; not counted", "; ignored"))
        if not drop:
            break
        vote = found.vote or vote
        text = neutralise(_drop_lines(text, drop))
    else:
        # Still VOTE lines after several rounds (a crafted answer): drop every line that
        # looks like one, code or not.
        text = neutralise(_drop_lines(text, set(vote_line_numbers(text))))
    return _strip_blank_ends(text), vote, notes


def _drop_lines(text: str, drop: set[int]) -> str:
    """`text` without its lines numbered in `drop` (1-based), and without the blank line
    that would be left doubled where one was taken out."""
    kept: list[str] = []
    after_drop = False
    for i, line in enumerate(text.split("\n"), start=1):
        if i in drop:
            after_drop = True
            continue
        blank = not line.strip(" \t")
        if after_drop and blank and (not kept or not kept[-1].strip(" \t")):
            continue
        if not blank:
            after_drop = False
        kept.append(line)
    return "\n".join(kept)


def _strip_blank_ends(text: str) -> str:
    """Blank lines off both ends; the first line keeps its indentation (an indented first
    line is code, and must stay code)."""
    lines = text.rstrip().split("\n")
    first = 0
    while first < len(lines) - 1 and not lines[first].strip(" \t"):
        first += 1
    return "\n".join(lines[first:]) if lines[first].strip(" \t") else ""


def _find_object(text: str) -> dict[str, Any] | None:
    candidates = [inner for inner in _fenced_blocks(text) if inner.startswith("{")]
    if text.startswith("{"):
        candidates.append(text)
    candidates += [text[a : b + 1] for a, b in _brace_objects(text)]
    for cand in candidates:
        if not any(key in cand for key in _ANSWER_KEYS):
            continue  # cheap: a candidate without such a key can never be the answer
        obj = _loads_lenient(cand)
        if isinstance(obj, dict) and any(key in obj for key in _ANSWER_KEYS):
            return obj
    return None


def _fenced_blocks(text: str) -> list[str]:
    """The insides (stripped) of fenced blocks: an opening line ```` ```lang ```` and the next
    line that is the same fence alone. One pass, plus a binary search per opening line."""
    lines = text.split("\n")
    fences: list[str | None] = []
    closers: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        m = _FENCE_LINE.match(line)
        fences.append(m.group(1) if m else None)
        if m and not line[m.end() :].strip(" \t"):
            closers.setdefault(m.group(1), []).append(i)
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        run = fences[i]
        if run is not None:
            candidates = closers.get(run, [])
            k = bisect_right(candidates, i)
            if k < len(candidates):
                j = candidates[k]
                blocks.append("\n".join(lines[i + 1 : j]).strip())
                i = j + 1
                continue
        i += 1
    return blocks


def _brace_objects(text: str) -> list[tuple[int, int]]:
    """(start, end) of balanced ``{...}`` spans, by start, for the first few ``{`` outside
    JSON strings: one pass with a stack. Quotes count only inside braces (as in JSON); a
    quote in the prose around an object is just a character."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    opened = 0
    pos = 0
    while True:
        if not stack:
            pos = text.find("{", pos)
            if pos < 0 or opened >= _MAX_CANDIDATES:
                break
            stack.append(pos)
            opened += 1
            pos += 1
            continue
        m = _IN_OBJECT.search(text, pos)
        if m is None:
            break
        pos = m.end()
        if m.group(0) == "{":
            stack.append(m.start())
            opened += 1
        elif m.group(0) == "}":
            spans.append((stack.pop(), m.start()))
    spans.sort()
    return spans[:_MAX_CANDIDATES]


# Inside an object: a brace, or a whole JSON string (possibly unclosed) whose braces are text.
_IN_OBJECT = re.compile(r'[{}]|"(?:[^"\\]+|\\.)*(?:"|\\?\Z)', re.S)


def _strip_comments(text: str) -> str:
    """``//`` and ``/* */`` comments out of JSON-ish text, strings left alone."""
    return _JSON_PART.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)


def _loads_lenient(text: str) -> Any:
    try:
        return json.loads(text, strict=False)
    except (ValueError, RecursionError):
        pass
    cleaned = _TRAILING_COMMA.sub(r"\1", _strip_comments(text))
    try:
        return json.loads(cleaned, strict=False)
    except (ValueError, RecursionError):
        return None
