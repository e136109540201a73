"""The ``evidence.web`` and ``evidence.search`` settings: which domains ``EVIDENCE: web URL``
may fetch from, how much and how long, and the search ``EVIDENCE: search QUERY`` runs (a
command, or an endpoint; none by default). docs/evidence.md, "Web research".

Network access is the user's to grant: what the user's own ``config.yaml`` says is theirs,
but when the project's ``discussions.yaml`` (which comes with a clone) sets any of it, none of
it is used until the user trusts it (`discussions trust`, recorded like ``evidence.commands``:
`web_scope` is what the trust covers)."""

from __future__ import annotations

import json
from typing import Any

from ..syntax.record import Record
from .config import Config

DEFAULT_MAX_BYTES = 2 << 20
"""Bytes of a page (or of a search's output) read at most; the rest is cut, said in the block."""
DEFAULT_TIMEOUT = 20.0
"""Seconds one fetch (every redirect included) or one search may take."""


class WebSettings(Record):
    """``evidence.web`` and ``evidence.search``, merged (user < project)."""

    __slots__ = ("domains", "max_bytes", "timeout", "search_command", "search_url", "from_project")
    domains: tuple[str, ...]
    """Hosts a page may come from: ``docs.python.org`` (that host), ``*.readthedocs.io`` (its
    subdomains). None: ``web`` is refused."""
    max_bytes: int
    """Bytes read of a page or a search's output; the rest is cut (said in the block)."""
    timeout: float
    """Seconds a fetch, redirects included, or a search command may take."""
    search_command: str
    """A command printing search results: the query replaces ``{query}`` in one of its words,
    or goes to its standard input when none has it ("": none)."""
    search_url: str
    """An endpoint answering a search, ``{query}`` standing for the URL-encoded query ("":
    none); fetched like a page, its host allowed for that fetch."""
    from_project: bool
    """Whether the project's discussions.yaml sets any of it (then it needs trust)."""

    def __init__(
        self,
        domains: tuple[str, ...] = (),
        max_bytes: int = DEFAULT_MAX_BYTES,
        timeout: float = DEFAULT_TIMEOUT,
        search_command: str = "",
        search_url: str = "",
        from_project: bool = False,
    ) -> None:
        self.domains = domains
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.search_command = search_command
        self.search_url = search_url
        self.from_project = from_project

    @property
    def configured(self) -> bool:
        """Whether any network access is configured at all."""
        return bool(self.domains or self.search_command or self.search_url)


def web_settings(config: Config) -> WebSettings:
    """The web settings, defaults for what is not set (types checked when loading)."""
    evidence = config.section("evidence")
    web: dict[str, Any] = evidence.get("web") or {}
    search: dict[str, Any] = evidence.get("search") or {}
    out = WebSettings(
        domains=tuple(str(d).strip().lower() for d in web.get("domains") or () if str(d).strip()),
        search_command=str(search.get("command") or "").strip(),
        search_url=str(search.get("url") or "").strip(),
        from_project=_project_sets(config),
    )
    if web.get("max_bytes") is not None:
        out.max_bytes = int(web["max_bytes"])
    if web.get("timeout") is not None:
        out.timeout = float(web["timeout"])
    return out


def _project_sets(config: Config) -> bool:
    """Whether the project's discussions.yaml sets ``evidence.web`` or ``evidence.search``."""
    project = config.project_file
    raw: Any = config.settings.get(project, {}) if project is not None else {}
    evidence = raw.get("evidence") if isinstance(raw, dict) else None
    return isinstance(evidence, dict) and any(evidence.get(k) for k in ("web", "search"))


def web_scope(settings: WebSettings) -> str:
    """What trusting the project's web settings covers, as one line of JSON (its digest is
    recorded): the domains, the limits and the search."""
    return json.dumps(
        {
            "domains": sorted(settings.domains),
            "max_bytes": settings.max_bytes,
            "timeout": settings.timeout,
            "search_command": settings.search_command,
            "search_url": settings.search_url,
        },
        sort_keys=True,
    )
