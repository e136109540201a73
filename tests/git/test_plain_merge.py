"""The merge driver's fast path without `re` (`git.plain`) and the command git runs it with
(``python -I -S .../discussions/git/mergefile.py``, `setup.driver_command`): where it answers,
the bytes are the block merge's (`driver.merge_versions`), byte for byte; where it declines,
nothing is written and the full driver merges; the rules it reads with string methods read
as the regular expressions of the block merge (and those it replaced) do."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discussions
from discussions.git.driver import merge_file, merge_versions, merge_whole
from discussions.git.drivercheck import (
    DRIVER_SCRIPT_P,
    driver_warning,
    registered_entry,
    registered_python,
)
from discussions.git.merge import CLEAN
from discussions.git.plain import (
    head_name,
    is_separator,
    merge_plain_file,
    order_key,
    plain_end,
    said,
)
from discussions.git.setup import driver_command
from discussions.git.units import SEPARATOR
from discussions.syntax.clock import parse_stamp, utc_stamp
from discussions.syntax.digest import sha256_hex
from discussions.syntax.fenceend import open_fence_at_end
from discussions.syntax.fences import FENCE_LINE
from discussions.syntax.stamps import header_comment, meta_inner, recorded_stamp

from ..support.git import FILE, comment, commit_all, git, markers_present, start_discussion
from .test_merge import BASE, TIMES, ai, append, human

ENTRY = Path(discussions.__file__).parent / "git" / "mergefile.py"

# --------------------------------------------------------------------------- random appends

# Each list repeats what the tool writes, so most examples are the usual merge.
LINE_END = st.sampled_from(["---\n"] * 6 + ["--- \n", "---\t \n"])
STAMP = st.sampled_from([*TIMES[:3], *TIMES[:3], "2026-11-23T10:00:00+00:00", "yesterday", None])
EXTRA = ["", "\n\n```py\nx()\n```"] * 8 + ["\n\n```py\nopen"] * 3 + ["\n\n---\n\nmore", " ROUND"]
HEAD = ["\n"] * 24 + ["", "\n\n", " \n"]


@st.composite
def a_comment(draw: st.DrawFn, side: str) -> str:
    """A comment as a side appends it: mostly as the tool writes one, sometimes as a hand
    types it (no blank line before ``Name:``, a horizontal rule inside, a code block left
    open, an engine block's name, the other side's very words)."""
    author = draw(st.sampled_from(["Ann", "Bob", " Zoë ", "AI-Architect"]))
    stamp = draw(STAMP)
    token = draw(st.sampled_from(["shared", *(f"{side}-{i}" for i in range(19))]))
    meta = "" if stamp is None else f"<!-- at: {stamp} -->\n\n"
    extra = draw(st.sampled_from(EXTRA))
    head = draw(st.sampled_from(HEAD))
    return f"{head}Name: {author}\n\n{meta}Comment {token}.{extra}\n\n{draw(LINE_END)}"


def appended(side: str) -> st.SearchStrategy[str]:
    return st.lists(a_comment(side), max_size=4).map("".join)


BASES = [BASE] * 6 + [BASE + "\nName: Hand\n\nleft open\n", BASE.replace("\n", "\r\n")]


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BASES), appended("o"), appended("t"), st.sampled_from([False] * 7 + [True]))
def test_the_fast_path_merges_as_the_whole_files_do(
    base_text: str, added_o: str, added_t: str, crlf: bool
) -> None:
    """Random appends on both sides: wherever the fast path answers, its bytes are the whole
    merge's (clean), whichever side is ours; through the files git hands over, it writes them,
    or declines and writes nothing."""
    if crlf:
        added_o = added_o.replace("\n", "\r\n")
    base, a_o, a_t = base_text.encode(), added_o.encode(), added_t.encode()
    for x, y in ((a_o, a_t), (a_t, a_o)):
        whole = merge_whole(base, base + x, base + y)
        assert merge_versions(base, base + x, base + y)[1] == whole[1]
        fast = plain_end(base, x, y)
        if fast is not None:
            assert whole[0].status == CLEAN
            assert base + fast == whole[1]
        assert plain_driven(base, base + x, base + y) == (
            (True, whole[1]) if fast is not None else (False, base + x)
        )


def plain_driven(base: bytes, ours: bytes, theirs: bytes) -> tuple[bool, bytes]:
    """Whether the fast path merged the files git hands it, and what it left in ours."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp, name) for name in ("base.md", "ours.md", "theirs.md")]
        for path, data in zip(paths, (base, ours, theirs), strict=True):
            path.write_bytes(data)
        done = merge_plain_file(*paths)
        return done, paths[1].read_bytes()


