"""Exports of a discussion: a static HTML page, a JSON document, a written post, a hand-off.

All three are read from the file and written somewhere else: an export never changes the
discussion. HTML and JSON are derived (the same file gives the same output, apart from the
``exported`` time in JSON); the post is an article one participant writes through the provider
chain, followed by the decisions and open questions taken from the file, so what was decided is
stated by the file and not by the AI.

    html = _export_html(d)
    data = export_json(d)
    handoff = export_handoff(d)     # the execution-handoff artifact; NotDecided if undecided
    markdown, author = write_post(Runner(), d)
    save_export(d, Path("feature-x.html"), html)

`export` is the act every interface calls: one of those, written next to the discussion (or
to `out`), or only returned.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import atomic
from ..errors import BadInput, DiscussionsError, NotDecided, NotWritable
from ..model import storage
from ..model.discussion import Discussion, Item
from ..model.sections import BY_KEY
from ..settings.workspace import Workspace, display_path
from ..views.html import discussion_page
from .grounds import resolve

if TYPE_CHECKING:
    from ..engine.runner import Runner

FORMAT = "discussions-export/1"
_SUFFIXES = {"html": ".html", "json": ".json", "post": ".post.md", "handoff": ".handoff.json"}
"""What each format's file is called next to the discussion: ``feature-x.post.md``."""


@dataclass(slots=True)
class Exported:
    """What `export` made: the text in the format asked for, who wrote it (a post), and
    where it was written (None when only returned)."""

    file: Path
    """The discussion exported."""
    kind: str
    text: str
    author: str = ""
    written: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": display_path(self.file),
            "format": self.kind,
            "author": self.author or None,
            "written": display_path(self.written) if self.written else None,
        }


def export(
    ws: Workspace,
    path: Path,
    kind: str = "html",
    *,
    out: Path | None = None,
    save: bool = True,
    participant: str | None = None,
    provider: str | None = None,
    allow_undecided: bool = False,
) -> Exported:
    """Export the discussion at `path` as `kind` (html, json, post or handoff) and, with
    `save`, write it to `out` (default: next to it, `_default_target`). `participant` and
    `provider` choose who writes a post; `allow_undecided` exports an undecided hand-off."""
    if kind not in _SUFFIXES:
        raise BadInput(f"unknown export format {kind!r} ({', '.join(_SUFFIXES)})", "format")
    if kind != "post" and (provider or participant):
        raise BadInput("--provider and --participant apply to --format post only")
    if kind != "handoff" and allow_undecided:
        raise BadInput("--allow-undecided applies to --format handoff only")
    d = Discussion.load(path, ws)
    done = Exported(d.path, kind, *_made(ws, d, kind, participant, provider, allow_undecided))
    if save:
        done.written = out or _default_target(d, kind)
        _save_export(d, done.written, done.text)
    return done


def _made(
    ws: Workspace,
    d: Discussion,
    kind: str,
    participant: str | None,
    provider: str | None,
    allow_undecided: bool,
) -> tuple[str, str]:
    """The export's text in `kind`, and who wrote it (a post's writer; "" otherwise)."""
    if kind == "html":
        return _export_html(d), ""
    if kind == "json":
        return json.dumps(_export_json(d), indent=2, ensure_ascii=False) + "\n", ""
    if kind == "handoff":
        data = _export_handoff(d, allow_undecided=allow_undecided)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n", ""
    from ..engine.runner import Runner

    return _write_post(Runner(ws), d, participant or "moderator", provider)


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _export_json(d: Discussion) -> dict[str, Any]:
    """The ``status --json`` state, with every comment's whole text and metadata."""
    data = d.to_dict()
    data["file"] = display_path(d.path)  # as `status --json` shows it
    data["comments"] = [{**c.to_dict(), "end_line": c.end_line, "text": c.body} for c in d.comments]
    return {"format": FORMAT, "exported": _now().strftime("%Y-%m-%dT%H:%M:%SZ"), **data}


