"""A decision carried into code in the file format: the ``APPLY`` block the engine appends for
each change a lead made (`discussions apply`), and the ``APPLY-REVIEW`` block of each vote on
whether that change implements the decision.

* The apply block, appended after the last comment like an evidence block (the marker is one
  line)::

      <!-- APPLY: 1 | lead: AI-Architect | provider: claude-write |
           branch: discussions/apply/x-1 | base: 4b8e... | commit: 9c1d... | result: committed |
           consented: Rob <rob@example.com> | files: 2 | tests: passed | test: pytest -q |
           duration: 41.2 | digest: 0f3c... | at: 2026-11-24T10:00:00Z -->

      *Apply 1: AI-Architect (claude-write) committed 2 files on discussions/apply/x-1
      (9c1d2e3); tests passed*

      ````text
      3	1	src/app.py
      -	-	logo.png
      2 files changed, 3 insertions(+), 1 deletion(-)

      ...the last lines of the test output (and, on a failure, of the lead's output)...
      ````

  ``result`` is ``committed``, ``unchanged``, ``failed``, ``timeout`` or ``refused-outside``
  (the working tree changed while the lead ran: the lead wrote outside its worktree, or
  someone else wrote there; nothing was committed). ``commit`` (the result
  commit), ``test`` (the test command), ``reason`` (why it failed), ``forced`` (the reason
  given with ``--force``), ``acknowledged`` (open questions acknowledged unanswered) and
  ``worktree`` (the lead's clone, kept after a failure) are left out when empty; ``sandbox``
  (``bubblewrap`` or ``none``: where the lead ran) is absent from blocks written before it
  existed. ``duration`` is in seconds. ``accepted`` and ``rejected`` (the files a person
  accepted and rejected one by one, ``apply --parley``) stand only after a parley, both
  then, even empty; names as in a review's lists.
  The fence always stands: its first ``files`` lines are the diffstat as ``git diff
  --numstat`` prints it (``-`` for a binary file; a backslash and control characters in a
  path are written ``\\\\`` and ``\\xNN``), then a summary line, then, after a blank line, the
  output. ``digest`` is `block_digest` of the marker's fields in canonical form and of the
  fenced content as it stands in the file, so `check` notices an edit of either.

* The review block::

      <!-- APPLY-REVIEW: 1 | revision: 0 | result: changes | commit: 9c1d... | yes: AI-A |
           no: AI-B | abstain: | blockers: 1 | digest: 77aa... | at: 2026-11-24T10:05:00Z -->

      *Review 1 of apply 1: changes requested (yes: AI-A; no: AI-B); 1 blocker*

      ````text
      - the migration is missing
      ````

  The first number is the apply's; ``revision`` is 0 for the first review, then one more for
  each revision the lead made. ``result`` is ``implemented``, ``changes`` or ``unresolved``
  (the last revision allowed was reviewed and blockers remain). The fence stands only when
  there are blockers (one ``- `` line each); ``digest`` (of the fields, and of the fence when
  there is one) always.

Field values are one line (runs of white space become one space) and escape ``&``, ``|`` and
``-->`` (`evidence.escape_field`); names in a list write ``%`` and ``,`` as ``%25`` and
``%2C``. The fenced content is `neutralise`d: untrusted text in it can start no comment and
no marker. A record read back equals the one written, up to these rewrites (`normal_output`
for the output). No control character reaches the file: terminal control sequences are
removed from every text of a record (`syntax.controls`) before it is written.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace

from .controls import strip_controls
from .evidence import content_digest, escape_field, fenced_content, marker_fields
from .fences import fence_block
from .render import neutralise, visible_name

RESULTS = ("committed", "unchanged", "failed", "timeout", "refused-outside")
"""What an apply came to."""

TEST_RESULTS = ("passed", "failed", "not run")
"""What the test command said."""

REVIEW_RESULTS = ("implemented", "changes", "unresolved")
"""What a review of an apply came to."""

NL = "\n"

_FileStat = tuple[str, int | None, int | None]
"""(path, lines added, lines removed); None for a binary file."""


class ApplyFormatError(ValueError):
    """An ``APPLY`` or ``APPLY-REVIEW`` block that cannot be read back (a field missing or
    malformed, the fenced content lost)."""


@dataclass(slots=True)
class ApplyRecord:
    """What the engine records of one apply."""

    number: int
    lead: str
    """The lead's display name (``AI-Architect``)."""
    provider: str
    branch: str
    base: str
    """The commit the branch started from (full id)."""
    commit: str | None
    """The commit made on the branch; None when nothing was committed."""
    consented_by: str
    """Who consented: ``Name <email>``."""
    result: str
    """One of `RESULTS`."""
    files: tuple[_FileStat, ...] = ()
    tests: str = "not run"
    """One of `TEST_RESULTS`."""
    test_command: str = ""
    duration: float = 0.0
    """Seconds the lead (and the tests) took."""
    reason: str = ""
    """Why it failed ("" if it did not)."""
    forced: str = ""
    """The reason given with ``--force`` ("" when the discussion was decided)."""
    acknowledged: int = 0
    """Open questions acknowledged unanswered."""
    worktree: str = ""
    """The worktree kept for inspection after a failure ("" otherwise)."""
    at: str = ""
    output: str = ""
    """The text after the diffstat in the fence: the last lines of the test output and, on a
    failure, of the lead's output."""
    sandbox: str = ""
    """Where the lead ran: ``bubblewrap``, ``none`` (no sandbox), "" (not recorded)."""
    parley: bool = False
    """A person accepted or rejected each changed file (``apply --parley``)."""
    accepted: tuple[str, ...] = ()
    """With `parley`: the files the person accepted (those committed)."""
    rejected: tuple[str, ...] = ()
    """With `parley`: the files the person rejected (put back as they were; not committed)."""


