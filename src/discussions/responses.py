"""Reading what a model answered (seed 004, Appendix B), as forgivingly as is safe.

Accepted, in order of preference:

* ``{"comment": "...", "vote": "READY|CHANGES|REJECT|null"}`` bare, in a fenced block, or
  surrounded by prose; with trailing commas or ``//`` / ``/* */`` comments;
* ``{"sentinel": "NO_RESPONSE"}`` (or a bare ``NO_RESPONSE``): nothing to add;
* anything else: the whole text is the comment, and its last valid ``VOTE:`` line the vote.

``VOTE:`` lines are taken out of the comment text and the vote is written once, by the engine,
at the end. An invalid vote value is not a vote; it is reported in `Response.notes`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .markers import extract, normalise_vote

_FENCED = re.compile(
    r"^[ \t]*(```+|~~~+)[ \t]*([A-Za-z0-9_-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S
)
_SENTINEL_ONLY = re.compile(r"^\W*NO_RESPONSE\W*$")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


@dataclass(slots=True)
class Response:
    """A parsed answer."""

    comment: str
    """Comment text (without VOTE lines); empty for no response."""
    vote: str | None = None
    """READY, CHANGES, REJECT or None."""
    no_response: bool = False
    """The participant said it has nothing to add."""
    structured: bool = False
    """The answer was the JSON format (as opposed to free markdown)."""
    notes: list[str] = field(default_factory=list)
    """Things worth telling the user (an invalid vote value, say)."""


def parse_response(text: str) -> Response:
    """Parse a provider's answer. Never raises; never loses the text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if _SENTINEL_ONLY.match(text):
        return Response("", no_response=True, structured=False)
    obj = _find_object(text)
    notes: list[str] = []
    if obj is not None:
        if str(obj.get("sentinel", "")).upper() == "NO_RESPONSE":
            return Response("", no_response=True, structured=True)
        comment = _comment_field(obj)
        raw_vote = obj.get("vote")
        json_vote: str | None = None
        if (
            isinstance(raw_vote, str)
            and raw_vote.strip()
            and raw_vote.strip().lower()
            not in (
                "null",
                "none",
            )
        ):
            json_vote = normalise_vote(raw_vote)
            if json_vote is None:
                notes.append(f"invalid vote '{raw_vote}' ignored")
        elif raw_vote is not None and not isinstance(raw_vote, str):
            notes.append(f"invalid vote {raw_vote!r} ignored")
        body, line_vote, line_notes = _take_vote_lines(comment)
        notes += line_notes
        return Response(body, json_vote or line_vote, structured=True, notes=notes)
    body, vote, notes = _take_vote_lines(text)
    return Response(body, vote, structured=False, notes=notes)


def _comment_field(obj: dict[str, Any]) -> str:
    for key in ("comment", "text", "content", "message", "response"):
        value = obj.get(key)
        if isinstance(value, str):
            return value
    return ""


def _take_vote_lines(text: str) -> tuple[str, str | None, list[str]]:
    """Remove VOTE lines (outside code) from `text`; return (text, last valid vote, notes)."""
    found = extract(text, 1)
    drop = {m.line for m in found.markers if m.kind == "VOTE"}
    notes = []
    for w in found.warnings:
        if w.message.startswith("invalid vote"):
            drop.add(w.line)
            notes.append(w.message.replace("; not counted", "; ignored"))
    vote = found.vote
    if not drop:
        return text.strip(), vote, notes
    lines = [ln for i, ln in enumerate(text.split("\n"), start=1) if i not in drop]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return body, vote, notes


def _find_object(text: str) -> dict[str, Any] | None:
    candidates: list[str] = []
    for m in _FENCED.finditer(text):
        inner = m.group(3).strip()
        if inner.startswith("{"):
            candidates.append(inner)
    if text.startswith("{"):
        candidates.append(text)
    start = text.find("{")
    tries = 0
    while start >= 0 and tries < 20:
        end = _matching_brace(text, start)
        if end is not None:
            candidates.append(text[start : end + 1])
        start = text.find("{", start + 1)
        tries += 1
    for cand in candidates:
        obj = _loads_lenient(cand)
        if isinstance(obj, dict) and ("comment" in obj or "sentinel" in obj):
            return obj
    return None


def _matching_brace(text: str, start: int) -> int | None:
    depth = 0
    in_str = False
    escape = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _strip_comments(text: str) -> str:
    out: list[str] = []
    i = 0
    in_str = False
    while i < len(text):
        ch = text[i]
        if in_str:
            out.append(ch)
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif text.startswith("//", i):
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _loads_lenient(text: str) -> Any:
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        pass
    cleaned = _TRAILING_COMMA.sub(r"\1", _strip_comments(text))
    try:
        return json.loads(cleaned, strict=False)
    except json.JSONDecodeError:
        return None