def _export_handoff(d: Discussion, *, allow_undecided: bool = False) -> dict[str, Any]:
    """The hand-off (`model.handoff`) as JSON data: decisions, TODOs, constraints, evidence,
    open questions and the approval (``pending``: an export consents to nothing). An
    undecided discussion raises `NotDecided` (as the MCP ``handoff`` tool does) unless
    `allow_undecided`; its ``decided`` and ``reason`` then say so."""
    from ..model.handoff import build_handoff, handoff_refusal

    h = build_handoff(d)
    if not h.decided and not allow_undecided:
        raise NotDecided(
            f"{handoff_refusal(d)}. To export its hand-off anyway (with "
            '"decided": false), add --allow-undecided'
        )
    data = h.to_dict()
    data["file"] = display_path(d.path)
    return {**data, "exported": _now().strftime("%Y-%m-%dT%H:%M:%SZ")}


def _export_html(d: Discussion) -> str:
    """One self-contained page (inline CSS, no script) that looks like the live page, its
    citations marked as the repository has them now (`grounds.resolve`)."""
    return discussion_page(resolve(d))


def _items(title: str, items: list[Item], empty: str) -> list[str]:
    lines = [f"## {title}", ""]
    lines += [f"- {i.text} ({i.author}, line {i.line})" for i in items] or [empty]
    return [*lines, ""]


def _minority(d: Discussion) -> list[str]:
    """The post's minority report (`derive.dissent`) under the decisions; none without
    dissent or without a decision."""
    dissent = d.dissent
    if not d.decisions or not dissent:
        return []
    return ["## Minority report", "", dissent.headline(), "", *dissent.lines(), ""]


def _write_post(
    runner: Runner, d: Discussion, alias: str = "moderator", provider: str | None = None
) -> tuple[str, str]:
    """A blog-style article about `d` written by participant `alias` (`prompts.POST_CALLOUT`),
    as markdown: its title, who wrote it from which file and when, the article, then the
    decisions and open questions as the file records them. Returns (markdown, who wrote it)."""
    from ..engine.council.narration import narrate
    from ..engine.prompt.prompts import POST_CALLOUT

    article, author = narrate(runner, d, alias, provider, POST_CALLOUT)
    title = d.title
    first, _, rest = article.partition("\n")
    if first.startswith("# ") and first[2:].strip():
        title, article = first[2:].strip(), rest.strip()
    lines = [
        f"# {title}",
        "",
        f"*Written by {author} from {d.path.name}, {_now():%Y-%m-%d}. An AI's account of the "
        "discussion, not part of it: the decisions and open questions below are taken from "
        "the file.*",
        "",
        article,
        "",
        *_items(BY_KEY["decisions"].heading, d.decisions, "No decisions recorded."),
        *_minority(d),
        *_items(BY_KEY["questions"].heading, d.questions, "No open questions."),
    ]
    return "\n".join(lines).rstrip("\n") + "\n", author


def _default_target(d: Discussion, kind: str) -> Path:
    """Where an export goes by default: next to the discussion (``feature-x.html``)."""
    return d.path.with_name(d.path.stem + _SUFFIXES[kind])


def _save_export(d: Discussion, target: Path, text: str) -> None:
    """Write `text` to `target` atomically (temporary file, then rename). Refused: the
    discussion itself, any other discussion file, a symbolic link, anything but a regular
    file. A new file gets the discussion file's permissions."""
    shown = display_path(target)
    if target.is_symlink():
        raise NotWritable(f"{shown} is a symbolic link; refusing to write through it")
    try:
        st = target.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise DiscussionsError(f"cannot write {shown}: {exc.strerror}") from None
    if st is None:
        mode = _mode_of(d.path)
        _make_folder(target.parent, shown)
    elif not stat.S_ISREG(st.st_mode):
        raise NotWritable(f"{shown} is not a regular file; give a file path, or --out - to print")
    elif os.path.samefile(target, d.path) or _is_discussion(target):
        raise NotWritable(
            f"{shown} is a discussion file; an export never overwrites one. "
            "Choose another --out path"
        )
    else:
        mode = stat.S_IMODE(st.st_mode)
    atomic.replace_file(target, text, mode=mode)


def _make_folder(folder: Path, shown: str) -> None:
    """Create `folder` and those above it when missing (``--out site/x.html`` in a project
    without ``site/``, the help's own example)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotWritable(f"cannot write {shown}: {folder} is not a folder") from None
    except OSError as exc:
        raise DiscussionsError(f"cannot write {shown}: {exc.strerror}") from None


def _mode_of(source: Path) -> int:
    try:
        return stat.S_IMODE(source.stat().st_mode) & 0o666
    except OSError:
        return 0o644


def _is_discussion(path: Path) -> bool:
    return storage.is_discussion_file(path)