@dataclass(slots=True)
class ApplyReviewRecord:
    """What the engine records of one review vote on an apply."""

    apply: int
    """The number of the ``APPLY`` block reviewed."""
    revision: int
    """0 for the first review, then one more per revision."""
    result: str
    """One of `REVIEW_RESULTS`."""
    commit: str
    """The commit reviewed."""
    yes: tuple[str, ...] = ()
    no: tuple[str, ...] = ()
    abstain: tuple[str, ...] = ()
    blockers: tuple[str, ...] = field(default=())
    """The ``CONCERN:`` texts still open, one line each."""
    at: str = ""


# --------------------------------------------------------------------------- rendering


def render_apply(rec: ApplyRecord) -> str:
    """The ``APPLY`` block for `rec` (see the module docstring), ready to append."""
    _require(rec.result, RESULTS, "result")
    _require(rec.tests, TEST_RESULTS, "tests")
    rec = _without_controls(rec)
    fenced = fence_text(_apply_content(rec))
    fields = [
        str(rec.number),
        f"lead: {escape_field(rec.lead)}",
        f"provider: {escape_field(rec.provider)}",
        f"branch: {escape_field(rec.branch)}",
        f"base: {escape_field(rec.base)}",
    ]
    if rec.commit:
        fields.append(f"commit: {escape_field(rec.commit)}")
    fields += [
        f"result: {rec.result}",
        f"consented: {escape_field(rec.consented_by)}",
        f"files: {len(rec.files)}",
        f"tests: {rec.tests}",
    ]
    fields += _optional(("test", rec.test_command), ("duration", repr(float(rec.duration))))
    fields += _optional(("reason", rec.reason), ("forced", rec.forced))
    fields += _optional(("acknowledged", str(rec.acknowledged or "")), ("worktree", rec.worktree))
    fields += _optional(("sandbox", rec.sandbox))
    if rec.parley:
        fields += [
            f"{k}: {_paths(v)}" for k, v in (("accepted", rec.accepted), ("rejected", rec.rejected))
        ]
    fields.append(f"at: {escape_field(rec.at)}")
    return render_block("APPLY", fields, f"*{apply_sentence(rec, visible_name)}*", fenced)


def render_apply_review(rec: ApplyReviewRecord) -> str:
    """The ``APPLY-REVIEW`` block for `rec` (see the module docstring), ready to append."""
    _require(rec.result, REVIEW_RESULTS, "result")
    blockers = [_one_line(b) for b in rec.blockers]
    fenced = fence_text("\n".join(f"- {b}" for b in blockers)) if blockers else ""
    fields = [
        str(rec.apply),
        f"revision: {rec.revision}",
        f"result: {rec.result}",
        f"commit: {escape_field(rec.commit)}",
        f"yes: {name_field(rec.yes)}",
        f"no: {name_field(rec.no)}",
        f"abstain: {name_field(rec.abstain)}",
        f"blockers: {len(blockers)}",
    ]
    fields.append(f"at: {escape_field(rec.at)}")
    return render_block("APPLY-REVIEW", fields, f"*{review_sentence(rec, visible_name)}*", fenced)


