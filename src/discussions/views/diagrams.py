"""Diagram fences as pictures: ```` ```mermaid ```` and ```` ```plantuml ```` in the web view
and the HTML export, with the source one click away.

Every diagram fence becomes a ``<figure class="diagram">`` holding a place for the picture and
the source in a ``<details>`` (`diagram_html`). The markdown is rendered the same way whatever
is installed, so a comment's HTML can be kept and shared between pages; the picture is added
by whichever renderer there is:

* **Mermaid** is drawn in the browser by mermaid.js, which the web view serves from
  ``/static/mermaid.min.js`` when the user has it (`mermaid_script`: ``diagrams.mermaid_js``,
  else a source checkout's ``web-assets/node_modules``, installed by ``npm ci`` from its lock
  file). Nothing comes from a CDN: the page's Content-Security-Policy allows scripts from the
  page's own origin only, and the machine may be offline. ``/static/diagrams.js`` draws each
  figure (and those that arrive live), shows the picture and closes the source. The static
  export does not embed the 5.5 MB script (and an inline script would break the web view's
  policy, which the export is downloaded under): it shows the source, as GitHub would show
  it rendered.
* **PlantUML** is drawn on the machine by a command (`plantuml_command`: ``diagrams.plantuml``,
  else ``plantuml -tsvg -pipe`` when a ``plantuml`` is installed): the source on its standard
  input, SVG on its standard output, run without a shell, in an empty folder, with PlantUML's
  ``SANDBOX`` security profile (no ``!include`` of files or URLs, nothing fetched) and a time
  limit. The SVG is embedded as a ``data:`` image (`with_pictures`): an ``<img>`` runs no
  script, whatever the SVG holds. Both pages get it, the live one and the export.

The two settings name a program to run and a script to serve to the browser, so they are read
from the user's own ``config.yaml`` only, never from a project's ``discussions.yaml`` (a cloned
repository must not choose them).
"""

from __future__ import annotations

import base64
import functools
import html
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..settings.config import PROJECT_FILE
from ..syntax.digest import sha256_hex
from .markup import esc

if TYPE_CHECKING:
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

    from ..settings.workspace import Workspace

__all__ = [
    "DIAGRAM_CSS",
    "KINDS",
    "diagram_html",
    "mermaid_script",
    "plantuml_command",
    "render_fence",
    "with_pictures",
]

KINDS = {"mermaid": "Mermaid", "plantuml": "PlantUML", "puml": "PlantUML"}
"""A fence's info word -> the diagram language it holds."""
TIMEOUT = 20.0
"""Seconds a PlantUML command may take for one diagram."""
MAX_SVG = 2 << 20
"""Largest SVG embedded (bytes); a larger one leaves the source shown."""
_PENDING = re.compile(
    r'<figure class="diagram diagram-plantuml" data-digest="([0-9a-f]{64})">'
    r'<div class="diagram-picture"></div>'
    r'(<details class="diagram-source" open><summary>[^<]*</summary>'
    r'<pre><code class="language-plantuml">([^<]*)</code></pre></details>)</figure>'
)

DIAGRAM_CSS = """\
figure.diagram { margin: .8rem 0; }
figure.diagram .diagram-picture:empty { display: none; }
figure.diagram .diagram-picture { overflow-x: auto; padding: .5rem 0; }
figure.diagram .diagram-picture svg, figure.diagram .diagram-picture img { max-width: 100%;
  height: auto; background: #fff; border-radius: 6px; }
figure.diagram details.diagram-source summary { cursor: pointer; color: var(--muted);
  font-size: .85rem; }
figure.diagram .diagram-note { color: var(--muted); font-size: .85rem; margin: .2rem 0; }
"""


def _kind(info: str) -> str:
    """The diagram kind a fence's info string names (its first word, any case), or ``""``."""
    word = info.strip().split(maxsplit=1)[0].lower() if info.strip() else ""
    return "plantuml" if word == "puml" else (word if word in KINDS else "")


def diagram_html(kind: str, source: str) -> str:
    """The figure a diagram fence becomes: a place for the picture, then the source, open
    until a picture is drawn (module docstring). `kind`: ``mermaid`` or ``plantuml``."""
    digest = f' data-digest="{sha256_hex(source.encode())}"' if kind == "plantuml" else ""
    return (
        f'<figure class="diagram diagram-{kind}"{digest}><div class="diagram-picture"></div>'
        f'<details class="diagram-source" open><summary>{KINDS[kind]} source</summary>'
        f'<pre><code class="language-{kind}">{esc(source)}</code></pre></details></figure>\n'
    )


