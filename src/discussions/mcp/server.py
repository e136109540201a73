"""`discussions` as a local MCP server (stdio), for AI coding agents.

The tools are `service.DiscussionTools` (plain methods over the library, shared with the web
server); this module wraps them in the official `mcp` SDK (2.x, ``MCPServer``). The SDK is
imported only when `build_server` runs, so ``discussions mcp --print-config`` and every other
command never pay for it.

Turns run in the background: `start_turn` returns a ticket at once, `turn_result` waits a
bounded time (at most `service.MAX_WAIT` seconds) and returns progress or the outcome. No call
blocks past about 50 s, so a client's request timeout is never reached.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from .. import __version__, ops
from ..errors import DiscussionsError
from ..ops.service import DiscussionTools, TurnJob
from .handshake import INSTRUCTIONS, NAME, Opening

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["DiscussionTools", "TurnJob", "build_server", "resource_uri", "serve"]

RESOURCE_SCHEME = "discussion"

Call = Callable[..., Any]
"""A tool's body: calls a `DiscussionTools` method, a library error becoming the tool's error."""


def resource_uri(path: Path) -> str:
    return f"{RESOURCE_SCHEME}://files/{quote(path.name)}"


def build_server(
    tools: DiscussionTools | None = None, opening: Opening | None = None
) -> MCPServer[Any]:
    """An ``mcp.server.mcpserver.MCPServer`` serving `tools`. Imports the SDK. `opening`: the
    first line read from standard input before, and the answer already sent for it
    (`handshake.open_connection`), for `run("stdio")` to take over from."""
    from mcp.server.mcpserver.exceptions import ToolError

    t = tools or DiscussionTools()

    def call(method: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except DiscussionsError as exc:
            raise ToolError(str(exc)) from None

    server = _server_class(t, opening)(name=NAME, version=__version__, instructions=INSTRUCTIONS)
    _reading_tools(server, t, call)
    _writing_tools(server, t, call)
    _comment_tool(server, t, call)
    _moving_tools(server, t, call)
    _outcome_tool(server, t, call)
    _drift_tool(server, t, call)
    _file_resource(server, t)
    _council_memory_tool(server, t, call)
    return server


def _server_class(t: DiscussionTools, opening: Opening | None) -> type[MCPServer[Any]]:
    """``MCPServer`` listing one resource per discussion file besides its own, and taking
    over from `opening` on stdio."""
    import anyio.to_thread
    from mcp.server.mcpserver import MCPServer
    from mcp_types import Resource as MCPResource

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

        async def run_stdio_async(self) -> None:
            if opening is None:
                return await super().run_stdio_async()
            from .takeover import run_stdio

            # The low-level server, as the SDK's own in-memory transport reaches it.
            await run_stdio(self._lowlevel_server, opening)

    return Server


def _reading_tools(server: MCPServer[Any], t: DiscussionTools, call: Call) -> None:
    """The tools that read: list_discussions, discussion_status, read_discussion, handoff."""

    @server.tool()
    def list_discussions(status: str | None = None) -> list[dict[str, Any]]:
        """List the discussions in the project's discussions folder.

        Args:
            status: only discussions with this status (OPEN, DECIDED, CLOSED, ...).

        Returns one row per file: file, title, phase, status, number of comments, consensus
        (the outcome reached, or null), number of questions, last change (UTC).
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
        """Read a discussion: title, phase, status, votes and its newest comments (author,
        line, vote, when it was written as `at` in UTC or null, and the text).

        Args:
            file: the discussion file (path or name in the discussions folder).
            comments: how many of the newest comments to return (0-50, default 10).
            max_chars: most characters of comment text in all (default 20000); older comments
                are dropped first, and `truncated` says when something was left out.
        """
        return call(t.read_discussion, file, comments, max_chars)  # type: ignore[no-any-return]

    @server.tool()
    def handoff(file: str) -> dict[str, Any]:
        """The hand-off of a decided discussion, for a coding agent that implements it
        itself: `text` (the instructions: decisions, TODOs with assignees, constraints,
        evidence cited, open questions, the minority report when someone dissents (named in
        its first lines), the rules of the change) and `handoff` (the same as
        JSON, approval "pending"). An error for a discussion that decided nothing. This tool
        changes nothing and starts nothing: `discussions apply` runs a lead only on a person's
        consent at the command line.

        Args:
            file: the discussion file (path or name in the discussions folder).
        """
        return call(t.handoff, file)  # type: ignore[no-any-return]


def _writing_tools(server: MCPServer[Any], t: DiscussionTools, call: Call) -> None:
    """The tool that creates a discussion: new_discussion (`ops.lifecycle.create`)."""

    @server.tool()
    def new_discussion(
        title: str,
        template: str | None = None,
        context: str | None = None,
        participants: list[str] | None = None,
        file_name: str | None = None,
        language: str | None = None,
    ) -> dict[str, Any]:
        """Create a discussion file from a template (like `discussions new`).

        Args:
            title: the discussion's title; the file name is made from it.
            template: template name (default: the project's default_template, "feature").
            context: context text written into the discussion.
            participants: persona aliases, e.g. ["architect", "security"] (default: the
                project's default_participants, else the template's).
            file_name: file name to create in the discussions folder instead.
            language: the language participants answer in, a code (nl) or a name; markers
                and votes stay in English.

        Returns the new discussion's state, with its `file`.
        """

        def make() -> dict[str, Any]:
            made = ops.create(
                t.workspace,
                title,
                template=template,
                context=context,
                participants=participants,
                file_name=file_name,
                language=language,
            )
            return made.to_dict()

        return call(make)  # type: ignore[no-any-return]


