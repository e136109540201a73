"""The web view's scripts, served from its own origin under ``/static`` (the page's
Content-Security-Policy allows no other): ``app.js``, and for diagrams (`views.diagrams`)
``diagrams.js`` with ``mermaid.min.js``, the user's own copy of mermaid.js, when there is one.
Nothing is fetched from the network."""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

from starlette.responses import FileResponse, JSONResponse, Response

from .. import __version__
from ..views.diagrams import mermaid_script

if TYPE_CHECKING:
    from ..settings.workspace import Workspace

__all__ = ["diagram_scripts", "static_file"]

_HEADERS = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
_JS = "text/javascript; charset=utf-8"
_OWN = ("app.js", "diagrams.js")


def static_file(name: str, workspace: Workspace) -> Response:
    """The script `name` of ``/static/{name}``; a 404 for any other name, and for
    ``mermaid.min.js`` when the user has no mermaid.js."""
    if name in _OWN:
        text = resources.files(__package__).joinpath("static", name).read_text("utf-8")
        return Response(text, media_type=_JS, headers=_HEADERS)
    found = mermaid_script(workspace) if name == "mermaid.min.js" else None
    if found is None:
        return JSONResponse({"error": f"not found: /static/{name}"}, 404)
    return FileResponse(found, media_type=_JS, headers=_HEADERS)


def diagram_scripts(workspace: Workspace) -> str:
    """The script tags that draw Mermaid diagrams, after the page's own; ``""`` without
    mermaid.js (the diagrams' sources are shown)."""
    if mermaid_script(workspace) is None:
        return ""
    return "".join(
        f'<script src="/static/{name}?v={__version__}" defer></script>'
        for name in ("mermaid.min.js", "diagrams.js")
    )
