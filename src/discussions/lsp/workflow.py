"""The commands: ask the mentioned participants now (a turn, streamed as progress), advance
the phase, insert my vote, show the status; and the code actions that offer them."""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .. import ops
from ..errors import DiscussionsError
from ..syntax.render import VOTE_VALUES
from .diagnostics import RESOLVE
from .edits import vote_edit
from .server import DiscussionsServer
from .status import status_params

if TYPE_CHECKING:
    from pygls.workspace import PositionCodec

    from .buffer import Buffer

ASK = "discussions.ask"
ADVANCE = "discussions.advance"
COMMENT = "discussions.comment"
INSERT_VOTE = "discussions.insertVote"
STATUS = "discussions.status"
_tokens = itertools.count(1)


def mentioned(b: Buffer) -> list[str]:
    """The participants mentioned and not answered yet, who can be asked."""
    registry = b.discussion.workspace.participants
    return [p.alias for p in b.discussion.pending_mentions if p.alias in registry]


def session_actions(
    uri: str, version: int | None, b: Buffer, author: str, codec: PositionCodec | None = None
) -> list[types.CodeAction]:
    """What the user may do with the discussion from anywhere in it (`codec`: the editor's
    position units, for the vote's edit)."""
    actions: list[types.CodeAction] = []
    waiting = mentioned(b)
    if waiting:
        title = "Ask the mentioned participants now (" + ", ".join(f"@{a}" for a in waiting) + ")"
        actions.append(_command_action(title, ASK, uri))
    actions.append(_command_action("Advance phase", ADVANCE, uri))
    return actions + _vote_actions(uri, version, b, author, codec)


def _vote_actions(
    uri: str, version: int | None, b: Buffer, author: str, codec: PositionCodec | None
) -> list[types.CodeAction]:
    """ "Insert my vote" for each vote; none for an author who cannot comment (a
    participant's name: `discussions comment` refuses it too)."""
    try:
        edits = [(value, vote_edit(uri, version, b, author, value, codec)) for value in VOTE_VALUES]
    except DiscussionsError:
        return []
    return [
        types.CodeAction(f"Insert my vote: {value}", kind=types.CodeActionKind.Source, edit=edit)
        for value, edit in edits
    ]


def _command_action(title: str, command: str, uri: str) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.Source,
        command=types.Command(title, command, arguments=[uri]),
    )


def register_commands(server: DiscussionsServer) -> None:
    """`ASK`, `COMMENT`, `ADVANCE`, `RESOLVE`, `INSERT_VOTE` and `STATUS`, each taking the
    document's URI first."""
    _engine_commands(server)
    _buffer_commands(server)


def _engine_commands(server: DiscussionsServer) -> None:
    """The commands that make the engine write the saved file, then catch the buffer up."""

    @server.command(ASK)
    async def ask(ls: DiscussionsServer, *args: Any) -> dict[str, Any]:
        return await ask_now(ls, _uri(args))

    @server.command(COMMENT)
    async def comment(ls: DiscussionsServer, *args: Any) -> dict[str, Any]:
        return await comment_now(ls, _uri(args), args[1] if len(args) > 1 else {})

    @server.command(ADVANCE)
    async def advance(ls: DiscussionsServer, *args: Any) -> dict[str, Any]:
        uri = _uri(args)
        refused = _refuse(ls, uri)
        if refused:
            return refused
        from ..ops.lifecycle import advance as advance_op

        before = ls.document(uri).source
        try:
            done = advance_op(ls.ws, ls.buffer(uri).path)
        except DiscussionsError as exc:
            ls.say(str(exc), types.MessageType.Error)
            return {"error": str(exc)}
        await ls.catch_up(uri, before)
        return done.to_dict()

    @server.command(RESOLVE)
    async def resolve(ls: DiscussionsServer, *args: Any) -> dict[str, Any]:
        uri = _uri(args)
        refused = _refuse(ls, uri)
        if refused:
            return refused
        from ..git.driver import resolve_conflict

        before = ls.document(uri).source
        path = ls.buffer(uri).path
        try:
            done = await asyncio.get_running_loop().run_in_executor(None, resolve_conflict, path)
        except DiscussionsError as exc:
            ls.say(str(exc), types.MessageType.Error)
            return {"error": str(exc)}
        await ls.catch_up(uri, before)
        merged = done.result
        return {"resolved": True, "ours": merged.added_ours, "theirs": merged.added_theirs}