def normal_output(text: str) -> str:
    """`text` as an `ApplyRecord.output` reads back: without control characters, as
    `neutralise` leaves it in a fence, without newlines at its end."""
    return (fenced_content(fence_text(strip_controls(text)).split(NL)) or "").rstrip(NL)


def _without_controls(rec: ApplyRecord) -> ApplyRecord:
    """`rec` with every text but the paths (escaped apart) free of control characters: a
    lead's words, a CLI's error line, reach the file and every view without them."""
    clean = replace(rec)
    for f in fields(rec):
        value = getattr(rec, f.name)
        if isinstance(value, str):
            setattr(clean, f.name, strip_controls(value))
    return clean


def _require(value: str, allowed: tuple[str, ...], name: str) -> None:
    if value not in allowed:
        raise ValueError(f"{name} '{value}' is not one of {', '.join(allowed)}")


def _optional(*pairs: tuple[str, str]) -> list[str]:
    return [f"{key}: {escape_field(value)}" for key, value in pairs if value]


def render_block(kind: str, fields: list[str], visible: str, fenced: str) -> str:
    """The block, its digest (`block_digest`) put before the last field (``at``)."""
    content = (fenced_content(fenced.split(NL)) or "") if fenced else None
    fields.insert(-1, f"digest: {block_digest(' | '.join(fields), content)}")
    lines = [f"<!-- {kind}: {' | '.join(fields)} -->", "", visible, ""]
    if fenced:
        lines += [fenced, ""]
    return NL.join(lines)


def fence_text(content: str) -> str:
    """`content` in a ``text`` fence it cannot close, neutralised (no comment, no marker)."""
    return neutralise(fence_block(content, "text")).rstrip("\n")


def block_digest(args: str, content: str | None) -> str:
    """The digest a block records: of its marker's fields in canonical form (`_canonical_fields`)
    and of its fenced content as it stands in the file (None: the block has no fence)."""
    fenced = "" if content is None else "\n```\n" + content
    return content_digest(_canonical_fields(args) + fenced)


def _canonical_fields(args: str) -> str:
    """A marker's arguments as the digest reads them: the number, then every other field but
    ``digest`` sorted by name, each value unescaped and escaped again, so white space and field
    order do not count and every value does."""
    f = marker_fields(args)
    rest = sorted((k, v) for k, v in f.items() if k not in ("number", "digest"))
    return " | ".join([f["number"], *(f"{k}: {escape_field(v)}" for k, v in rest)])


def _one_line(text: str) -> str:
    return " ".join(text.split())


def name_field(names: tuple[str, ...]) -> str:
    """A list of names as one field value (``%`` and ``,`` in a name escaped)."""
    return escape_field(", ".join(n.replace("%", "%25").replace(",", "%2C") for n in names))


def _apply_content(rec: ApplyRecord) -> str:
    table = [f"{_count(a)}\t{_count(r)}\t{_escape_path(p)}" for p, a, r in rec.files]
    lines = [*table, _summary(rec.files)]
    output = normal_output(rec.output)
    return NL.join(lines + (["", output] if output else []))


def _count(n: int | None) -> str:
    return "-" if n is None else str(n)


def _summary(files: tuple[_FileStat, ...]) -> str:
    if not files:
        return "no files changed"
    added = sum(a or 0 for _, a, _ in files)
    removed = sum(r or 0 for _, _, r in files)
    return (
        f"{_plural(len(files), 'file')} changed, {_plural(added, 'insertion')}(+), "
        f"{_plural(removed, 'deletion')}(-)"
    )


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def apply_sentence(rec: ApplyRecord, name: Callable[[str], str] = str) -> str:
    """What an apply came to in one sentence, as the block's visible line and every view say
    it: ``Apply 1: AI-Architect (claude-write) committed 2 files on B (9c1d2e3); tests
    passed``. `name` shows each recorded value (`visible_name` in the file)."""
    branch = name(rec.branch)
    if rec.result == "committed":
        short = name((rec.commit or "")[:7])
        what = f"committed {_plural(len(rec.files), 'file')} on {branch} ({short})"
    elif rec.result == "unchanged":
        what = f"changed nothing on {branch}"
    elif rec.result == "refused-outside":
        what = f"was refused (something outside its clone changed); nothing committed on {branch}"
    else:
        what = f"{'timed out' if rec.result == 'timeout' else 'failed'} on {branch}"
    notes = [f"tests {rec.tests}"] if rec.tests != "not run" else []
    notes += [name(rec.reason)] if rec.reason else []
    notes += [f"forced: {name(rec.forced)}"] if rec.forced else []
    notes += [f"clone kept at {name(rec.worktree)}"] if rec.worktree else []
    notes += [_confinement(rec.sandbox)] if rec.sandbox else []
    notes += [_parley(rec, name)] if rec.parley else []
    head = f"Apply {rec.number}: {name(rec.lead)} ({name(rec.provider)})"
    return "; ".join([f"{head} {what}", *notes])


