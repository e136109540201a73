"""The fence that closes a code block left open at the end of a text, found with string methods
only: the merge driver's fast path (`git.plain`) asks it of every appended comment and must not
import `re`; `fences` (the engine's side) answers with this function too."""

from __future__ import annotations


class FencePairs:
    """Fence lines at the top level paired as CommonMark pairs them, taken in order
    (`fence`): an opening fence of three or more backticks or tildes (a backtick fence whose
    info string holds no backtick), closed by a fence of the same character at least as long
    with nothing after it. The one walk of `open_fence_at_end` and of `syntax.code`'s
    `fenced_line_ranges` and `top_fences`; here, with no ``re``, for the merge driver's fast
    path."""

    __slots__ = ("ranges", "open_run", "open_line")

    def __init__(self) -> None:
        self.ranges: list[tuple[int, int]] = []
        """The closed blocks so far: 0-based inclusive line ranges, fences included."""
        self.open_run = ""
        """The run of the fence that opened the block still open (``""``: none is)."""
        self.open_line = 0

    def fence(self, line: int, run: str, info: str) -> bool:
        """Take the fence line `line` (its `run` of backticks or tildes, then `info`); whether
        it opens a block."""
        if self.open_run:
            if run[0] == self.open_run[0] and len(run) >= len(self.open_run) and not info.strip():
                self.ranges.append((self.open_line, line))
                self.open_run = ""
            return False
        if run[0] == "`" and "`" in info:
            return False
        self.open_run, self.open_line = run, line
        return True

    def end(self, last: int) -> list[tuple[int, int]]:
        """The ranges, a block still open running to line `last`."""
        if self.open_run:
            return [*self.ranges, (self.open_line, last)]
        return self.ranges


def open_fence_at_end(text: str) -> str | None:
    """The fence that would close a code block left open at the end of `text`, if any. A fence
    line (`fences.FENCE_LINE`): at most three spaces, then three or more backticks or tildes
    (its run), then its info string; a run of the open fence's character, at least as long,
    with a blank info string closes it; a backtick fence's info string holds no backtick."""
    if "```" not in text and "~~~" not in text:
        return None  # no run of three: no fence line
    pairs = FencePairs()
    for line in text.split("\n"):
        found = _fence(line)
        if found is not None:
            pairs.fence(0, *found)
    return pairs.open_run or None


def _fence(line: str) -> tuple[str, str] | None:
    """The run and the info string of a fence line, else None."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or rest[:1] not in ("`", "~"):
        return None
    size = len(rest) - len(rest.lstrip(rest[0]))
    if size < 3:
        return None
    return rest[:size], rest[size:]
