"""Fulfilling evidence requests: the pending ``EVIDENCE:`` requests of a discussion read from
the project (`evidence_sources`) and appended as engine blocks (`syntax.evidence`).

* The same request at the same blob (or commit, or output) is fulfilled once: a later one gets
  a ``same`` block pointing to the earlier block, when that block is the last with its number
  (after a merge two blocks may share one; a reference reaches the nearest above it).
* New blocks are numbered after the largest number in the file.
* Per participant, at most ``evidence.max_requests`` requests are fulfilled per fulfilment
  (which runs after each turn); more are refused, saying so. One block holds at most
  ``evidence.max_chars`` characters (cut at a line, said in the block), all blocks of one
  fulfilment ``evidence.max_turn_chars``.
* The project is read outside the file lock; under the lock, blocks for requests another
  writer answered meanwhile are dropped and the rest numbered.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from typing import TYPE_CHECKING, Any

from ...derive.rules import derive
from ...errors import ProviderError
from ...model import storage
from ...settings.evidence import EvidenceSettings, evidence_settings
from ...settings.research import WebSettings
from ...syntax import clock
from ...syntax.record import Record

if TYPE_CHECKING:
    from pathlib import Path

    from ...git.confine import Confinement
    from ...model.discussion import Discussion
    from ...syntax.evidence import Block, Request
    from .sources import Commands, Found
    from .web import WebAccess

# What reads the project (`evidence_sources`, `evidence_git`, `git.confine`) and the block
# syntax are loaded by the functions that use them: every turn asks whether anything is
# pending, and most discussions hold no request.


class Fulfilled(Record):
    """What one fulfilment appended.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("blocks",)
    blocks: list[Block]

    def __init__(self, blocks: list[Block] | None = None) -> None:
        self.blocks = [] if blocks is None else blocks

    def spent(self) -> Counter[str]:
        """Requests made, by author (refused ones too)."""
        return Counter(b.by for b in self.blocks)

    @property
    def answered(self) -> set[str]:
        """Who had a request fulfilled (not refused)."""
        return {b.by for b in self.blocks if b.status in ("fulfilled", "same")}

    def lines(self) -> list[str]:
        """One line per block: ``Evidence 3 for AI-Architect: read a.py (fulfilled)``."""
        out = []
        for b in self.blocks:
            why = f": {b.reason}" if b.reason else ""
            same = f" as evidence {b.see}" if b.see else ""
            out.append(f"Evidence {b.number} for {b.by}: {b.request} ({b.status}{same}{why})")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "blocks": [
                {
                    "number": b.number,
                    "request": b.request,
                    "by": b.by,
                    "status": b.status,
                    **({"reason": b.reason} if b.reason else {}),
                    **({"see": b.see} if b.see else {}),
                }
                for b in self.blocks
            ]
        }


def fulfil(
    request: Request, where: Confinement, commands: Commands, access: WebAccess | None = None
) -> Found:
    """Read what `request` asks for, or raise `Refused` (`access`: what ``web`` and
    ``search`` may reach; None: nothing)."""
    from .gitread import git_request
    from .sources import grep, listing, read, run

    if request.kind in ("web", "search"):
        from .web import WebAccess, search, web

        access = access or WebAccess(WebSettings(), trusted=True)
        if request.kind == "web":
            return web(request.args, access)
        return search(request.args, access, where.root)

    if request.kind == "read":
        return read(request.args, where)
    if request.kind == "grep":
        return grep(request.args, where)
    if request.kind == "list":
        return listing(request.args, where)
    if request.kind == "git":
        return git_request(request.args, where)
    return run(request.args, where, commands)


def confinement_for(d: Discussion, settings: EvidenceSettings) -> Confinement:
    """What the discussion's participants may read: the git work tree holding the file, else
    the project folder."""
    from ...git.confine import Confinement

    where = Confinement.of_discussion(d.path, d.workspace.config.base_dir, settings.exclude)
    folder = d.path.parent.resolve()
    if folder != where.root and where.root in folder.parents:
        where.unsearched = (folder.relative_to(where.root).as_posix() + "/",)
    return where


def fulfil_pending(
    d: Discussion, *, reload: bool = True, spent: Counter[str] | None = None
) -> Fulfilled:
    """Fulfil every pending request of `d` (read again first, unless `reload` is False) and
    append the blocks. `spent`: requests each author already made this turn (they count
    against ``evidence.max_requests``). Returns what was written."""
    if reload:
        d.reload()
    if "EVIDENCE:" not in d.text:  # no request and no block: nothing to derive
        return Fulfilled()
    pending = [e for e in d.evidence if e.status == "pending"]
    if not pending:
        return Fulfilled()
    settings = evidence_settings(d.workspace.config)
    where = confinement_for(d, settings)
    requests = [(e.by, e.request) for e in pending]
    return _append(d, _blocks_for(d, requests, settings, where, spent), only_pending=True)


def attach(d: Discussion, by: str, patterns: list[str]) -> Fulfilled:
    """Attach the files matching `patterns` (globs, ``**`` across folders, or paths) as
    evidence read by `by`: a block per file, a refused block for a pattern nothing matches."""
    settings = evidence_settings(d.workspace.config)
    where = confinement_for(d, settings)
    requests: list[tuple[str, str]] = []
    files = where.files()
    for pattern in patterns:
        pattern = pattern.removeprefix("./")
        matched = [pattern] if pattern in files else []
        matched = matched or sorted(f for f in files if fnmatch.fnmatchcase(f, pattern))
        requests += [(by, f"read {f}") for f in matched] or [(by, f"read {pattern}")]
    settings.max_requests = max(settings.max_requests, len(requests))
    settings.max_turn_chars = max(settings.max_turn_chars, 10 * settings.max_chars)
    return _append(d, _blocks_for(d, requests, settings, where), only_pending=False)


