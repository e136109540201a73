"""The web server: pages, a JSON API and server-sent events over the discussion files.

Starlette (routing, requests, streaming responses) served by uvicorn. Every write is an append
the CLI could have made (through `service.DiscussionTools`); nothing is stored anywhere else.

Security: a per-server token. Writes need it in an ``Authorization: Bearer`` header, which a
page of another site cannot send here (and forms cannot carry); reads need it (header, the
``discussions_token`` cookie, or ``?token=``) when the server listens beyond loopback. On
loopback, requests must name a loopback host, so a rebinding DNS name cannot read through the
browser. Pages forbid inline and foreign scripts (Content-Security-Policy) on top of escaping
every comment.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
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
    DiscussionNotFound,
    DiscussionsError,
    InvalidVote,
    NotWritable,
    PhaseError,
    ProviderError,
    UnknownParticipant,
    UnknownProvider,
)
from ..service import DiscussionTools, TurnJob
from ..workspace import Workspace
from .controls import CSS as CONTROLS_CSS
from .live import Hub

COOKIE = "discussions_token"
MAX_BODY = 1 << 20
"""Largest request body accepted, in bytes."""
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
WARM_LIMIT = 8 << 20
"""Discussions larger than this (bytes) are not rendered ahead of a visit."""


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(slots=True)
class Settings:
    token: str
    """The per-server secret."""
    public: bool = False
    """Listening beyond loopback: reading needs the token too."""
    port: int = 0
    """The port served (for the loopback Host check; 0 accepts any port)."""
    author: str = ""
    """Suggested author name for comments from the page."""


def status_for(exc: DiscussionsError) -> int:
    """The HTTP status of a library error."""
    if isinstance(exc, DiscussionNotFound):
        return 404
    if isinstance(exc, NotWritable):
        return 409
    if isinstance(exc, ProviderError) and not isinstance(exc, UnknownProvider):
        return 502
    if isinstance(exc, InvalidVote | PhaseError | UnknownParticipant | UnknownProvider):
        return 400
    return 400


def new_token() -> str:
    return secrets.token_urlsafe(24)


def create_app(
    workspace: Workspace,
    settings: Settings,
    tools: DiscussionTools | None = None,
    interval: float | None = None,
    warm_cache: bool = True,
) -> Starlette:
    """The ASGI application serving `workspace`'s discussions folder."""
    tools = tools or DiscussionTools(workspace)
    hub = Hub(workspace) if interval is None else Hub(workspace, interval)

    def observer(job: TurnJob, step: str, data: dict[str, Any]) -> None:
        if job.path is not None:
            hub.publish(job.path, step, data)

    tools.observe(observer)
    folder = workspace.config.output_directory

    # -- access ------------------------------------------------------------------------------

    def presented(request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip()
        return request.cookies.get(COOKIE) or request.query_params.get("token")

    def valid(token: str | None) -> bool:
        return token is not None and secrets.compare_digest(token, settings.token)

    def check_host(request: Request) -> None:
        if settings.public:
            return
        host = request.headers.get("host", "")
        name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
        if not name:
            name, port = host, ""
        if name not in LOOPBACK or (settings.port and port and port != str(settings.port)):
            raise ApiError(403, f"this server answers to 127.0.0.1:{settings.port} only")

    def check_read(request: Request) -> None:
        check_host(request)
        if settings.public:
            token = presented(request)
            if token is None:
                raise ApiError(401, "this server needs its token: open the address it printed")
            if not valid(token):
                raise ApiError(403, "wrong token")

    def check_write(request: Request) -> None:
        check_host(request)
        auth = request.headers.get("authorization", "")
        if not auth.lower().startswith("bearer "):
            raise ApiError(401, "writing needs the server's token (Authorization: Bearer TOKEN)")
        if not valid(auth[7:].strip()):
            raise ApiError(403, "wrong token")

    # -- helpers -----------------------------------------------------------------------------

    def file_for(name: str) -> str:
        """A discussion file in the folder named by the URL (never a path elsewhere)."""
        if not name or "/" in name or "\\" in name or name.startswith(".") or "\x00" in name:
            raise ApiError(404, f"no such discussion: {name}")
        path = folder / (name if name.endswith(".md") else f"{name}.md")
        if not path.is_file():
            raise ApiError(404, f"no such discussion: {name}")
        return str(path)

    def load(name: str) -> Any:
        from ..format import has_discussion_header
        from ..model import Discussion

        d = Discussion.load(file_for(name), workspace)
        if not has_discussion_header(d.text):
            raise ApiError(409, f"{name} is not a discussion (no `<!-- DISCUSSION -->` header)")
        return d

    async def body(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ApiError(413, f"request body over {MAX_BODY} bytes")
        try:
            data = json.loads(raw or b"{}")
        except ValueError as exc:
            raise ApiError(400, f"the body is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the body must be a JSON object")
        return data

    def text_field(data: dict[str, Any], key: str, default: str | None = None) -> str | None:
        value = data.get(key, default)
        if value is not None and not isinstance(value, str):
            raise ApiError(400, f"{key!r} must be a string")
        return value

    def names_field(data: dict[str, Any], key: str) -> list[str]:
        value = data.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ApiError(400, f"{key!r} must be a list of participant aliases")
        return [v.lstrip("@") for v in value]

    def int_field(data: dict[str, Any], key: str) -> int | None:
        value = data.get(key)
        if value is None or value == "":
            return None
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ApiError(400, f"{key!r} must be a whole number")
        try:
            return int(value)
        except ValueError:
            raise ApiError(400, f"{key!r} must be a whole number") from None

    Handler = Callable[[Request], Awaitable[Response]]

    def endpoint(write: bool = False) -> Callable[[Handler], Handler]:
        """Access checks and errors as JSON with the CLI's messages."""

        def wrap(handler: Handler) -> Handler:
            async def run(request: Request) -> Response:
                try:
                    (check_write if write else check_read)(request)
                    response = await handler(request)
                except ApiError as exc:
                    response = JSONResponse({"error": str(exc)}, exc.status)
                except DiscussionsError as exc:
                    response = JSONResponse({"error": str(exc)}, status_for(exc))
                response.headers.setdefault("Cache-Control", "no-store")
                response.headers["X-Content-Type-Options"] = "nosniff"
                return response

            return run

        return wrap

    async def call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await run_in_threadpool(function, *args, **kwargs)

    # -- pages -------------------------------------------------------------------------------

    def page_head(request: Request, extra: dict[str, str]) -> str:
        meta = {"discussions-author": settings.author, **extra}
        token = presented(request)
        if valid(token):
            meta["discussions-token"] = settings.token
        tags = "".join(
            f'<meta name="{html.escape(k)}" content="{html.escape(v, quote=True)}">'
            for k, v in meta.items()
        )
        # An empty icon: no request for /favicon.ico (a 404 on every page load).
        return (
            tags + '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,">' + f"<style>{CONTROLS_CSS}</style>"
        )

    script = f'<script src="/static/app.js?v={__version__}" defer></script>'

    def page(content: str) -> HTMLResponse:
        return HTMLResponse(content, headers={"Content-Security-Policy": CSP})

    def with_cookie(request: Request) -> Response | None:
        """``?token=`` on a page: keep it in a cookie and drop it from the address bar."""
        token = request.query_params.get("token")
        if token is None or not valid(token):
            return None
        target = request.url.path
        response = RedirectResponse(target, 303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
        return response

    @endpoint()
    async def index(request: Request) -> Response:
        redirect = with_cookie(request)
        if redirect is not None:
            return redirect
        from ..htmlview import list_page

        rows = await call(catalog_rows)
        for row in rows:
            row["href"] = "/d/" + quote(Path(row["file"]).name)
        return page(list_page(rows, head=page_head(request, {}), script=script))

    def catalog_rows() -> list[dict[str, Any]]:
        from ..catalog import list_discussions

        try:
            return list_discussions(workspace)[0]
        except DiscussionNotFound:
            return []

    @endpoint()
    async def discussion(request: Request) -> Response:
        redirect = with_cookie(request)
        if redirect is not None:
            return redirect
        name = request.path_params["name"]
        d = await call(load, name)
        return page(await call(render_page, request, d, name))

    def render_page(request: Request, d: Any, name: str) -> str:
        from ..htmlview import discussion_page
        from .controls import controls_html

        head = page_head(
            request,
            {
                "discussions-file": Path(d.path).name,
                "discussions-count": str(len(d.comments)),
                "discussions-size": str(len(d.text)),
            },
        )
        writable = valid(presented(request))
        controls = controls_html(d, workspace, Path(d.path).name, writable)
        return discussion_page(d, head=head, controls=controls, script=script)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("app.js",):
            return PlainTextResponse("not found", 404)
        text = resources.files(__package__).joinpath("static", name).read_text("utf-8")
        return Response(
            text,
            media_type="text/javascript; charset=utf-8",
            headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
        )

    # -- API ---------------------------------------------------------------------------------

    @endpoint()
    async def api_list(request: Request) -> Response:
        status = request.query_params.get("status")
        rows = await call(catalog_rows)
        if status:
            rows = [r for r in rows if r["status"].upper() == status.upper()]
        return JSONResponse(rows)

    @endpoint()
    async def api_status(request: Request) -> Response:
        d = await call(load, request.path_params["name"])
        return JSONResponse(d.to_dict())

    @endpoint()
    async def api_text(request: Request) -> Response:
        d = await call(load, request.path_params["name"])
        return PlainTextResponse(d.text, media_type="text/markdown; charset=utf-8")

    @endpoint()
    async def api_export(request: Request) -> Response:
        from ..export import export_html, export_json

        d = await call(load, request.path_params["name"])
        kind = request.query_params.get("format", "html")
        stem = Path(d.path).stem
        if kind == "html":
            content = await call(export_html, d)
            headers = _download(f"{stem}.html") | {"Content-Security-Policy": CSP}
            return HTMLResponse(content, headers=headers)
        if kind == "json":
            data = await call(export_json, d)
            return JSONResponse(data, headers=_download(f"{stem}.json"))
        raise ApiError(400, f"unknown export format {kind!r} (html or json; a post is a POST)")

    @endpoint(write=True)
    async def api_post(request: Request) -> Response:
        from ..export import write_post
        from ..runner import Runner

        d = await call(load, request.path_params["name"])
        data = await body(request)
        alias = text_field(data, "participant", "moderator") or "moderator"
        provider = text_field(data, "provider")
        markdown, author = await call(write_post, Runner(workspace), d, alias, provider)
        return JSONResponse({"markdown": markdown, "author": author})

    async def target(request: Request) -> tuple[str, dict[str, Any]]:
        """The discussion a write names (checked to be one, 404/409 otherwise) and the JSON
        object sent."""
        name = request.path_params["name"]
        file = file_for(name)
        data = await body(request)
        await call(load, name)
        return file, data

    def asking(data: dict[str, Any]) -> dict[str, Any]:
        """What a turn and a run both take from the request."""
        return {
            "participants": names_field(data, "participants"),
            "callout": text_field(data, "callout") or None,
            "provider": text_field(data, "provider") or None,
            "sequential": bool(data.get("sequential", False)),
        }

    @endpoint(write=True)
    async def api_comment(request: Request) -> Response:
        file, data = await target(request)
        author = text_field(data, "author") or ""
        text = text_field(data, "text", "") or ""
        vote = text_field(data, "vote") or None
        return JSONResponse(await call(tools.add_comment, file, author, text, vote), 201)

    @endpoint(write=True)
    async def api_turn(request: Request) -> Response:
        file, data = await target(request)
        return JSONResponse(await call(tools.start_turn, file, **asking(data)), 202)

    @endpoint(write=True)
    async def api_run(request: Request) -> Response:
        file, data = await target(request)
        rounds = int_field(data, "rounds")
        return JSONResponse(await call(tools.start_run, file, rounds=rounds, **asking(data)), 202)

    @endpoint(write=True)
    async def api_advance(request: Request) -> Response:
        file, data = await target(request)
        return JSONResponse(await call(tools.advance, file, text_field(data, "to") or None))

    @endpoint(write=True)
    async def api_close(request: Request) -> Response:
        file, data = await target(request)
        status = (text_field(data, "status", "CLOSED") or "CLOSED").strip().upper()
        if status == "OPEN":
            raise ApiError(400, "use reopen to reopen")
        return JSONResponse(await call(tools.set_status, file, status))

    @endpoint(write=True)
    async def api_reopen(request: Request) -> Response:
        file, _ = await target(request)
        return JSONResponse(await call(tools.set_status, file, "OPEN"))

    @endpoint()
    async def api_job(request: Request) -> Response:
        ticket = request.path_params["ticket"]
        try:
            job = tools.job(ticket)
        except DiscussionsError as exc:
            raise ApiError(404, str(exc)) from None
        return JSONResponse(job.to_dict())

    @endpoint()
    async def api_events(request: Request) -> Response:
        d = await call(load, request.path_params["name"])
        count = _int_param(request, "count", len(d.comments))
        size = _int_param(request, "size", len(d.text))
        return StreamingResponse(
            hub.stream(Path(d.path), count, size),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    def warm() -> None:
        """Render every discussion once, in the background: comments render once and are
        remembered (`htmlview`), so the first visit to a long discussion is as fast as the
        next."""
        from ..htmlview import discussion_page
        from ..model import Discussion

        for path in tools.discussion_files():
            try:
                if path.stat().st_size <= WARM_LIMIT:
                    discussion_page(Discussion.load(path, workspace))
            except (DiscussionsError, OSError):
                continue

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.start()
        if warm_cache:
            threading.Thread(target=warm, name="discussions-warm", daemon=True).start()
        try:
            yield
        finally:
            hub.close()

    routes = [
        Route("/", index),
        Route("/d/{name}", discussion),
        Route("/static/{name}", static),
        Route("/api/discussions", api_list),
        Route("/api/discussions/{name}", api_status),
        Route("/api/discussions/{name}/text", api_text),
        Route("/api/discussions/{name}/export", api_export),
        Route("/api/discussions/{name}/post", api_post, methods=["POST"]),
        Route("/api/discussions/{name}/comments", api_comment, methods=["POST"]),
        Route("/api/discussions/{name}/turns", api_turn, methods=["POST"]),
        Route("/api/discussions/{name}/runs", api_run, methods=["POST"]),
        Route("/api/discussions/{name}/advance", api_advance, methods=["POST"]),
        Route("/api/discussions/{name}/close", api_close, methods=["POST"]),
        Route("/api/discussions/{name}/reopen", api_reopen, methods=["POST"]),
        Route("/api/discussions/{name}/events", api_events),
        Route("/api/turns/{ticket}", api_job),
    ]
    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        message = "not found" if status == 404 else getattr(exc, "detail", "bad request")
        return JSONResponse({"error": f"{message}: {request.url.path}"}, status)

    app = Starlette(
        routes=routes, lifespan=lifespan, exception_handlers={404: not_found, 405: not_found}
    )
    app.state.hub = hub
    app.state.tools = tools
    app.state.started = time.time()
    return app


def _download(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{quote(name)}"'}


def _int_param(request: Request, key: str, default: int) -> int:
    try:
        return max(0, int(request.query_params.get(key, default)))
    except ValueError:
        raise ApiError(400, f"{key!r} must be a whole number") from None

