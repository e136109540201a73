"""Who may read and write: the per-server token and the loopback Host check.

Writes need the token in an ``Authorization: Bearer`` header: a page of another site can make
the browser send cookies and simple form posts here, never that header. Reads need the token
(header, ``?token=``, or the cookie the page keeps it in) only when the server listens beyond
loopback. On loopback every request must name a loopback host or the one bound, so a DNS
name rebound to 127.0.0.1 cannot read through the browser.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from starlette.requests import Request

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


class ApiError(Exception):
    """A refusal with its HTTP status; the message is shown as ``{"error": ...}``."""

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
    """The port served (for the Host check and the cookie's name; 0 accepts any port)."""
    author: str = ""
    """Suggested author name for comments from the page."""
    host: str = "127.0.0.1"
    """The address bound (accepted as a Host name besides the loopback names)."""

    @property
    def cookie(self) -> str:
        """The cookie the page keeps the token in: one per port (cookies ignore ports, and
        a stale one from an earlier server on another port must not get in the way)."""
        return f"discussions_token_{self.port}"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def valid(settings: Settings, token: str | None) -> bool:
    """Whether `token` is this server's (compared in constant time, as bytes: a header may
    carry any character)."""
    if token is None:
        return False
    given = token.encode("utf-8", "replace")
    return secrets.compare_digest(given, settings.token.encode("utf-8"))


def bearer(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    return auth[7:].strip() if auth[:7].lower() == "bearer " else None


def presented(settings: Settings, request: Request) -> str | None:
    """The token a request carries: the first valid one of header, query and cookie, else the
    first given (so a wrong one is told apart from none)."""
    given = [
        t
        for t in (
            bearer(request),
            request.query_params.get("token"),
            request.cookies.get(settings.cookie),
        )
        if t is not None
    ]
    return next((t for t in given if valid(settings, t)), given[0] if given else None)


def check_host(settings: Settings, request: Request) -> None:
    if settings.public:
        return
    host = request.headers.get("host", "")
    if host.startswith("["):  # [::1]:8765
        name, _, port = host.partition("]")
        name, port = name + "]", port.removeprefix(":")
    else:
        name, _, port = host.partition(":")
    names = (*LOOPBACK, settings.host, f"[{settings.host}]")
    if name not in names or (settings.port and port and port != str(settings.port)):
        raise ApiError(403, f"this server answers to {settings.host}:{settings.port} only")


def check_read(settings: Settings, request: Request) -> None:
    check_host(settings, request)
    if not settings.public:
        return
    token = presented(settings, request)
    if token is None:
        raise ApiError(401, "this server needs its token: open the address it printed")
    if not valid(settings, token):
        raise ApiError(403, "wrong token: open the address `discussions serve` printed")


def check_write(settings: Settings, request: Request) -> None:
    check_host(settings, request)
    token = bearer(request)
    if token is None:
        raise ApiError(401, "writing needs the server's token (Authorization: Bearer TOKEN)")
    if not valid(settings, token):
        raise ApiError(403, "wrong token: open the address `discussions serve` printed")
