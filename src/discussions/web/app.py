"""The web server: pages, a JSON API and server-sent events over the discussion files.

Starlette (routing, requests, streaming responses) served by uvicorn. `Site` holds one
server's state; each of its public coroutines is one route. Every write is an append the CLI
could have made (through `service.DiscussionTools`); nothing is stored anywhere else. Access
rules are in `access`; pages forbid inline and foreign scripts (Content-Security-Policy) on top
of escaping every comment (`htmlview`).
"""

from __future__ import annotations

import functools
import html
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from .. import __version__
from ..errors import (
    Busy,
    DiscussionNotFound,
    DiscussionsError,
    NotADiscussion,
    NotWritable,
    ProviderError,
    UnknownProvider,
    UntrustedProvider,
)
from ..model.discussion import Comment, Discussion
from ..ops.grounds import resolve
from ..ops.service import DiscussionTools, TurnJob
from ..settings.workspace import Workspace, display_path
from ..views.status import status_of
from . import inputs
from .access import ApiError, Settings, check_read, check_write, new_token, presented, valid
from .assets import diagram_scripts, static_file
from .controls import CSS as CONTROLS_CSS
from .live import Hub, file_signature, older_comments, text_hash

__all__ = ["ApiError", "Settings", "create_app", "new_token"]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
WARM_LIMIT = 8 << 20
"""Discussions larger than this (bytes) are not rendered ahead of a visit."""
SCRIPT = f'<script src="/static/app.js?v={__version__}" defer></script>'
AHEAD_CHUNK = 50
"""Comments rendered ahead (`Site.render_ahead`) between two looks for a page being made."""
FIRST_VIEW = 50
"""Comments a discussion's page is served with: the newest; the page's script fetches the
older ones (`api_older`), and without scripts a link in their place opens `ALL_COMMENTS`."""
COMMENT_OPTIONS = ("vote", "motion", "second", "ballot")
"""The fields of a comment besides its author and text (`ops.comments.comment`'s options)."""
ALL_COMMENTS = "?comments=all"
"""The query of the page with every comment rendered at once."""
log = logging.getLogger("discussions.web")

Handler = Callable[["Site", Request], Awaitable[Response]]


def status_for(exc: DiscussionsError) -> int:
    """The HTTP status of a library error."""
    if isinstance(exc, DiscussionNotFound):
        return 404
    if isinstance(exc, NotWritable | NotADiscussion | Busy):
        return 409
    if isinstance(exc, ProviderError) and not isinstance(exc, UnknownProvider | UntrustedProvider):
        return 502
    return 400


def endpoint(write: bool = False) -> Callable[[Handler], Handler]:
    """Access checks first; errors as JSON with the CLI's messages; never a cached answer."""

    def wrap(handler: Handler) -> Handler:
        @functools.wraps(handler)
        async def run(site: Site, request: Request) -> Response:
            try:
                (check_write if write else check_read)(site.settings, request)
                response = await handler(site, request)
            except ApiError as exc:
                response = JSONResponse({"error": str(exc)}, exc.status)
            except DiscussionsError as exc:
                response = JSONResponse({"error": str(exc)}, status_for(exc))
            except Exception:  # a bug must still answer in JSON, and say so on the console
                log.exception("%s %s failed", request.method, request.url.path)
                response = JSONResponse({"error": "internal error (see the server's log)"}, 500)
            response.headers.setdefault("Cache-Control", "no-store")
            response.headers["X-Content-Type-Options"] = "nosniff"
            return response

        return run

    return wrap


def call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Awaitable[Any]:
    """Run blocking library code (file reads, parsing, provider calls) off the event loop."""
    return run_in_threadpool(function, *args, **kwargs)