def _blocks_for(
    d: Discussion,
    requests: list[tuple[str, str]],
    settings: EvidenceSettings,
    where: Confinement,
    spent: Counter[str] | None = None,
) -> list[Block]:
    """A block for each (by, request), numbered from 0 (`_append` numbers them)."""
    from ...derive.evidence import latest_by_number
    from ...git.confine import Refused
    from ...providers.trust import evidence_trusted
    from ...syntax.evidence import Block, RequestError, parse_request
    from .sources import Commands

    root = where.root
    commands = Commands(
        settings.commands, evidence_trusted(root, settings.commands), settings.timeout
    )
    earlier = {
        (e.request, e.ref): e.number
        for e in latest_by_number(d.evidence)
        if e.status == "fulfilled"
    }
    answered = {request for request, _ in earlier}
    access = _web_access(d, root, requests)
    found_now: dict[str, Found] = {}
    asked: Counter[str] = Counter(spent or ())
    budget = settings.max_turn_chars
    blocks: list[Block] = []
    for by, text in requests:
        block = Block(0, text, by, "refused", clock.now_stamp())
        try:
            request = parse_request(text)
            block.request = request.text
            repeat = request.text in answered or request.text in found_now
            if not repeat:  # asked before: read once more, to point at the block if unchanged
                asked[by] += 1
                _within(asked[by], budget, settings)
            found = found_now.get(request.text) or fulfil(request, where, commands, access)
            found_now[request.text] = found
            if repeat and (request.text, found.ref) not in earlier:
                _within(0, budget, settings)  # changed since: a new read after all
        except (Refused, RequestError, ProviderError) as exc:  # git could not even run
            block.reason = str(exc)
            blocks.append(block)
            continue
        twice = (request.text, found.ref) in earlier  # `_append` makes it `same`
        _fill(block, found, min(settings.max_chars, budget), earlier)
        budget -= 0 if twice else len(block.content)
        blocks.append(block)
        if block.status == "fulfilled":  # a repeat later in this turn points at this block
            earlier.setdefault((block.request, block.ref), 0)
    return blocks


def _web_access(d: Discussion, root: Path, requests: list[tuple[str, str]]) -> WebAccess | None:
    """What ``web`` and ``search`` requests may reach (None when none is asked: the HTTP
    client is not loaded)."""
    if not any(text.lower().split()[:1] in (["web"], ["search"]) for _, text in requests):
        return None
    from ...providers.trust import web_trusted
    from ...settings.research import web_settings
    from .web import WebAccess

    settings = web_settings(d.workspace.config)
    return WebAccess(settings, web_trusted(d.workspace.config.base_dir, settings))


def _within(asked: int, budget: int, settings: EvidenceSettings) -> None:
    """`Refused` when a participant's `asked`-th request this turn is over the limit, or the
    turn's evidence has used its characters (`budget` left)."""
    from ...git.confine import Refused

    if asked > settings.max_requests:
        raise Refused(f"over the limit of {settings.max_requests} requests per turn")
    if budget <= 0:
        raise Refused(
            f"the evidence of this turn reached {settings.max_turn_chars} characters; "
            "ask again next turn"
        )


def _fill(block: Block, found: Found, cap: int, earlier: dict[tuple[str, str], int]) -> None:
    """`block` fulfilled with `found` (cut to `cap` characters), or the same as an earlier."""
    block.ref = found.ref
    see = earlier.get((block.request, found.ref))
    if see:
        block.status, block.see = "same", see
        return
    content, notes = found.content, [found.note] if found.note else []
    if len(content) > cap:
        cut = content.rfind("\n", 0, cap)
        content = content[: cut if cut > 0 else cap]
        notes.append(f"cut at {len(content)} of {len(found.content)} characters (the cap)")
    block.status, block.content, block.reason = "fulfilled", content, "; ".join(notes)


def _append(d: Discussion, blocks: list[Block], *, only_pending: bool) -> Fulfilled:
    """Append `blocks` under the file lock, numbered after the largest number in the file; with
    `only_pending`, only those whose request is still pending in the file as it is then."""
    from ...syntax.evidence import render_block

    written: list[Block] = []
    earlier: dict[tuple[str, str], int] = {}

    def build(text: str) -> list[str]:
        state = derive(text, d.workspace, d.path.stem)
        still = Counter((e.by, e.request) for e in state.evidence if e.status == "pending")
        number = max((e.number for e in state.evidence), default=0)
        out: list[str] = []
        for block in blocks:
            if only_pending and still[(block.by, block.request)] <= 0:
                continue
            still[(block.by, block.request)] -= 1
            number += 1
            block.number = number
            if block.status == "fulfilled":
                if (block.request, block.ref) in earlier:
                    block.status, block.see = "same", earlier[(block.request, block.ref)]
                    block.content = block.reason = ""
                else:
                    earlier[(block.request, block.ref)] = number
            written.append(block)
            out.append(render_block(block))
        return out

    storage.locked_append(d.path, build, root=d.workspace.config.base_dir)
    d.reload()
    return Fulfilled(written)