def test_the_usual_appends_take_the_fast_path() -> None:
    """Comments as the tool writes them, some with closed code blocks, some timed: answered,
    as the whole merge answers."""
    ours = append(BASE, human("Ann", "TOKEN-o1", "```py\nx()\n```", at=2), ai("AI-X", "TOKEN-o2"))
    theirs = append(BASE, human("Bob", "TOKEN-t1", vote="READY", at=1))
    data = [t.encode() for t in (BASE, ours, theirs)]
    fast = plain_end(data[0], data[1][len(data[0]) :], data[2][len(data[0]) :])
    assert fast is not None
    assert data[0] + fast == merge_whole(*data)[1]


@pytest.mark.parametrize(
    "theirs_block",
    [
        human("Bob", "TOKEN-t1", "```py\nleft open"),  # a code block left open: a parse
        "\n<!-- PHASE-TRANSITION: initial_feedback -> detailed_review -->\n\n---\n",
        human("Ann", "TOKEN-o1"),  # the same comment on both sides: written once
    ],
    ids=["open-fence", "engine-block", "shared-comment"],
)
def test_the_fast_path_declines_and_the_full_driver_merges(
    tmp_path: Path, theirs_block: str
) -> None:
    """What the fast path does not handle is declined (nothing written); the command git runs
    then merges through the full driver, as `merge_file` does."""
    ours = append(BASE, human("Ann", "TOKEN-o1"))
    theirs = append(BASE, human("Bob", "TOKEN-t0"), theirs_block)
    data = [t.encode() for t in (BASE, ours, theirs)]
    assert plain_end(data[0], data[1][len(BASE) :], data[2][len(BASE) :]) is None
    assert plain_driven(*data) == (False, data[1])
    expected = driven_by_merge_file(tmp_path / "expected", *data)
    assert run_entry(tmp_path / "entry", *data) == expected


def driven_by_merge_file(folder: Path, *data: bytes) -> tuple[int, bytes]:
    folder.mkdir()
    paths = write_versions(folder, *data)
    result = merge_file(*paths)
    return (0 if result.clean else 1), paths[1].read_bytes()


def write_versions(folder: Path, *data: bytes) -> list[Path]:
    paths = [folder / name for name in ("base.md", "ours.md", "theirs.md")]
    for path, content in zip(paths, data, strict=True):
        path.write_bytes(content)
    return paths


def run_entry(folder: Path, *data: bytes, probe: bool = False) -> tuple[int, bytes]:
    """The registered command's first candidate, as git's placeholders fill it."""
    folder.mkdir()
    paths = write_versions(folder, *data)
    argv = [sys.executable, "-I", "-S", *(["-X", "importtime"] if probe else []), str(ENTRY)]
    argv += ["merge-file", "--marker-size", "7", *map(str, paths), FILE]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=folder)
    if probe:
        return proc.returncode, proc.stderr.encode()
    return proc.returncode, paths[1].read_bytes()


def test_the_fast_path_imports_no_re(tmp_path: Path) -> None:
    """The usual merge, as git starts it, loads neither `re` nor `site` (nor `enum`, `typing`,
    `dataclasses`, what `re` and the full driver would bring)."""
    ours = append(BASE, human("Ann", "TOKEN-o1", "```py\nx()\n```", at=2))
    theirs = append(BASE, human("Bob", "TOKEN-t1", at=1), ai("AI-X", "TOKEN-t2", at=3))
    data = [t.encode() for t in (BASE, ours, theirs)]
    status, log = run_entry(tmp_path / "probe", *data, probe=True)
    assert status == 0, log
    loaded = {line.rsplit("|", 1)[-1].strip() for line in log.decode().splitlines()}
    assert "discussions.git.plain" in loaded
    assert not loaded & {"re", "site", "enum", "typing", "dataclasses", "discussions.git.merge"}
    assert (tmp_path / "probe" / "ours.md").read_bytes() == merge_whole(*data)[1]


