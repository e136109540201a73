"""Citations in a comment body: what a comment says it rests on in the repository (grounded
votes).

Forms (docs/evidence.md):

* ``src/net.py:12`` (a line), ``src/net.py:12-30`` (a range), ``src/net.py`` (the file): a
  path that looks like one, that is, it has a ``/`` between names and a last name with an
  extension, or it is a file name with a known extension (``net.py``);
* ``\\`retry()\\` in src/net.py``: a function (or class) named in backticks, then ``in``,
  ``of`` or ``from`` and its file;
* a code span right after a citation (``src/net.py:12 \\`return retry(3)\\```) is the snippet
  the cited lines should hold.

Like markers (`markers.extract`), nothing in a fenced or indented code block or on a quoted
line (``> ...``) or an HTML comment line is a citation: it is somebody else's text. Inline
code is quoted text too, except a code span that holds a citation and nothing else
(``\\`src/net.py:12\\```): that is how most writers cite. Pure and linear in the body.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from .code import CodeLines
from .lazyre import Lazy
from .markers import code_spans
from .record import Record

_KNOWN_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "jsx",
        "go",
        "rs",
        "java",
        "kt",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "rb",
        "php",
        "swift",
        "scala",
        "sh",
        "bash",
        "zsh",
        "sql",
        "md",
        "rst",
        "txt",
        "toml",
        "yaml",
        "yml",
        "json",
        "ini",
        "cfg",
        "html",
        "css",
        "scss",
        "vue",
        "lua",
        "pl",
        "r",
        "jl",
        "ex",
        "exs",
        "erl",
        "hs",
        "ml",
        "clj",
        "dart",
        "proto",
        "tf",
        "lock",
        "xml",
        "csv",
    ]
)
"""Extensions a file name without a ``/`` must have to be taken for a path (``net.py``)."""

_NAME = r"[A-Za-z0-9_][\w.+-]*"
_PATH = (
    r"(?<![\w/.:@~\\-])"  # not inside a URL, an address or a longer word
    rf"((?:{_NAME}/)*{_NAME}\.([A-Za-z][A-Za-z0-9]{{0,7}}))"
    r"(?::(\d{1,7})(?:[-–](\d{1,7}))?)?"
    r"(?![\w/-])"
)
_CITATION = Lazy(_PATH)
_SYMBOL = Lazy(r"`([A-Za-z_][\w.:]*)(?:\(\))?`[ \t]+(?:in|of|from)[ \t]+`?" + _PATH + "`?")
_SNIPPET = Lazy(r"[ \t]*(?:[:,—–-][ \t]*)?(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# A quote, an HTML comment (the metadata line, an engine block), an ``EVIDENCE:`` request
# (what a participant asks to read is no claim about what the code holds) or a ``GOVERNS:``
# line (the paths a decision governs, which may not exist yet, are no claim either).
_SKIP_LINE = Lazy(r"[ \t]*(?:>|<!--|(?:[-*+][ \t]+)?(?:\*\*|__)?(?:EVIDENCE|GOVERNS)\b)")
_NEWLINE = Lazy("\n")
_DOT_WORD = Lazy(r"\.(?<=\w\.)(?=[A-Za-z])")  # a literal first: searched fast
_BLANK = Lazy(r"\s")


class Citation(Record):
    """One citation: the file, the lines (0 for the whole file), the symbol and snippet if
    given, and the line of the discussion file it stands on."""

    __slots__ = ("path", "start", "end", "symbol", "snippet", "line")
    path: str
    start: int
    """First cited line (1-based); 0 when the citation names the file alone."""
    end: int
    """Last cited line (``start`` for one line, 0 for the file)."""
    symbol: str
    """The function or class named (``retry``), else ``""``."""
    snippet: str
    """The code quoted right after the citation, else ``""``."""
    line: int

    def __init__(
        self, path: str, start: int, end: int, symbol: str, snippet: str, line: int
    ) -> None:
        self.path, self.start, self.end = path, start, end
        self.symbol, self.snippet, self.line = symbol, snippet, line

    @property
    def text(self) -> str:
        """The citation as one would write it: ``src/net.py:12-30``, ``retry() in src/net.py``."""
        where = self.path
        if self.start:
            where += f":{self.start}" + (f"-{self.end}" if self.end != self.start else "")
        return f"{self.symbol}() in {where}" if self.symbol else where

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "start": self.start,
            "end": self.end,
            "symbol": self.symbol,
            "snippet": self.snippet,
            "line": self.line,
            "text": self.text,
        }


def might_cite(body: str) -> bool:
    """A cheap first look: whether `body` holds a name with an extension (``x.py``) at all,
    one that looks like a path (`_looks_like_path`); most comments hold none. A text none of
    whose lines might cite holds no citation in any of its lines either (each dot is read
    with its word alone, and no word runs over a line's end): `find_citations` of the first
    lines of a body that cannot cite finds nothing."""
    for dot in _DOT_WORD.finditer(body):  # only the word around each dot is read
        at = dot.start()
        start = max(body.rfind(" ", 0, at), body.rfind("\n", 0, at)) + 1
        end = _BLANK.search(body, at)
        word = body[start : end.start() if end else len(body)]
        if any(_looks_like_path(m[1], m[2], m[3]) for m in _CITATION.finditer(word)):
            return True
    return False


def find_citations(body: str, first_line: int = 1) -> list[Citation]:
    """The citations of `body`, whose first line is line `first_line` of the file, in order."""
    if not might_cite(body):
        return []
    layout = _Where(body)
    found: list[tuple[int, Citation]] = []
    taken: list[tuple[int, int]] = []
    for m in _SYMBOL.finditer(body) if "`" in body else ():
        if layout.open_line(m.start()) and _looks_like_path(m.group(2), m.group(3), m.group(4)):
            found.append((m.start(), _citation(body, m, 2, m.group(1), layout)))
            taken.append((m.start(), m.end()))
    for m in _CITATION.finditer(body):
        if any(a <= m.start() < b for a, b in taken) or not _looks_like_path(
            m.group(1), m.group(2), m.group(3)
        ):
            continue
        if layout.prose(m.start()) or layout.whole_span(m.start(), m.end()):
            found.append((m.start(), _citation(body, m, 1, "", layout)))
    found.sort(key=lambda pair: pair[0])
    for _, c in found:
        c.line += first_line - 1
    return [c for _, c in found]


def _looks_like_path(path: str, extension: str, start: str | None) -> bool:
    """Whether a match is a path and not a word with a dot (``e.g``, ``v1.2``): a known
    extension, or a ``/`` in it with a line given or a short extension."""
    if extension.lower() in _KNOWN_EXTENSIONS:
        return True
    return "/" in path and (start is not None or len(extension) <= 4)


def _citation(body: str, m: re.Match[str], group: int, symbol: str, layout: _Where) -> Citation:
    """The `Citation` of a match whose path is group `group` (then its extension, its lines)."""
    start = int(m.group(group + 2)) if m.group(group + 2) else 0
    end = int(m.group(group + 3)) if m.group(group + 3) else start
    after = layout.span_end(m.start(), m.end()) if not symbol else m.end()
    snip = _SNIPPET.match(body, after)
    snippet = snip.group(2).strip() if snip and "\n" not in snip.group(0) else ""
    if snippet and _CITATION.fullmatch(snippet):
        snippet = ""  # the next citation, not a quote
    line = layout.line_of(m.start())
    return Citation(m.group(group), start, max(start, end), symbol, snippet, line)


class _Where:
    """Where a position of a body stands: its line, and whether it is prose (not code, not a
    quoted or HTML comment line)."""

    __slots__ = ("body", "starts", "code", "spans", "span_starts")

    def __init__(self, body: str) -> None:
        self.body = body
        self.starts = [0, *(m.end() for m in _NEWLINE.finditer(body))]
        self.code = CodeLines(body)
        self.spans = code_spans(body) if "`" in body else []
        self.span_starts = [a for a, _ in self.spans]

    def line_of(self, pos: int) -> int:
        """The 1-based line of `pos` in the body."""
        return bisect_right(self.starts, pos)

    def _line(self, pos: int) -> tuple[int, int]:
        rel = bisect_right(self.starts, pos) - 1
        return rel, self.starts[rel]

    def open_line(self, pos: int) -> bool:
        """Whether the line of `pos` is no code block's and not quoted (its spans aside)."""
        rel, start = self._line(pos)
        return _SKIP_LINE.match(self.body, start) is None and not self.code.has(rel, start)

    def _span(self, pos: int) -> tuple[int, int] | None:
        i = bisect_right(self.span_starts, pos) - 1
        return self.spans[i] if i >= 0 and pos < self.spans[i][1] else None

    def prose(self, pos: int) -> bool:
        """Whether `pos` is in prose: no code block or span, no quoted line."""
        return self.open_line(pos) and self._span(pos) is None

    def whole_span(self, start: int, end: int) -> bool:
        """Whether `start`..`end` is all a code span holds (its backticks aside)."""
        span = self._span(start)
        if span is None or not self.open_line(start):
            return False
        inner = self.body[span[0] : span[1]].strip("`")
        return inner.strip() == self.body[start:end]

    def span_end(self, start: int, end: int) -> int:
        """Past the code span that holds `start`, if one does; else `end`."""
        span = self._span(start)
        return span[1] if span is not None else end
