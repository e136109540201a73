"""`discussions` as a local MCP server (stdio), for AI coding agents.

Two layers:

* `DiscussionTools`: the tools as plain methods over the library (no SDK, no click). Each
  raises `DiscussionsError` with the message the CLI would print.
* `build_server` / `serve`: the official `mcp` SDK (2.x, ``MCPServer``) around them. The SDK
  is imported only there, so ``discussions mcp --print-config`` and every other command never
  pay for it.

Turns run in the background: `start_turn` returns a ticket at once, `turn_result` waits a
bounded time (at most `MAX_WAIT` seconds) and returns progress or the outcome. No call blocks
past about 50 s, so a client's request timeout is never reached.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from .errors import DiscussionExists, DiscussionsError
from .model import Discussion
from .workspace import Workspace, display_path, resolve_file

if TYPE_CHECKING:
    from .runner import TurnEvent

MAX_WAIT = 45.0
"""Longest `turn_result` waits, in seconds."""
MAX_COMMENTS = 50
"""Most comments `read_discussion` returns."""
MAX_CHARS = 200_000
"""Most characters of comment text `read_discussion` returns."""
RESOURCE_SCHEME = "discussion"

INSTRUCTIONS = (
    "Structured discussions between AI personas and humans, one markdown file each. "
    "list_discussions finds them; discussion_status and read_discussion read one; "
    "add_comment writes as a participant (with an optional READY/CHANGES/REJECT vote); "
    "start_turn asks AI participants in the background and turn_result collects the outcome."
)


@dataclass(slots=True)
class TurnJob:
    """One turn running (or run) in the background."""

    ticket: str
    """What `turn_result` is asked with."""
    file: str
    """The discussion file, as shown to the caller."""
    expected: list[str]
    """Aliases of the participants asked."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """Progress so far: one entry per `TurnEvent`."""
    result: dict[str, Any] | None = None
    """`TurnResult.to_dict()` once the turn is over."""
    error: str | None = None
    """The message when the turn raised instead of finishing."""
    done: threading.Event = field(default_factory=threading.Event)

    def record(self, event: TurnEvent) -> None:
        entry: dict[str, Any] = {"kind": event.kind, "participant": event.alias}
        if event.provider:
            entry["provider"] = event.provider
        if event.message:
            entry["message"] = event.message
        self.events.append(entry)

    def to_dict(self) -> dict[str, Any]:
        state = "running" if not self.done.is_set() else ("failed" if self.error else "done")
        out: dict[str, Any] = {
            "ticket": self.ticket,
            "file": self.file,
            "state": state,
            "participants": list(self.expected),
            "progress": list(self.events),
        }
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


class DiscussionTools:
    """The MCP tools as plain methods. `workspace` is discovered from the current folder
    unless given."""

    def __init__(self, workspace: Workspace | None = None) -> None:
        self._workspace = workspace
        self._jobs: dict[str, TurnJob] = {}
        self._tickets = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def workspace(self) -> Workspace:
        if self._workspace is None:
            self._workspace = Workspace.discover()
        return self._workspace

    def _load(self, file: str) -> Discussion:
        ws = self.workspace
        return Discussion.load(resolve_file(file, ws), ws)

    def discussion_files(self) -> list[Path]:
        """The discussion files in the discussions folder (derived files left out)."""
        from .format import has_discussion_header
        from .storage import is_derived

        folder = self.workspace.config.output_directory
        if not folder.is_dir():
            return []
        files = []
        for path in sorted(folder.glob("*.md")):
            if is_derived(path):
                continue
            try:
                head = path.read_text(encoding="utf-8", errors="replace")[:4096]
            except OSError:
                continue
            if has_discussion_header(head):
                files.append(path)
        return files

    def list_discussions(self, status: str | None = None) -> list[dict[str, Any]]:
        from .catalog import list_discussions

        return list_discussions(self.workspace, status=status)[0]

    def discussion_status(self, file: str) -> dict[str, Any]:
        return self._load(file).to_dict()

    def read_discussion(
        self, file: str, comments: int = 10, max_chars: int = 20_000
    ) -> dict[str, Any]:
        d = self._load(file)
        count = max(0, min(comments, MAX_COMMENTS))
        budget = max(0, min(max_chars, MAX_CHARS))
        all_comments = d.comments
        newest = all_comments[-count:] if count else []
        shown: list[dict[str, Any]] = []
        truncated = False
        # Newest first: an older comment that does not fit is left out whole; only the newest
        # one is ever cut short.
        for c in reversed(newest):
            body = c.body.strip("\n")
            if len(body) > budget:
                truncated = True
                if shown:
                    break
                body = body[:budget]
            budget -= len(body)
            shown.append({"author": c.author, "line": c.line, "vote": c.vote, "text": body})
        shown.reverse()
        return {
            "file": display_path(d.path),
            "title": d.title,
            "phase": d.phase,
            "status": d.status,
            "participants": list(d.participants),
            "votes": dict(d.votes),
            "total_comments": len(all_comments),
            "comments": shown,
            "truncated": truncated,
        }

    def new_discussion(
        self,
        title: str,
        template: str | None = None,
        context: str | None = None,
        participants: list[str] | None = None,
        file_name: str | None = None,
    ) -> dict[str, Any]:
        ws = self.workspace
        path = None
        if file_name:
            name = file_name if file_name.endswith(".md") else f"{file_name}.md"
            if Path(name).name != name:
                raise DiscussionsError("give a file name, not a path")
            path = ws.config.output_directory / name
        d = Discussion.create(
            title,
            template=template,
            context=context,
            participants=participants or None,
            path=path,
            workspace=ws,
        )
        if d.path.exists() or d.path.is_symlink():
            raise DiscussionExists(
                f"{display_path(d.path)} already exists; choose another name with --file, "
                f"or comment on it with `discussions comment {d.path.name}`"
            )
        d.save()
        out = d.to_dict()
        out["file"] = display_path(d.path)
        return out

    def add_comment(
        self, file: str, author: str, text: str = "", vote: str | None = None
    ) -> dict[str, Any]:
        if not text.strip() and vote is None:
            raise DiscussionsError("give comment text, a vote, or both")
        if not author.strip():
            raise DiscussionsError("give an author name")
        d = self._load(file)
        d.add_comment(author.strip(), text.rstrip("\n"), vote=vote)
        d.save()
        return {
            "file": display_path(d.path),
            "author": author.strip(),
            "vote": vote.upper() if vote else None,
            "comments": len(d.comments),
            "notices": list(d.notices),
        }

    def advance(self, file: str, to: str | None = None) -> dict[str, Any]:
        d = self._load(file)
        phase = d.advance(to)
        d.save()
        return {"file": display_path(d.path), "phase": phase, "notices": list(d.notices)}

    def start_turn(
        self,
        file: str,
        participants: list[str] | None = None,
        callout: str | None = None,
        provider: str | None = None,
        sequential: bool = False,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        from .turns import select_participants

        d = self._load(file)
        aliases = list(participants or [])
        expected = [p.alias for p in select_participants(d, aliases)]
        with self._lock:
            ticket = f"turn-{next(self._tickets)}"
            job = TurnJob(ticket, display_path(d.path), expected)
            self._jobs[ticket] = job
        worker = threading.Thread(
            target=self._run_turn,
            args=(job, d, aliases, callout, provider, sequential, timeout),
            name=f"discussions-{ticket}",
            daemon=True,
        )
        worker.start()
        return job.to_dict()

    def _run_turn(
        self,
        job: TurnJob,
        d: Discussion,
        aliases: list[str],
        callout: str | None,
        provider: str | None,
        sequential: bool,
        timeout: float | None,
    ) -> None:
        from .runner import Runner

        try:
            runner = Runner(self.workspace, timeout=timeout, on_event=job.record)
            result = runner.run_turn(d, aliases, callout, provider=provider, sequential=sequential)
            job.result = result.to_dict()
        except DiscussionsError as exc:
            job.error = str(exc)
        except Exception as exc:  # a crash must still end the ticket, not leave it running
            job.error = f"the turn failed: {type(exc).__name__}: {exc}"
        finally:
            job.done.set()

    def turn_result(self, ticket: str, wait: float = 20.0) -> dict[str, Any]:
        job = self._jobs.get(ticket)
        if job is None:
            known = ", ".join(self._jobs) or "none"
            raise DiscussionsError(f"no turn with ticket {ticket!r} (known: {known})")
        job.done.wait(max(0.0, min(wait, MAX_WAIT)))
        return job.to_dict()

    def markdown(self, name: str) -> str:
        """The text of discussion `name` (a file name in the discussions folder)."""
        return self._load(unquote(name)).text


def resource_uri(path: Path) -> str:
    return f"{RESOURCE_SCHEME}://files/{quote(path.name)}"


def build_server(tools: DiscussionTools | None = None) -> Any:
    """An ``mcp.server.mcpserver.MCPServer`` serving `tools`. Imports the SDK."""
    import anyio.to_thread
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    from mcp_types import Resource as MCPResource

    from . import __version__

    t = tools or DiscussionTools()

    def call(method: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except DiscussionsError as exc:
            raise ToolError(str(exc)) from None

    class Server(MCPServer[Any]):
        async def list_resources(self) -> list[MCPResource]:
            # One resource per discussion file, listed afresh each time (files come and go);
            # reading goes through the `discussion://files/{name}` template below.
            files = await anyio.to_thread.run_sync(t.discussion_files)
            listed = [
                MCPResource(uri=resource_uri(p), name=p.name, mime_type="text/markdown")
                for p in files
            ]
            return [*await super().list_resources(), *listed]

    server = Server(name="discussions", version=__version__, instructions=INSTRUCTIONS)

    @server.tool()
    def list_discussions(status: str | None = None) -> list[dict[str, Any]]:
        """List the discussions in the project's discussions folder.

        Args:
            status: only discussions with this status (OPEN, DECIDED, CLOSED, ...).

        Returns one row per file: file, title, phase, status, number of comments.
        """
        return call(t.list_discussions, status)  # type: ignore[no-any-return]

    @server.tool()
    def discussion_status(file: str) -> dict[str, Any]:
        """A discussion's full state: the object `discussions status FILE --json` prints
        (phase, status, votes, consensus, questions, decisions, concerns, pending mentions).

        Args:
            file: the discussion file, as a path or a name in the discussions folder
                ("api-redesign.md" or "api-redesign").
        """
        return call(t.discussion_status, file)  # type: ignore[no-any-return]

    @server.tool()
    def read_discussion(file: str, comments: int = 10, max_chars: int = 20_000) -> dict[str, Any]:
        """Read a discussion: title, phase, status, votes and its newest comments.

        Args:
            file: the discussion file (path or name in the discussions folder).
            comments: how many of the newest comments to return (0-50, default 10).
            max_chars: most characters of comment text in all (default 20000); older comments
                are dropped first, and `truncated` says when something was left out.
        """
        return call(t.read_discussion, file, comments, max_chars)  # type: ignore[no-any-return]

    @server.tool()
    def new_discussion(
        title: str,
        template: str | None = None,
        context: str | None = None,
        participants: list[str] | None = None,
        file_name: str | None = None,
    ) -> dict[str, Any]:
        """Create a discussion file from a template (like `discussions new`).

        Args:
            title: the discussion's title; the file name is made from it.
            template: template name (default: the project's default_template, "feature").
            context: context text written into the discussion.
            participants: persona aliases, e.g. ["architect", "security"] (default: the
                project's default_participants, else the template's).
            file_name: file name to create in the discussions folder instead.

        Returns the new discussion's state, with its `file`.
        """
        return call(  # type: ignore[no-any-return]
            t.new_discussion, title, template, context, participants, file_name
        )

    @server.tool()
    def add_comment(
        file: str, author: str, text: str = "", vote: str | None = None
    ) -> dict[str, Any]:
        """Append a comment (and optionally a vote) to a discussion (like `discussions comment`).

        Args:
            file: the discussion file (path or name in the discussions folder).
            author: the name to sign the comment with.
            text: the comment; may contain markers such as Q:, TODO:, DECISION:, @alias.
            vote: READY, CHANGES or REJECT (any case); optional.
        """
        return call(t.add_comment, file, author, text, vote)  # type: ignore[no-any-return]

    @server.tool()
    def start_turn(
        file: str,
        participants: list[str] | None = None,
        callout: str | None = None,
        provider: str | None = None,
        sequential: bool = False,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Ask AI participants to answer (like `discussions turn`), in the background.

        Returns at once with a `ticket`; the turn appends its comments to the file as usual.
        Collect the outcome with turn_result.

        Args:
            file: the discussion file (path or name in the discussions folder).
            participants: aliases to ask, e.g. ["architect"]; "all" means every participant.
                Default: those @mentioned and not yet answered, else the discussion's.
            callout: a specific question or request for this turn.
            provider: use this provider for every participant (no fallback), e.g. "mock".
            sequential: one after another, each seeing the previous answers.
            timeout: seconds per provider call.
        """
        return call(  # type: ignore[no-any-return]
            t.start_turn, file, participants, callout, provider, sequential, timeout
        )

    @server.tool()
    def turn_result(ticket: str, wait: float = 20.0) -> dict[str, Any]:
        """Progress or outcome of a turn started with start_turn.

        Waits up to `wait` seconds (at most 45) for the turn to finish. `state` is "running"
        (call again), "done" (`result` is the `discussions turn --json` object) or "failed"
        (`error` says why).

        Args:
            ticket: the ticket start_turn returned.
            wait: seconds to wait for the turn to finish (0-45, default 20).
        """
        return call(t.turn_result, ticket, wait)  # type: ignore[no-any-return]

    @server.tool()
    def advance(file: str, to: str | None = None) -> dict[str, Any]:
        """Move a discussion to its next phase, or to phase `to` (like `discussions advance`).
        Votes restart in the new phase.

        Args:
            file: the discussion file (path or name in the discussions folder).
            to: the phase to move to (default: the current phase's next).
        """
        return call(t.advance, file, to)  # type: ignore[no-any-return]

    @server.resource(
        f"{RESOURCE_SCHEME}://files/{{name}}",
        name="discussion",
        description="A discussion file's markdown, by file name in the discussions folder.",
        mime_type="text/markdown",
    )
    def discussion_markdown(name: str) -> str:
        try:
            return t.markdown(name)
        except DiscussionsError as exc:
            raise ResourceError(str(exc)) from None

    return server


def serve() -> None:
    """Serve over standard input and output until the client disconnects. Turns still
    running then stop: their AI CLIs are killed rather than left behind (what they had not
    written yet is lost, as with Ctrl-C on `discussions turn`)."""
    import sys

    try:
        build_server().run("stdio")
    finally:
        command = sys.modules.get("discussions.providers.command")
        if command is not None:
            command.terminate_all()