def _parley(rec: ApplyRecord, name: Callable[[str], str]) -> str:
    """The sentence's note on a parley: how many files the person accepted, which rejected."""
    rejected = f" ({', '.join(name(p) for p in rec.rejected)})" if rec.rejected else ""
    return f"parley: {len(rec.accepted)} accepted, {len(rec.rejected)} rejected{rejected}"


def _confinement(sandbox: str) -> str:
    """The sentence's note on where the lead ran."""
    return "no sandbox" if sandbox == "none" else f"sandbox: {sandbox}"


def review_sentence(rec: ApplyReviewRecord, name: Callable[[str], str] = str) -> str:
    """What a review of an apply came to in one sentence, as the block's visible line and every
    view say it: ``Review 1 of apply 1: changes requested (yes: AI-A; no: AI-B); 1 blocker``
    (numbered from 1 as people count)."""
    said = {"implemented": "implemented", "changes": "changes requested"}
    result = said.get(rec.result, "unresolved")
    votes = [
        f"{word}: {', '.join(name(n) for n in names)}"
        for word, names in (("yes", rec.yes), ("no", rec.no), ("abstain", rec.abstain))
        if names
    ]
    shown = f" ({'; '.join(votes)})" if votes else ""
    count = len(rec.blockers)
    tail = f"; {_plural(count, 'blocker')}" if count else ""
    return f"Review {rec.revision + 1} of apply {rec.apply}: {result}{shown}{tail}"


def contradictions(rec: ApplyRecord | ApplyReviewRecord) -> list[str]:
    """What a record says that cannot all be true (the engine never writes it so; `check`
    reports each), e.g. a result ``committed`` without a commit."""
    if isinstance(rec, ApplyReviewRecord):
        if rec.result == "implemented" and rec.blockers:
            return [f"says implemented but lists {_plural(len(rec.blockers), 'blocker')}"]
        return []
    found: list[str] = []
    if rec.result == "committed":
        if not rec.commit:
            found.append("says committed but records no commit")
        if not rec.files:
            found.append("says committed but lists no files changed")
    elif rec.commit:
        found.append(f"says {rec.result} but records a commit")
    if rec.result == "unchanged" and rec.files:
        found.append("says it changed nothing but lists files changed")
    if rec.tests != "not run" and not rec.test_command:
        found.append(f"says the tests {rec.tests} but records no test command")
    committed = {p for p, _, _ in rec.files}
    if rec.parley and rec.result == "committed" and set(rec.accepted) != committed:
        found.append("says a person accepted other files than those it committed")
    if set(rec.accepted) & set(rec.rejected):
        found.append("says a file was both accepted and rejected")
    return found


# --------------------------------------------------------------------------- paths

_PATH_ESCAPE = re.compile(r"[\\\x00-\x1f\x7f]")
_PATH_UNESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2})")


def _escape_path(path: str) -> str:
    """A path on one line of the diffstat: a backslash and control characters escaped."""
    return _PATH_ESCAPE.sub(lambda m: "\\\\" if m[0] == "\\" else f"\\x{ord(m[0]):02x}", path)


def _unescape_path(text: str) -> str:
    return _PATH_UNESCAPE.sub(lambda m: "\\" if m[1] == "\\" else chr(int(m[1][1:], 16)), text)


# --------------------------------------------------------------------------- reading


