"""Web research as evidence: ``EVIDENCE: web URL`` fetches a page, ``EVIDENCE: search QUERY``
runs the search the user configured. The engine fetches, never an AI CLI (their web tools
stay off), and only what the user allowed (`settings.research`):

* ``http`` and ``https`` only, no user name or password in the URL, a host that
  ``evidence.web.domains`` names (``docs.python.org``, or ``*.readthedocs.io`` for its
  subdomains); set by the project's discussions.yaml, nothing is fetched until the user
  trusts it (`providers.trust.web_trusted`), as with ``evidence.commands``.
* Redirects are followed here, each hop checked by the same rule (at most `_MAX_REDIRECTS`):
  a redirect off the allowed domains is refused, never followed.
* One deadline for the whole fetch, redirects included (``evidence.web.timeout``); at most
  ``evidence.web.max_bytes`` read, the rest cut (said in the block).
* HTML becomes its readable text (`htmltext`); other text (plain, JSON, XML, markdown) is
  shown as it is; anything else (images, archives, PDFs) is refused.

The block records the URL it came from, when it was read and the SHA-256 of what the server
sent (``ref: sha256 ...``: the same page unchanged is a ``same`` block, not a second copy).
In a prompt it is quoted as data like every other block (`prompt.evidence_element`).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import shlex
import shutil
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote_plus, urljoin, urlsplit

from ...errors import ProviderError
from ...git.confine import Refused
from ...settings.research import WebSettings
from ...syntax import clock
from .htmltext import html_text
from .sources import Found

_MAX_REDIRECTS = 5
_CHUNK = 65536
_TEXT_TYPES = ("application/json", "application/xml", "application/xhtml+xml")
_USER_AGENT = "discussions-evidence/1"


@dataclass(slots=True)
class WebAccess:
    """What a fulfilment may reach: the settings, and whether the user trusts them here."""

    settings: WebSettings
    trusted: bool


@dataclass(slots=True)
class Page:
    """What one fetch read."""

    url: str
    """Where the body came from (after redirects)."""
    content_type: str
    body: bytes
    cut: bool
    """More was sent than ``max_bytes``; `body` is its start."""


def host_allowed(host: str, domains: tuple[str, ...]) -> bool:
    """Whether `host` is one of `domains`: the same name, or under a ``*.`` entry."""
    host = host.lower().rstrip(".")
    for domain in domains:
        if domain.startswith("*."):
            if host.endswith(domain[1:]) and host != domain[2:]:
                return True
        elif host == domain.rstrip("."):
            return True
    return False


def url_refusal(url: str, domains: tuple[str, ...]) -> str | None:
    """Why `url` may not be fetched, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return f"`{url}` is not an http:// or https:// URL"
    if not parts.hostname:
        return f"`{url}` names no host"
    if parts.username or parts.password:
        return f"`{url}` holds a user name or password"
    if not host_allowed(parts.hostname, domains):
        allowed = ", ".join(domains) or "none"
        return f"{parts.hostname} is not an allowed domain (evidence.web.domains: {allowed})"
    return None


def _usable(access: WebAccess) -> None:
    if not access.trusted:
        raise Refused(
            "the project's evidence.web / evidence.search settings are not trusted here; "
            "run `discussions trust` to allow them"
        )


def web(args: str, access: WebAccess) -> Found:
    """``web URL``: the page's text."""
    _usable(access)
    url = _url_in(args)
    if not access.settings.domains:
        raise Refused(
            "no domain is allowed: list the ones participants may read in evidence.web.domains "
            "(discussions.yaml or your config.yaml)"
        )
    page = fetch(url, access.settings.domains, access.settings)
    return _found(page, _page_text(page))


def _url_in(args: str) -> str:
    """The URL of ``web URL`` as a sentence may hold it: ``<URL>``, ``(URL)``, or followed by
    the sentence's full stop or comma (a URL seldom ends in one; the server would say 404)."""
    url = args.strip().rstrip(".,;:!?")
    for opening, closing in ("<>", "()"):
        if url.startswith(opening) and url.endswith(closing):
            url = url[1:-1].strip()
    return url


def fetch(url: str, domains: tuple[str, ...], settings: WebSettings) -> Page:
    """GET `url`, following redirects that stay on `domains`; `Refused` for anything else."""
    deadline = time.monotonic() + settings.timeout
    for hop in range(_MAX_REDIRECTS + 1):
        why = url_refusal(url, domains)
        if why:
            raise Refused(f"redirected to {url}, refused: {why}" if hop else why)
        status, location, page = _get(url, deadline, settings.max_bytes)
        if location is None:
            if status >= 400:
                raise Refused(f"{url} answered HTTP {status}")
            return page
        url = urljoin(url, location)
    raise Refused(f"more than {_MAX_REDIRECTS} redirects")


