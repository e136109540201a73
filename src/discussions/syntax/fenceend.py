"""The fence that closes a code block left open at the end of a text, found with string methods
only: the merge driver's fast path (`git.plain`) asks it of every appended comment and must not
import `re`; `fences` (the engine's side) answers with this function too."""

from __future__ import annotations


def open_fence_at_end(text: str) -> str | None:
    """The fence that would close a code block left open at the end of `text`, if any. A fence
    line (`fences.FENCE_LINE`): at most three spaces, then three or more backticks or tildes
    (its run), then its info string; a run of the open fence's character, at least as long,
    with a blank info string closes it; a backtick fence's info string holds no backtick."""
    if "```" not in text and "~~~" not in text:
        return None  # no run of three: no fence line
    open_run = ""
    for line in text.split("\n"):
        found = _fence(line)
        if found is None:
            continue
        run, info = found
        if open_run:
            if run[0] == open_run[0] and len(run) >= len(open_run) and not info.strip():
                open_run = ""
        elif not (run[0] == "`" and "`" in info):
            open_run = run
    return open_run or None


def _fence(line: str) -> tuple[str, str] | None:
    """The run and the info string of a fence line, else None."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or rest[:1] not in ("`", "~"):
        return None
    size = len(rest) - len(rest.lstrip(rest[0]))
    if size < 3:
        return None
    return rest[:size], rest[size:]
