"""`discussions serve`: the discussions folder as a live web page and a JSON API.

Needs the ``web`` extra (Starlette and uvicorn). `serve` binds the socket itself, so the
address printed first is the one served, a busy port is reported before anything starts, and
``--port 0`` picks a free one.
"""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import Callable

from ..errors import DiscussionsError
from ..settings.workspace import Workspace

DEFAULT_PORT = 8765
MISSING = (
    "`discussions serve` needs the web extra: pip install 'discussions[web]' "
    "(Starlette and uvicorn)"
)


def require() -> None:
    """Raise a clear error when the web extra is not installed."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise DiscussionsError(MISSING) from None


def is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port`, or a `DiscussionsError` saying why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise DiscussionsError(f"cannot listen on {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if port and exc.errno in (98, 48):  # EADDRINUSE (Linux, macOS)
            raise DiscussionsError(
                f"port {port} is in use; choose another with --port (0 picks a free one)"
            ) from None
        raise DiscussionsError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def no_upgrade_advice(record: logging.LogRecord) -> bool:
    """Leave out uvicorn's warning on a request asking for a websocket: with none loaded it
    advises installing one, where the pages need none (the request is answered as plain HTTP)."""
    return record.funcName != "_unsupported_upgrade_warning"


def serve(
    workspace: Workspace,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    *,
    author: str = "",
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve until interrupted. `on_ready` gets the address (with the token) once listening."""
    require()
    import uvicorn

    from .app import Settings, create_app, new_token

    sock = bind(host, port)
    port = sock.getsockname()[1]
    settings = Settings(
        new_token(), public=not is_loopback(host), port=port, author=author, host=host
    )
    app = create_app(workspace, settings)
    config = uvicorn.Config(
        app,
        log_level="warning",
        timeout_graceful_shutdown=2,
        lifespan="on",
        access_log=False,
        ws="none",  # server-sent events only: no websocket library loaded before a request
    )
    logging.getLogger("uvicorn.error").addFilter(no_upgrade_advice)
    hub = app.state.hub

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            hub.close()  # end the event streams first: open pages must not hold the exit
            await super().shutdown(sockets)

    server = Server(config)
    if on_ready is not None:
        on_ready(url_of(host, port, settings.token))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        command = sys.modules.get("discussions.providers.command")
        if command is not None:
            command.terminate_all()
