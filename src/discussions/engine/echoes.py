"""Lines the engine wrote into a prompt, and an answer read without the ones a model echoes.

Small models often repeat their prompt: the response format, the task, the persona. A line the
engine put in the prompt is never a marker, a vote or a pass when it comes back in an answer:
`Echo.drop` takes such lines out before the answer is read (`responses.parse_response`).

What counts as an echo of the prompt:

* a line that is, once stripped, exactly a line of the prompt the engine wrote (not a line
  of the discussion file shown in it: a model that repeats ``VOTE: READY`` from someone's
  comment gives that vote itself), with at least two words (a lone ``}`` or ``---`` is never
  taken for an echo);
* a marker-shaped line (``WORD: text``) whose text is the text of such a line of the prompt
  with another keyword (``DONE: a task someone has taken on`` from two example lines);
* the answer's last line, cut off where the model stopped, when its marker text is the start
  of such a text;
* three lines or more in a row that are lines of the prompt, the discussion's included (a
  passage copied from the prompt; a single line, such as someone's ``VOTE: READY``, stays);
* an answer with such lines whose other lines are all short lines of the prompt (a heading,
  a tag): it repeated the prompt and said nothing of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_WORD = re.compile(r"\w+")
_MARKER_SHAPED = re.compile(r"^[\W_]*?(?:\*\*|__)?([A-Z][A-Z-]*)(?:\*\*|__)?[ \t]*:[ \t]*(.+)$")
_MIN_WORDS = 2
_MIN_CUT_CHARS = 8
_MIN_PASSAGE = 3


@dataclass(slots=True, frozen=True)
class Echo:
    """The lines of one prompt that the engine wrote, to recognise them in its answer."""

    lines: frozenset[str] = frozenset()
    """Stripped lines of at least two words."""
    examples: frozenset[str] = frozenset()
    """The text after ``WORD:`` of the marker-shaped lines among `lines`."""
    shown: frozenset[str] = frozenset()
    """Every stripped line of the prompt, short ones and the discussion's included."""

    def __bool__(self) -> bool:
        return bool(self.lines)

    def is_echo(self, line: str, last: bool = False) -> bool:
        """Whether `line` repeats the prompt (`last`: it may have been cut off)."""
        stripped = line.strip()
        if not stripped:
            return False
        if stripped in self.lines:
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

    def drop(self, text: str) -> tuple[str, int]:
        """`text` without the lines that repeat the prompt, and how many were taken out."""
        if not self.lines:
            return text, 0
        lines = text.split("\n")
        last = max((i for i, x in enumerate(lines) if x.strip()), default=-1)
        echoed = {i for i, x in enumerate(lines) if self.is_echo(x, i == last)}
        echoed |= self._passages(lines, echoed)
        kept = [x for i, x in enumerate(lines) if i not in echoed]
        if echoed and all(
            x.strip() in self.shown and len(_WORD.findall(x)) < _MIN_WORDS for x in kept
        ):
            return "", len(lines)  # what is left is the prompt's headings and tags
        return "\n".join(kept), len(echoed)

    def _passages(self, lines: list[str], echoed: set[int]) -> set[int]:
        """Lines of passages copied from the prompt's discussion: `_MIN_PASSAGE` or more lines
        in a row found in the prompt (blank lines and lines of the engine's own between
        them do not break a passage). A single line, such as someone's ``VOTE: READY``
        repeated, stays the answer's own."""
        found: set[int] = set()
        run: list[int] = []
        for i, line in enumerate([*lines, "\0"]):
            if not line.strip() or i in echoed:
                continue
            if line.strip() in self.shown:
                run.append(i)
                continue
            if len(run) >= _MIN_PASSAGE:
                found.update(run)
            run = []
        return found


NO_ECHO = Echo()


def prompt_echo(prompt: str, quoted: Iterable[str] = ()) -> Echo:
    """The `Echo` of `prompt`: its lines of two words or more, except those in `quoted` (the
    lines of the discussion file the prompt shows, which stay an answer's own words)."""
    quoted_lines = {q.strip() for q in quoted}
    shown = {x.strip() for x in prompt.split("\n")}
    lines = {s for s in shown if s not in quoted_lines and len(_WORD.findall(s)) >= _MIN_WORDS}
    examples = set()
    for s in lines:
        m = _MARKER_SHAPED.match(s)
        if m is not None and len(_WORD.findall(m.group(2))) >= _MIN_WORDS:
            examples.add(m.group(2).strip())
    return Echo(frozenset(lines), frozenset(examples), frozenset(shown))