def parse_apply(args: str, content: str | None) -> ApplyRecord:
    """The record an ``APPLY`` marker's arguments and its fenced `content` (as `fenced_content`
    reads it; None when lost) stand for; `ApplyFormatError` saying what is wrong."""
    f = marker_fields(args)
    number = number_field(f, "number", "apply block")
    result = _one_of(f, "result", RESULTS, number)
    tests = _one_of(f, "tests", TEST_RESULTS, number)
    count = number_field(f, "files", f"apply block {number}", zero=True)
    if content is None:
        raise ApplyFormatError(f"apply block {number} has lost its fenced content")
    files, output = _read_content(content, count, number)
    try:
        duration = float(f.get("duration", "0"))
    except ValueError:
        raise ApplyFormatError(f"apply block {number} has a bad duration") from None
    return ApplyRecord(
        number,
        _text(f, "lead", number),
        _text(f, "provider", number),
        _text(f, "branch", number),
        _text(f, "base", number),
        f.get("commit") or None,
        _text(f, "consented", number),
        result,
        files,
        tests,
        f.get("test", ""),
        duration,
        f.get("reason", ""),
        f.get("forced", ""),
        number_field(f, "acknowledged", f"apply block {number}", zero=True, default="0"),
        f.get("worktree", ""),
        f.get("at", ""),
        output,
        f.get("sandbox", ""),
        "accepted" in f or "rejected" in f,
        _read_paths(f.get("accepted", "")),
        _read_paths(f.get("rejected", "")),
    )


def parse_apply_review(args: str, content: str | None) -> ApplyReviewRecord:
    """The record an ``APPLY-REVIEW`` marker's arguments and its fenced `content` (None when
    there is none) stand for; `ApplyFormatError` saying what is wrong."""
    f = marker_fields(args)
    number = number_field(f, "number", "apply review")
    what = f"the review of apply {number}"
    result = f.get("result", "")
    if result not in REVIEW_RESULTS:
        raise ApplyFormatError(f"{what} has an unknown result '{result}'")
    count = number_field(f, "blockers", what, zero=True, default="0")
    blockers: tuple[str, ...] = ()
    if count:
        if content is None:
            raise ApplyFormatError(f"{what} has lost its fenced list of blockers")
        lines = content.split(NL)
        if len(lines) != count or not all(line.startswith("- ") for line in lines):
            raise ApplyFormatError(f"{what} does not list the {count} blockers it records")
        blockers = tuple(line[2:] for line in lines)
    return ApplyReviewRecord(
        number,
        number_field(f, "revision", what, zero=True, default="0"),
        result,
        f.get("commit", ""),
        read_name_field(f.get("yes", "")),
        read_name_field(f.get("no", "")),
        read_name_field(f.get("abstain", "")),
        blockers,
        f.get("at", ""),
    )


def number_field(
    f: dict[str, str], key: str, what: str, zero: bool = False, default: str = ""
) -> int:
    """The whole number of field `key` (0 only with `zero`); `ApplyFormatError` naming `what`
    when it is bad or missing."""
    value = f.get(key, default)
    if not value.isascii() or not value.isdigit() or (not zero and int(value) == 0):
        raise ApplyFormatError(f"{what} has a bad or missing {key} '{value}'")
    return int(value)


def _one_of(f: dict[str, str], key: str, allowed: tuple[str, ...], number: int) -> str:
    value = f.get(key, "")
    if value not in allowed:
        raise ApplyFormatError(
            f"apply block {number} has an unknown {key} '{value}' ({', '.join(allowed)})"
        )
    return value


def _text(f: dict[str, str], key: str, number: int) -> str:
    value = f.get(key, "")
    if not value:
        raise ApplyFormatError(f"apply block {number} has no {key}")
    return value


def _paths(paths: tuple[str, ...]) -> str:
    """Paths as a list field: each escaped as in the diffstat, then as a name."""
    return name_field(tuple(_escape_path(p) for p in paths))


def _read_paths(value: str) -> tuple[str, ...]:
    return tuple(_unescape_path(p) for p in read_name_field(value))


def read_name_field(value: str) -> tuple[str, ...]:
    """The names `name_field` wrote."""
    names = (n.strip() for n in value.split(","))
    return tuple(n.replace("%2C", ",").replace("%25", "%") for n in names if n)


_STAT = re.compile(r"(-|\d+)\t(-|\d+)\t(.*)")


def _read_content(content: str, count: int, number: int) -> tuple[tuple[_FileStat, ...], str]:
    lines = content.split(NL)
    if len(lines) <= count:
        raise ApplyFormatError(f"apply block {number} lists fewer than its {count} files")
    files: list[_FileStat] = []
    for line in lines[:count]:
        m = _STAT.fullmatch(line)
        if m is None:
            raise ApplyFormatError(f"apply block {number} has a bad diffstat line `{line}`")
        files.append((_unescape_path(m[3]), _stat(m[1]), _stat(m[2])))
    return tuple(files), NL.join(lines[count + 2 :])


def _stat(text: str) -> int | None:
    return None if text == "-" else int(text)