# --------------------------------------------------------------------------- real git


def test_git_merges_through_the_registered_command(repo: Path) -> None:
    """`discussions init` registers ``python -I -S`` on the package's `mergefile`; a real
    `git merge` of two branches that each appended comments goes through it, clean."""
    path = start_discussion(repo)
    command = git(repo, "config", "merge.discussions.driver").stdout.strip()
    assert registered_python(command) == sys.executable
    assert registered_entry(command) == str(ENTRY.resolve())
    quoted = f"{shlex.quote(sys.executable)} {shlex.quote(str(ENTRY.resolve()))}"
    assert command.startswith(f"set -- {quoted} %O %A %B %L %P; ")
    assert '"$y" -I -S "$f"' in command
    ours, theirs = both_comment(repo, path)
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = path.read_text()
    assert text.count(ours) == 1 and text.count(theirs) == 1 and not markers_present(text)
    assert driver_warning(path) is None


def both_comment(repo: Path, path: Path) -> tuple[str, str]:
    git(repo, "checkout", "-q", "-b", "a")
    comment(path, "Ann", "Ann's point on a.")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    comment(path, "Bob", "Bob's point on main.\n\n```py\nx()\n```")
    commit_all(repo, "main")
    return "Ann's point on a.", "Bob's point on main."


def test_a_clone_registered_before_still_merges_and_is_not_warned(repo: Path) -> None:
    """The command registered before (``-P -m discussions`` first) keeps merging and is
    recognised; `init` then registers the new one."""
    path = start_discussion(repo)
    quoted = shlex.quote(sys.executable)
    old = f"sh -c {shlex.quote(DRIVER_SCRIPT_P)} {quoted} %O %A %B %L %P"
    git(repo, "config", "merge.discussions.driver", old)
    assert registered_python(old) == sys.executable and registered_entry(old) is None
    assert driver_warning(path) is None
    ours, theirs = both_comment(repo, path)
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = path.read_text()
    assert text.count(ours) == 1 and text.count(theirs) == 1
    from ..support.git import run_cli

    assert "updated" in run_cli("init").output
    assert registered_entry(git(repo, "config", "merge.discussions.driver").stdout.strip())


def test_a_missing_entry_file_is_warned_and_the_merge_falls_back(
    repo: Path, tmp_path: Path
) -> None:
    """A command naming a file that is gone (the package moved): `check` says to run init,
    and the merge still runs (the same Python with ``-m discussions``)."""
    path = start_discussion(repo)
    gone = tmp_path / "gone" / "mergefile.py"
    command = driver_command(sys.executable).replace(
        shlex.quote(str(ENTRY.resolve())), shlex.quote(str(gone))
    )
    git(repo, "config", "merge.discussions.driver", command)
    warning = driver_warning(path)
    assert warning is not None and str(gone) in warning and "discussions init" in warning
    ours, theirs = both_comment(repo, path)
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert path.read_text().count(ours) == 1


# --------------------------------------------------------------------------- one rule each

OLD_NAME_HEAD = re.compile(r"\A(?:[ \t]*\r?\n)*Name:[ \t]*([^\r\n]*)")
OLD_CLOSING = re.compile(r"\s*\n---$")
OLD_META_KEY = re.compile(r"(?:provider|at)[ \t]*:")
OLD_STAMP = re.compile(r"\d{4}-\d\d-\d\dT(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ", re.ASCII)
PIECES = st.lists(
    st.sampled_from(
        ["---", "-", " ", "\t", "\r", "\n", "Name:", "x", "`", "```", "~~~", "\u00a0", "\x85"]
    ),
    max_size=12,
).map("".join)


def old_open_fence_at_end(text: str) -> str | None:
    """The regular-expression reading `fenceend.open_fence_at_end` replaced, on the pattern
    the code-block scanner still reads fence lines with (`fences.FENCE_LINE`)."""
    open_run = ""
    for m in FENCE_LINE.finditer(text):
        run, info = m.group(1), m.group(2)
        if open_run:
            if run[0] == open_run[0] and len(run) >= len(open_run) and not info.strip():
                open_run = ""
        elif not (run[0] == "`" and "`" in info):
            open_run = run
    return open_run or None