def _get(url: str, deadline: float, max_bytes: int) -> tuple[int, str | None, Page]:
    """One GET: (status, the redirect's target or None, the page)."""
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = kind(parts.hostname or "", parts.port, timeout=_left(deadline))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        conn.request("GET", path, headers={"User-Agent": _USER_AGENT, "Accept": "text/*, */*"})
        response = conn.getresponse()
        location = response.getheader("Location")
        if 300 <= response.status < 400 and location:
            return response.status, location, Page(url, "", b"", False)
        body, cut = _read(response, conn.sock, deadline, max_bytes)
    except TimeoutError:
        raise Refused(f"{url}: no complete answer within the time allowed") from None
    except (OSError, http.client.HTTPException) as exc:
        raise Refused(f"{url}: {_reason(exc)}") from None
    finally:
        conn.close()
    content_type = (response.getheader("Content-Type") or "").strip()
    return response.status, None, Page(url, content_type, body, cut)


def _reason(exc: Exception) -> str:
    """Why a connection failed, in words (not the exception's whole text)."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    strerror = exc.strerror if isinstance(exc, OSError) else None
    return strerror or type(exc).__name__


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _read(
    response: http.client.HTTPResponse, sock: socket.socket | None, deadline: float, cap: int
) -> tuple[bytes, bool]:
    """At most `cap` bytes of the body, each read bounded by the deadline; whether more came."""
    data = bytearray()
    while len(data) <= cap:
        if sock is not None:
            sock.settimeout(_left(deadline))
        chunk = response.read1(_CHUNK)
        if not chunk:
            return bytes(data), False
        data.extend(chunk)
    return bytes(data[:cap]), True


def _page_text(page: Page) -> str:
    """The readable text of `page`; `Refused` when it is not text."""
    mime, _, params = page.content_type.partition(";")
    mime = mime.strip().lower() or "text/plain"
    if not (mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith("+json")):
        raise Refused(f"{page.url} is {mime}, not text or HTML")
    charset = "utf-8"
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'")
    try:
        text = page.body.decode(charset, "replace")
    except LookupError:
        text = page.body.decode("utf-8", "replace")
    return html_text(text) if mime in ("text/html", "application/xhtml+xml") else text


def _found(page: Page, text: str, head: str = "") -> Found:
    """The block's content: where and when it was read, then the text."""
    digest = hashlib.sha256(page.body).hexdigest()
    lines = [head or f"URL: {page.url}", f"Retrieved: {clock.now_stamp()}", "", text.strip()]
    note = f"cut at {len(page.body)} bytes (evidence.web.max_bytes)" if page.cut else ""
    return Found("\n".join(lines), f"sha256 {digest}", note)


def search(args: str, access: WebAccess, cwd: Path) -> Found:
    """``search QUERY``: the configured search command's output, or the endpoint's answer."""
    _usable(access)
    query, settings = args.strip(), access.settings
    if settings.search_command:
        return _search_command(query, settings, cwd)
    if settings.search_url:
        url = settings.search_url.replace("{query}", quote_plus(query))
        host = (urlsplit(url).hostname or "").lower()
        page = fetch(url, (*settings.domains, host), settings)
        return _found(page, _results(_page_text(page)), f"Search: {query}\nURL: {page.url}")
    raise Refused(
        "no search is configured: set evidence.search.command (a command printing results; "
        "the query on its standard input, or in place of {query}) or evidence.search.url (an "
        "endpoint with {query}) in discussions.yaml or your config.yaml"
    )


def _search_command(query: str, settings: WebSettings, cwd: Path) -> Found:
    from ...providers.command import run_contained, split_command

    argv = split_command(settings.search_command)
    placed = [w.replace("{query}", query) for w in argv]
    if placed != argv and query.startswith("-"):
        raise Refused("a search query may not start with '-' (the command would read an option)")
    stdin = b"" if placed != argv else query.encode("utf-8")
    exe = shutil.which(argv[0]) if argv else None
    if exe is None:
        raise Refused(f"`{argv[0] if argv else ''}` (evidence.search.command) is not installed")
    try:
        done = run_contained(
            "search", [exe, *placed[1:]], cwd=cwd, env=_env(), timeout=settings.timeout,
            max_output=settings.max_bytes, stdin=stdin,
        )  # fmt: skip
    except ProviderError as exc:
        raise Refused(str(exc)) from None
    if done.timed_out:
        raise Refused(f"the search command timed out after {settings.timeout:g}s")
    if done.returncode != 0:
        raise Refused(f"the search command exited with status {done.returncode}")
    page = Page(shlex.join(argv), "text/plain", done.out, done.flooded)
    text = _results(done.out.decode("utf-8", "replace"))
    return _found(page, text, f"Search: {query}\nCommand: {shlex.join(argv)}")


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def _results(text: str) -> str:
    """Search results as lines: a JSON answer with a list of results (SearXNG's ``results``,
    or a list at the top) as title, URL and snippet; anything else as it is."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    items = data.get("results") if isinstance(data, dict) else data
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        return json.dumps(data, indent=2, ensure_ascii=False)
    lines: list[str] = []
    for n, item in enumerate(items, 1):
        title = item.get("title") or item.get("name") or ""
        link = item.get("url") or item.get("link") or item.get("href") or ""
        snippet = item.get("content") or item.get("snippet") or item.get("abstract") or ""
        lines += [f"{n}. {title}".rstrip(), f"   {link}", *([f"   {snippet}"] if snippet else [])]
    return "\n".join(lines) or "(no results)"