class Site:
    """One server: its workspace, settings, operations and live channels."""

    def __init__(
        self, workspace: Workspace, settings: Settings, tools: DiscussionTools, hub: Hub
    ) -> None:
        self.workspace = workspace
        self.settings = settings
        self.tools = tools
        self.hub = hub
        self.folder = workspace.config.output_directory
        self._warming: threading.Thread | None = None
        self._recent: tuple[tuple[Path, tuple[int, int, int]], Discussion] | None = None
        self._older: dict[Path, threading.Thread] = {}
        self._warmed: dict[Path, tuple[int, int, int]] = {}
        """The signature of each file when `warm` last rendered it."""
        self._pages = threading.Condition()
        self._serving = 0
        """Pages being served now: `warm` waits for none before each file."""
        tools.observe(self._observe)

    def _observe(self, job: TurnJob, step: str, data: dict[str, Any]) -> None:
        if job.path is not None:
            self.hub.publish(job.path, step, data)

    # -- the discussion a URL names --------------------------------------------------------

    def file_for(self, name: str) -> str:
        """The discussion file `name` in the folder, by the rule the MCP server follows too
        (`catalog.served_path`): never a path elsewhere, a link out of the project or a file
        that is not a discussion (404, 409)."""
        from ..model.catalog import served_path

        return str(served_path(name, self.workspace))

    def file_path(self, name: str) -> Path:
        """`file_for`, as the path an operation takes."""
        return Path(self.file_for(name))

    def load(self, name: str) -> Discussion:
        return Discussion.load(self.file_for(name), self.workspace)

    def load_shown(self, name: str) -> Discussion:
        """`load`, reusing the discussion the last page was rendered from while its file has
        not changed: a page's script asks for the comments it was served without at once."""
        path = Path(self.file_for(name))
        seen = (path, file_signature(path))  # before reading: a change after it means a new look
        recent = self._recent
        if recent is not None and recent[0] == seen:
            return recent[1]
        d = Discussion.load(path, self.workspace)
        d.comments  # noqa: B018 - parsed now, once, for whoever asks next
        self._recent = (seen, d)
        return d

    async def target(self, request: Request) -> tuple[str, dict[str, Any]]:
        """The discussion a write names (checked to be one: 404/409 otherwise) and the JSON
        object sent."""
        file = await call(self.file_for, request.path_params["name"])
        return file, await inputs.json_body(request)

    async def target_path(self, request: Request) -> tuple[Path, dict[str, Any]]:
        """`target`, the discussion as the path an operation takes."""
        file, data = await self.target(request)
        return Path(file), data

    def asking(self, data: dict[str, Any]) -> dict[str, Any]:
        """What a turn and a run both take from the request (the provider is checked where
        they start: `DiscussionTools.check_provider`, the MCP server's rule too)."""
        return {
            "participants": inputs.names(data, "participants"),
            "callout": inputs.text(data, "callout") or None,
            "provider": inputs.text(data, "provider") or None,
            "sequential": inputs.flag(data, "sequential"),
        }

    # -- pages -----------------------------------------------------------------------------

    def page_head(self, request: Request, extra: dict[str, str]) -> str:
        meta = {"discussions-author": self.settings.author, **extra}
        if valid(self.settings, presented(self.settings, request)):
            meta["discussions-token"] = self.settings.token
        tags = "".join(
            f'<meta name="{html.escape(k)}" content="{html.escape(v, quote=True)}">'
            for k, v in meta.items()
        )
        # An empty icon: no request for /favicon.ico (a 404 on every page load).
        return (
            f'{tags}<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="icon" href="data:,"><style>{CONTROLS_CSS}</style>'
        )

    def with_cookie(self, request: Request) -> Response | None:
        """``?token=`` on a page: keep it in a cookie and drop it from the address bar."""
        token = request.query_params.get("token")
        if token is None or not valid(self.settings, token):
            return None
        response = RedirectResponse(request.url.path, 303)
        response.set_cookie(self.settings.cookie, token, httponly=True, samesite="strict")
        return response

    @endpoint()
    async def index(self, request: Request) -> Response:
        from ..views.html import list_page

        redirect = self.with_cookie(request)
        if redirect is not None:
            return redirect
        from .controls import new_discussion_html

        with self.serving():
            rows = await call(self.rows)
            for row in rows:
                row["href"] = "/d/" + quote(Path(row["file"]).name)
            writable = valid(self.settings, presented(self.settings, request))
            form = await call(new_discussion_html, self.workspace, writable)
            head = self.page_head(request, {})
            shown = page(list_page(rows, head=head, script=SCRIPT, controls=form))
        self.warm_soon()  # the next click is likely one of these (some may be new since)
        return shown

    def rows(self) -> list[dict[str, Any]]:
        from ..model.catalog import list_discussions

        try:
            return list_discussions(self.workspace)[0]
        except DiscussionNotFound:
            return []

    @endpoint()
    async def discussion(self, request: Request) -> Response:
        redirect = self.with_cookie(request)
        if redirect is not None:
            return redirect
        with self.serving():
            d = await call(self.load_shown, request.path_params["name"])
            shown = page(await call(self.render, request, d))
        if request.query_params.get("comments") != "all":
            # Once the page is sent: not to slow its sending down.
            shown.background = BackgroundTask(self.render_older_soon, d)
        return shown

    def render_older_soon(self, d: Discussion) -> None:
        """Render in the background the comments `d`'s page was served without (its script
        asks for them next: `api_older` waits for this rather than render them twice)."""
        older = d.comments[: max(0, len(d.comments) - FIRST_VIEW)]
        if older:
            work = threading.Thread(
                target=self.render_ahead, args=(older,), name="discussions-older"
            )
            work.daemon = True
            work.start()  # before it is shared: `api_older` may join it at once
            self._older[d.path] = work

    def render(self, request: Request, d: Discussion) -> str:
        from ..views.html import discussion_page
        from .controls import BACK_LINK, controls_html

        name = d.path.name
        head = self.page_head(
            request,
            {
                "discussions-file": name,
                "discussions-count": str(len(d.comments)),
                "discussions-size": str(len(d.text)),
                "discussions-hash": text_hash(d.text),
            },
        )
        writable = valid(self.settings, presented(self.settings, request))
        controls = controls_html(d, self.workspace, name, writable)
        every = request.query_params.get("comments") == "all"
        return discussion_page(
            resolve(d),
            head=head,
            controls=controls,
            script=SCRIPT + diagram_scripts(self.workspace),
            nav=BACK_LINK,
            newest=None if every else FIRST_VIEW,
            all_href=ALL_COMMENTS,
        )

    async def static(self, request: Request) -> Response:
        return static_file(request.path_params["name"], self.workspace)  # `assets`

    # -- reading ---------------------------------------------------------------------------

    @endpoint()
    async def api_list(self, request: Request) -> Response:
        status = request.query_params.get("status")
        rows = await call(self.rows)
        if status:
            rows = [r for r in rows if r["status"].upper() == status.upper()]
        return JSONResponse(rows)

    @endpoint()
    async def api_status(self, request: Request) -> Response:
        d = await call(self.load, request.path_params["name"])
        data = await call(lambda: status_of(resolve(d)))
        data["file"] = display_path(d.path)  # relative to the project: no home folder shown
        return JSONResponse(data)

    @endpoint()
    async def api_text(self, request: Request) -> Response:
        d = await call(self.load, request.path_params["name"])
        return PlainTextResponse(d.text, media_type="text/markdown; charset=utf-8")

    @endpoint()
    async def api_export(self, request: Request) -> Response:
        from ..ops.export import export

        path = await call(self.file_path, request.path_params["name"])
        kind = request.query_params.get("format", "html")
        if kind not in ("html", "json"):
            raise ApiError(400, f"unknown export format {kind!r} (html or json; a post is a POST)")
        done = await call(export, self.workspace, path, kind, save=False)
        if kind == "html":
            headers = download(f"{path.stem}.html") | {"Content-Security-Policy": CSP}
            return HTMLResponse(done.text, headers=headers)
        headers = download(f"{path.stem}.json")
        return Response(done.text, media_type="application/json", headers=headers)

    @endpoint()
    async def api_older(self, request: Request) -> Response:
        """The comments before line ``before``, rendered: those a discussion's page was
        served without (`FIRST_VIEW`)."""
        d = await call(self.load_shown, request.path_params["name"])
        before = int_param(request, "before", 0)
        rendering = self._older.pop(d.path, None)
        if rendering is not None:
            await call(rendering.join)
        return JSONResponse(await call(older_comments, d, before))

    @endpoint()
    async def api_job(self, request: Request) -> Response:
        try:
            job = self.tools.job(request.path_params["ticket"])
        except DiscussionsError as exc:
            raise ApiError(404, str(exc)) from None
        return JSONResponse(job.to_dict())

    @endpoint()
    async def api_events(self, request: Request) -> Response:
        # The page just served asks for its events at once: its parse serves while unchanged.
        d = await call(self.load_shown, request.path_params["name"])
        count = int_param(request, "count", len(d.comments))
        size = int_param(request, "size", len(d.text))
        digest = request.query_params.get("hash")
        return StreamingResponse(
            self.hub.stream(d.path, count, size, digest),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    # -- writing ---------------------------------------------------------------------------

    @endpoint(write=True)
    async def api_new(self, request: Request) -> Response:
        """A new discussion in the discussions folder, made as `discussions new` makes it
        (title, optional template and context); answers with it and the address of its page."""
        data = await inputs.json_body(request)
        title = (inputs.text(data, "title") or "").strip()
        if not title:
            raise ApiError(400, "give the discussion a title")
        template = (inputs.text(data, "template") or "").strip() or None
        context = (inputs.text(data, "context") or "").strip() or None
        from ..ops.lifecycle import create

        made = await call(create, self.workspace, title, template=template, context=context)
        shown = made.to_dict()
        shown["href"] = "/d/" + quote(made.discussion.path.name)
        return JSONResponse(shown, 201)

    @endpoint(write=True)
    async def api_comment(self, request: Request) -> Response:
        from ..ops.comments import comment

        path, data = await self.target_path(request)
        author = inputs.text(data, "author") or ""
        text = inputs.text(data, "text", "") or ""
        said = {key: inputs.text(data, key) or None for key in COMMENT_OPTIONS}
        done = await call(comment, self.workspace, path, author, text, **said)
        return JSONResponse(done.to_dict(), 201)

    @endpoint(write=True)
    async def api_turn(self, request: Request) -> Response:
        file, data = await self.target(request)
        job = await call(self.tools.start_turn, file, **self.asking(data))
        return JSONResponse(job, 202)

    @endpoint(write=True)
    async def api_run(self, request: Request) -> Response:
        file, data = await self.target(request)
        rounds = inputs.whole(data, "rounds")
        job = await call(self.tools.start_run, file, rounds=rounds, **self.asking(data))
        return JSONResponse(job, 202)

    @endpoint(write=True)
    async def api_advance(self, request: Request) -> Response:
        from ..ops.lifecycle import advance

        path, data = await self.target_path(request)
        to = inputs.text(data, "to") or None
        return JSONResponse((await call(advance, self.workspace, path, to)).to_dict())

    @endpoint(write=True)
    async def api_close(self, request: Request) -> Response:
        from ..ops.lifecycle import close

        path, data = await self.target_path(request)
        status = inputs.text(data, "status", "CLOSED") or "CLOSED"
        return JSONResponse((await call(close, self.workspace, path, status)).to_dict())

    @endpoint(write=True)
    async def api_reopen(self, request: Request) -> Response:
        from ..ops.lifecycle import reopen

        path, _ = await self.target_path(request)
        return JSONResponse((await call(reopen, self.workspace, path)).to_dict())

    @endpoint(write=True)
    async def api_post(self, request: Request) -> Response:
        """A post written by a participant, returned (never saved into the discussion). The
        request waits for the provider (its timeout bounds the wait)."""
        from ..ops.export import export

        path = await call(self.file_path, request.path_params["name"])
        data = await inputs.json_body(request)
        alias = inputs.text(data, "participant", "moderator") or "moderator"
        provider = await call(self.tools.check_provider, inputs.text(data, "provider"))
        done = await call(
            export, self.workspace, path, "post", save=False, participant=alias, provider=provider
        )
        markdown, author = done.text, done.author
        return JSONResponse({"markdown": markdown, "author": author})

    # -- the application -------------------------------------------------------------------

    @contextmanager
    def serving(self) -> Iterator[None]:
        """A page is being made: the background render (`warm`) waits until none is, so the
        first visit after the start does not share the processor with it."""
        with self._pages:
            self._serving += 1
        try:
            yield
        finally:
            with self._pages:
                self._serving -= 1
                self._pages.notify_all()

    def wait_idle(self) -> None:
        """Return once no page is being made (`serving`)."""
        with self._pages:
            self._pages.wait_for(lambda: self._serving == 0)

    def render_ahead(self, comments: Sequence[Comment]) -> None:
        """Render `comments` ahead (`htmlview` remembers them), `AHEAD_CHUNK` at a time, each
        chunk once no page is being made: a page asked for meanwhile shares the processor
        with one chunk at most, not with the rest of a long discussion."""
        from ..views.html import render_bodies

        for start in range(0, len(comments), AHEAD_CHUNK):
            self.wait_idle()
            render_bodies(comments[start : start + AHEAD_CHUNK])

    def warm_soon(self) -> None:
        """`warm` in the background, unless it is running already."""
        if self._warming is None or not self._warming.is_alive():
            self._warming = threading.Thread(target=self.warm, name="discussions-warm", daemon=True)
            self._warming.start()

    def warm(self) -> None:
        """Render every discussion once, in the background: comments render once and are
        remembered (`htmlview`), so the first visit to a long discussion is as fast as the
        next. A file rendered already and unchanged since is passed over: the list page asks
        for this on every visit, and re-deriving a thousand files each time kept the server
        busy."""
        from ..model.catalog import Bounds, refusal_of

        ws = self.workspace
        self.wait_idle()  # not even the listing beside the first page after the start
        folder = ws.config.output_directory
        bounds = Bounds.of(ws, folder)
        for path in sorted(folder.glob("*.md"), key=lambda p: file_signature(p)[0]):
            self.wait_idle()  # smallest first, and never beside a page being made
            if refusal_of(path, ws, bounds) is not None:  # what `discussion_files` leaves out
                continue
            try:
                seen = file_signature(path)
                if seen[0] <= WARM_LIMIT and self._warmed.get(path) != seen:
                    self.render_ahead(Discussion.load(path, self.workspace).comments)
                    self._warmed[path] = seen  # unchanged since: its comments are cached
            except (DiscussionsError, OSError):
                continue

    def routes(self) -> list[Route]:
        table: list[tuple[str, Callable[[Request], Awaitable[Response]], tuple[str, ...]]] = [
            ("/", self.index, ()),
            ("/d/{name}", self.discussion, ()),
            ("/static/{name}", self.static, ()),
            ("/api/discussions", self.api_list, ()),
            ("/api/discussions", self.api_new, ("POST",)),
            ("/api/discussions/{name}", self.api_status, ()),
            ("/api/discussions/{name}/text", self.api_text, ()),
            ("/api/discussions/{name}/export", self.api_export, ()),
            ("/api/discussions/{name}/events", self.api_events, ()),
            ("/api/discussions/{name}/comments", self.api_older, ()),
            ("/api/discussions/{name}/comments", self.api_comment, ("POST",)),
            ("/api/discussions/{name}/turns", self.api_turn, ("POST",)),
            ("/api/discussions/{name}/runs", self.api_run, ("POST",)),
            ("/api/discussions/{name}/advance", self.api_advance, ("POST",)),
            ("/api/discussions/{name}/close", self.api_close, ("POST",)),
            ("/api/discussions/{name}/reopen", self.api_reopen, ("POST",)),
            ("/api/discussions/{name}/post", self.api_post, ("POST",)),
            ("/api/turns/{ticket}", self.api_job, ()),
        ]
        return [Route(path, handler, methods=list(m) or None) for path, handler, m in table]


def create_app(
    workspace: Workspace,
    settings: Settings,
    tools: DiscussionTools | None = None,
    interval: float | None = None,
    warm_cache: bool = True,
) -> Starlette:
    """The ASGI application serving `workspace`'s discussions folder."""
    hub = Hub(workspace) if interval is None else Hub(workspace, interval)
    site = Site(workspace, settings, tools or DiscussionTools(workspace), hub)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.start()
        if warm_cache:
            site.warm_soon()
        try:
            yield
        finally:
            hub.close()

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        message = "not found" if status == 404 else getattr(exc, "detail", "bad request")
        return JSONResponse({"error": f"{message}: {request.url.path}"}, status)

    app = Starlette(
        routes=site.routes(),
        lifespan=lifespan,
        exception_handlers={404: not_found, 405: not_found},
    )
    app.state.hub = hub
    app.state.site = site
    return app


def page(content: str) -> HTMLResponse:
    return HTMLResponse(content, headers={"Content-Security-Policy": CSP})


def download(name: str) -> dict[str, str]:
    """Save as `name` (RFC 6266: an ASCII fallback and the UTF-8 name)."""
    fallback = name.encode("ascii", "replace").decode().replace("?", "_").replace('"', "_")
    disposition = f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name)}"
    return {"Content-Disposition": disposition}


def int_param(request: Request, key: str, default: int) -> int:
    try:
        return max(0, int(request.query_params.get(key, default)))
    except ValueError:
        raise ApiError(400, f"{key!r} must be a whole number") from None