@settings(max_examples=400, deadline=None)
@given(PIECES)
def test_each_rule_reads_as_its_regular_expression(text: str) -> None:
    """The string-method readings and the patterns they stand beside (or replaced) agree on
    any text made of the characters that matter to them."""
    pos = 0
    while pos <= len(text):  # every line start: a separator there, by both readings
        end = text.find("\n", pos) + 1 or len(text) + 1
        line = text[pos:end]
        assert is_separator(line) == bool(SEPARATOR.match(text, pos)), repr(line)
        pos = end
    head = OLD_NAME_HEAD.match(text)
    assert head_name(text) == (head.group(1) if head else None)
    assert said(text) == OLD_CLOSING.sub("\n---", text.strip())
    assert open_fence_at_end(text) == old_open_fence_at_end(text)


META_PIECES = st.lists(
    st.sampled_from(["<!--", "-->", " ", "\t", "at", "provider", ":", "x", "|", "\r", "   "]),
    max_size=10,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(META_PIECES)
def test_a_metadata_line_reads_as_the_pattern_read_it(line: str) -> None:
    rest = line.rstrip("\r").lstrip(" ")
    old = None
    if len(line.rstrip("\r")) - len(rest) <= 3 and rest.startswith("<!--"):
        inner = header_comment(rest)
        old = inner if inner is not None and OLD_META_KEY.match(inner) else None
    assert meta_inner(line) == old


def old_recorded_stamp(text: str) -> str:
    """The regular-expression reading `stamps.recorded_stamp` replaced."""
    text = text.strip()
    if OLD_STAMP.fullmatch(text):
        year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
        if year and 1 <= month <= 12 and 1 <= day <= days[month - 1]:
            return text
    when = parse_stamp(text)
    return utc_stamp(when) if when else ""


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [*TIMES, "2026-11-23T24:00:00Z", "2026-11-23T23:59:59Z", "2028-02-29T00:00:00Z"]
    )
    | st.text(alphabet="0123456789-T:Z \u0660", max_size=22)
    | st.builds(
        lambda t, i, c: t[:i] + c + t[i + 1 :],
        st.sampled_from(TIMES),
        st.integers(0, 19),
        st.sampled_from("0123456789-T:Z\u0660x"),
    )
)
def test_a_stamp_reads_as_the_pattern_read_it(text: str) -> None:
    assert recorded_stamp(text) == old_recorded_stamp(text)


UNIT = st.tuples(
    st.sampled_from(["", TIMES[0]]), st.sampled_from(["Ann", "Bob"]), st.text(max_size=4)
)


@settings(max_examples=300, deadline=None)
@given(UNIT, UNIT)
def test_a_key_orders_as_time_author_and_hex_digest(
    a: tuple[str, str, str], b: tuple[str, str, str]
) -> None:
    """The digest is made only where time and author tie, and orders as its hex string."""
    keys = [order_key(*unit) for unit in (a, b)]
    plain = [
        (s, who, sha256_hex(t.strip().encode("utf-8", "surrogatepass"))) for s, who, t in (a, b)
    ]
    assert (keys[0] < keys[1], keys[0] == keys[1]) == (plain[0] < plain[1], plain[0] == plain[1])
    assert [keys[0] < keys[1], keys[1] < keys[0]].count(True) <= 1


def test_a_package_beside_it_hides_no_standard_module(tmp_path: Path) -> None:
    """The package installed in a folder that also holds a module named as a standard one (an
    old backport's ``enum.py``): the file git runs puts that folder after the standard
    library, so the full driver (which imports `re`, hence `enum`) still merges."""
    folder = tmp_path / "site-packages"
    shutil.copytree(
        ENTRY.parent.parent, folder / "discussions", ignore=shutil.ignore_patterns("__pycache__")
    )
    (folder / "enum.py").write_text("raise ImportError('the backport, not the standard enum')\n")
    ours = append(BASE, human("Ann", "TOKEN-o1"))
    theirs = append(
        BASE, "\n<!-- PHASE-TRANSITION: initial_feedback -> detailed_review -->\n\n---\n"
    )
    data = [t.encode() for t in (BASE, ours, theirs)]
    paths = write_versions(tmp_path, *data)
    entry = folder / "discussions" / "git" / "mergefile.py"
    argv = [sys.executable, "-I", "-S", str(entry), "merge-file", *map(str, paths), FILE]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert paths[1].read_bytes() == merge_whole(*data)[1]