def _comment_tool(server: MCPServer[Any], t: DiscussionTools, call: Call) -> None:
    """The tool add_comment: a person's comment, through `ops.comments.comment`."""

    @server.tool()
    def add_comment(
        file: str,
        author: str,
        text: str = "",
        vote: str | None = None,
        motion: str | None = None,
        second: str | None = None,
        ballot: str | None = None,
    ) -> dict[str, Any]:
        """Append a comment (and optionally a vote) to a discussion (like `discussions comment`).

        Args:
            file: the discussion file (path or name in the discussions folder).
            author: the person's name to sign with (a participant's name is refused).
            text: the comment; may contain markers such as Q:, TODO:, DECISION:, @alias.
            vote: READY, CHANGES or REJECT (any case); optional.
            motion: move a motion with this text (MOTION:); optional.
            second: "yes" or "no": second the open motion or decline to; optional.
            ballot: YES, NO or ABSTAIN on the seconded motion; optional.
        """

        def write() -> dict[str, Any]:
            said = {"vote": vote, "motion": motion, "second": second, "ballot": ballot}
            return ops.comment(t.workspace, t.served(file), author, text, **said).to_dict()

        return call(write)  # type: ignore[no-any-return]


def _moving_tools(server: MCPServer[Any], t: DiscussionTools, call: Call) -> None:
    """The tools that move a discussion on: start_turn and turn_result (a turn in the
    background), advance (the next phase)."""

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
        from ..ops.lifecycle import advance as advance_op

        return call(  # type: ignore[no-any-return]
            lambda: advance_op(t.workspace, t.served(file), to).to_dict()
        )


def _outcome_tool(server: MCPServer[Any], t: DiscussionTools, call: Call) -> None:
    """The tool outcome: a person's verdict on how a decision turned out, through
    `ops.outcomes.outcome` (a comment, by `ops.comments.comment`)."""

    @server.tool()
    def outcome(file: str, verdict: str, reason: str, author: str) -> dict[str, Any]:
        """Record how a discussion's decision turned out (like `discussions outcome`): an
        ``OUTCOME: verdict - reason`` line in a comment signed by `author`. A later outcome
        replaces an earlier one; `discussions calibration` scores the votes against it.

        Args:
            file: the discussion file (path or name in the discussions folder).
            verdict: right, wrong or partly.
            reason: why: what happened since the decision.
            author: the person's name to sign with (a participant's name is refused).
        """
        from ..ops.outcomes import outcome as record

        return call(  # type: ignore[no-any-return]
            lambda: record(t.workspace, t.served(file), verdict, reason, author).to_dict()
        )


def _drift_tool(server: MCPServer[Any], t: DiscussionTools, call: Call) -> None:
    """The tool that reads the code's history against the decisions: drift (`ops.drift`)."""

    @server.tool()
    def drift(files: list[str] | None = None) -> dict[str, Any]:
        """The decisions whose governed code changed since they were recorded or implemented
        (the object `discussions drift --json` prints): for each decision that governs code
        (its GOVERNS: paths, and what its apply changed), the commits since then that changed
        that code, each with hash, subject, author, date, the governed paths it changed and
        whether it departs (neither touches nor names the discussion). Reads git only.

        Args:
            files: discussion files (path or name in the discussions folder); default every
                discussion in the folder.
        """
        from ..ops.drift import drift as drift_op

        return call(  # type: ignore[no-any-return]
            lambda: drift_op(t.workspace, [str(t.served(f)) for f in files or []]).to_dict()
        )


def _file_resource(server: MCPServer[Any], t: DiscussionTools) -> None:
    """The resource template ``discussion://files/{name}``: a discussion file's markdown."""
    from mcp.server.mcpserver.exceptions import ResourceError

    @server.resource(
        f"{RESOURCE_SCHEME}://files/{{name}}",
        name="discussion",
        description="A discussion file's markdown, by file name in the discussions folder.",
        mime_type="text/markdown",
    )
    def discussion_markdown(name: str) -> str:
        try:
            return t.markdown(unquote(name))
        except DiscussionsError as exc:
            raise ResourceError(str(exc)) from None


def _council_memory_tool(server: MCPServer[Any], t: DiscussionTools, call: Call) -> None:
    """The tool council_memory (`ops.council_memory`): reads, writes nothing."""

    @server.tool()
    def council_memory() -> dict[str, Any]:
        """What the council decided across the project's discussions and how its votes went:
        each settled discussion that decided or voted on something, newest first, with its
        tally, who voted what, its decisions, motions and dissent (`discussions council-memory
        --json`), derived from the discussion files. Changes nothing.
        """
        from ..ops.council_memory import council_memory as remembered

        return call(lambda: remembered(t.workspace).to_dict())  # type: ignore[no-any-return]


def serve(opening: Opening | None = None) -> None:
    """Serve over standard input and output until the client disconnects, from `opening` on
    (the first line read and answered before the SDK was loaded) when given. Turns still
    running then stop: their AI CLIs are killed rather than left behind (what they had not
    written yet is lost, as with Ctrl-C on `discussions turn`)."""
    import gc
    import sys

    # Importing the SDK makes a great many objects that all live on: collecting garbage
    # while it runs takes a fifth of its time and finds none.
    gc.disable()
    try:
        server = build_server(opening=opening)
    finally:
        gc.enable()
    gc.freeze()
    try:
        server.run("stdio")
    finally:
        command = sys.modules.get("discussions.providers.command")
        if command is not None:
            command.terminate_all()
