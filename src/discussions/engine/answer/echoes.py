"""Lines of a prompt that an answer repeats: never the answer's own markers, vote or pass.

Small models often repeat their prompt: the response format, the task, the persona, the
discussion shown to them. One rule says what is an echo: **a line counts as an echo when the
prompt attributes it to someone else or to the engine's instructions; a participant repeating
its own earlier words still means them.** `Echo.drop` takes echoes out before the answer is
read (`responses.parse_response`), for every answer the engine reads (`answer_echo`).

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

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...model.discussion import Discussion

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


def answer_echo(prompt: str, d: Discussion, author: str) -> Echo:
    """The `Echo` of `prompt`, built from discussion `d` for the participant signing `author`:
    the file's lines are the discussion's, and the lines of the comments the engine wrote for
    `author` (not the forged ones, `signatures.forgery`) are its own."""
    own = [x for c in d.comments if c.author == author and not c.forged for x in c.body.split("\n")]
    return prompt_echo(prompt, d.text.split("\n"), own)