COMMENT_FIELDS = ("text", "vote", "motion", "second", "ballot")
"""What `COMMENT`'s second argument (an object) may hold: `ops.comments.comment`'s input."""


async def comment_now(ls: DiscussionsServer, uri: str, given: Any) -> dict[str, Any]:
    """Post the user's comment (signed with their git name) to the saved file, as
    `discussions comment` does, then bring it into the buffer."""
    if not isinstance(given, dict) or not all(
        isinstance(given.get(k), str | None) for k in COMMENT_FIELDS
    ):
        return {"error": "give the comment as an object of strings: " + ", ".join(COMMENT_FIELDS)}
    refused = _refuse(ls, uri)
    if refused:
        return refused
    before = ls.document(uri).source
    said = {k: given.get(k) for k in COMMENT_FIELDS[1:]}
    try:
        path = ls.buffer(uri).path
        done = ops.comment(ls.ws, path, ls.author, given.get("text") or "", **said)
    except DiscussionsError as exc:
        ls.say(str(exc), types.MessageType.Error)
        return {"error": str(exc)}
    await ls.catch_up(uri, before)
    return done.to_dict()


def _buffer_commands(server: DiscussionsServer) -> None:
    """The commands that only read the buffer or edit it."""

    @server.command(INSERT_VOTE)
    async def insert_vote(ls: DiscussionsServer, *args: Any) -> dict[str, Any]:
        uri = _uri(args)
        value = str(args[1]).upper() if len(args) > 1 else "READY"
        if value not in VOTE_VALUES:
            return {"error": f"a vote is one of {', '.join(VOTE_VALUES)}, not {value!r}"}
        doc = ls.document(uri)
        try:
            edit = vote_edit(uri, doc.version, ls.buffer(uri), ls.author, value, doc.position_codec)
        except DiscussionsError as exc:
            return {"error": str(exc)}
        result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit))
        return {"applied": result.applied}

    @server.command(STATUS)
    def status(ls: DiscussionsServer, *args: Any) -> dict[str, Any]:
        uri = _uri(args)
        params = status_params(uri, ls.buffer(uri))
        ls.say(params["text"])
        return params


def _uri(args: tuple[Any, ...]) -> str:
    if not args or not isinstance(args[0], str):
        raise ValueError("give the document's URI as the first argument")
    return args[0]


def _refuse(ls: DiscussionsServer, uri: str) -> dict[str, Any] | None:
    why = ls.refusal(uri)
    if why is None:
        return None
    ls.say(why, types.MessageType.Warning)
    return {"refused": why}


async def ask_now(ls: DiscussionsServer, uri: str) -> dict[str, Any]:
    """Run a turn of the mentioned participants on the saved file, reporting each step as
    progress, then bring the answers into the buffer."""
    refused = _refuse(ls, uri)
    if refused:
        return refused
    b = ls.buffer(uri)
    aliases = mentioned(b)
    if not aliases:
        ls.say("nobody mentioned is waiting for an answer; mention a participant with @alias")
        return {"refused": "nobody mentioned is waiting for an answer"}
    ls.loop = asyncio.get_running_loop()
    token = await _progress(ls, "Asking " + ", ".join(f"@{a}" for a in aliases))
    key = str(b.path.resolve())
    if token:
        ls.tokens[key] = token
    before = b.text
    try:
        started = ls.tools.start_turn(str(b.path), aliases, provider=ls.provider)
        job = ls.tools.job(started["ticket"])
        await ls.loop.run_in_executor(None, job.done.wait)
    except DiscussionsError as exc:
        job, error = None, str(exc)
        ls.say(error, types.MessageType.Error)
    finally:
        ls.tokens.pop(key, None)
    end = (job.error or f"{len(aliases)} asked, {job.state}") if job else error
    if token:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=end))
    await ls.catch_up(uri, before)
    return job.to_dict() if job else {"error": error}


async def _progress(ls: DiscussionsServer, title: str) -> str | None:
    """A progress token the client shows `title` under, None when it shows no progress."""
    window = ls.client_capabilities.window
    if not (window and window.work_done_progress):
        return None
    token = f"discussions-ask-{next(_tokens)}"
    await ls.work_done_progress.create_async(token)
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title))
    return token