def render_fence(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """markdown-it's ``fence`` rule: a diagram fence as `diagram_html`, any other as before."""
    token = tokens[idx]
    kind = _kind(token.info)
    if not kind:
        from markdown_it.renderer import RendererHTML

        return RendererHTML.fence(self, tokens, idx, options, env)
    return diagram_html(kind, token.content)


# --------------------------------------------------------------------------- the settings


def _user_diagrams(workspace: Workspace) -> dict[str, Any]:
    """``diagrams:`` of the user's ``config.yaml`` (a project's is not read: module docstring)."""
    for path, data in workspace.config.settings.items():
        if path.name != PROJECT_FILE and isinstance(data, dict):
            found = data.get("diagrams")
            if isinstance(found, dict):
                return found
    return {}


def _checkout_mermaid() -> Path:
    """Where ``npm ci`` in a source checkout's ``web-assets`` puts mermaid.js."""
    top = Path(__file__).resolve().parents[3]
    return top / "web-assets" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"


def mermaid_script(workspace: Workspace) -> Path | None:
    """The mermaid.js file the web view serves (module docstring), None when there is none."""
    named = _user_diagrams(workspace).get("mermaid_js")
    path = Path(str(named)).expanduser() if named else _checkout_mermaid()
    return path if path.is_file() else None


def plantuml_command(workspace: Workspace) -> tuple[str, ...] | None:
    """The PlantUML command (module docstring), None when none is configured or installed."""
    named = _user_diagrams(workspace).get("plantuml")
    if isinstance(named, str) and named.strip():
        return tuple(os.path.expandvars(os.path.expanduser(a)) for a in shlex.split(named))
    found = shutil.which("plantuml")
    return (found, "-tsvg", "-pipe") if found else None


# --------------------------------------------------------------------------- PlantUML


@functools.lru_cache(maxsize=512)
def _render_plantuml(command: tuple[str, ...], source: str) -> tuple[bytes, str]:
    """(the SVG, "") that `command` draws of `source`, or (b"", why not). Remembered per
    command and source: a page is rendered again on every load."""
    # PlantUML reads its security profile from this environment variable (since 1.2020.11);
    # in SANDBOX it reaches no local file and no URL (https://plantuml.com/security). `-pipe`
    # reads the source on stdin and writes the picture on stdout (plantuml(1), -tsvg: SVG).
    env = {**os.environ, "PLANTUML_SECURITY_PROFILE": "SANDBOX", "JAVA_TOOL_OPTIONS": ""}
    try:
        with tempfile.TemporaryDirectory(prefix="discussions-diagram-") as empty:
            done = subprocess.run(
                list(command),
                input=source.encode(),
                capture_output=True,
                timeout=TIMEOUT,
                cwd=empty,
                env=env,
                check=False,
            )
    except (OSError, subprocess.SubprocessError) as exc:
        return b"", f"the PlantUML command could not run: {exc}"
    svg = done.stdout.strip()
    if done.returncode != 0 or not re.match(rb"(?:<\?xml[^>]*>\s*)?<svg[\s>]", svg):
        err = done.stderr.decode(errors="replace").strip().splitlines()
        return b"", f"the PlantUML command failed: {err[-1] if err else done.returncode}"
    if len(svg) > MAX_SVG:
        return b"", f"the picture is larger than {MAX_SVG >> 20} MB"
    return svg, ""


def _picture(command: tuple[str, ...], match: re.Match[str]) -> str:
    svg, why = _render_plantuml(command, html.unescape(match.group(3)))
    head = f'<figure class="diagram diagram-plantuml" data-digest="{match.group(1)}">'
    if not svg:
        note = f'<p class="diagram-note">Not drawn: {esc(why)}</p>'
        return f'{head}<div class="diagram-picture"></div>{note}{match.group(2)}</figure>'
    data = base64.b64encode(svg).decode()
    picture = f'<img alt="PlantUML diagram" src="data:image/svg+xml;base64,{data}">'
    closed = match.group(2).replace(" open>", ">", 1)  # the source, one click away
    return f'{head}<div class="diagram-picture">{picture}</div>{closed}</figure>'


def with_pictures(page: str, workspace: Workspace) -> str:
    """`page` with each PlantUML figure's picture drawn (its source closed under it), when a
    PlantUML command is configured or installed; as it is otherwise."""
    if "diagram-plantuml" not in page:
        return page
    command = plantuml_command(workspace)
    if command is None:
        return page
    return _PENDING.sub(lambda m: _picture(command, m), page)
