"""The forms under a discussion on its web page: comment and vote, ask participants, run
rounds, move the phase, export. The page's script sends them to the JSON API."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from ..model.discussion import Discussion
from ..settings.templates import OPEN_STATUSES, known_statuses
from ..settings.workspace import Workspace

CSS = """\
#controls { margin-top: 1.5rem; }
#controls .card { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem;
  margin: 0 0 1rem; }
#controls h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
#controls label { display: block; margin: .6rem 0 .25rem; font-weight: 600; }
#controls label.check { display: inline-flex; align-items: center; gap: .35rem;
  margin: .25rem 1rem .25rem 0; font-weight: normal; }
#controls input:not([type=checkbox]):not([type=radio]), #controls textarea,
#controls select { width: 100%; padding: .45rem .6rem; border: 1px solid var(--line);
  border-radius: 6px; background: var(--bg); }
#controls input[type=number] { max-width: 7rem; }
#controls textarea { resize: vertical; min-height: 6rem; }
#controls fieldset { border: 0; padding: 0; margin: .6rem 0 0; min-width: 0; }
#controls legend { font-weight: 600; padding: 0; }
#controls .buttons { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .75rem; }
#controls button { padding: .45rem 1rem; border-radius: 6px; border: 1px solid var(--line);
  background: var(--card); cursor: pointer; }
#controls button[type=submit] { background: var(--ready); border-color: var(--ready);
  color: #fff; }
#controls button:disabled { opacity: .6; cursor: progress; }
#controls.readonly { color: var(--muted); }
#notice { min-height: 1.5em; }
#notice.error { color: var(--reject); }
#stream article.streaming { border-style: dashed; }
#stream pre.body { white-space: pre-wrap; background: none; margin: 0; font-size: .9rem; }
#stream { scroll-margin-top: 1rem; }
#new-discussion { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 1rem;
  background: var(--card); }
#new-discussion > summary { cursor: pointer; padding: .6rem .9rem; font-weight: 600; }
#new-form { padding: 0 .9rem .9rem; max-width: 40rem; }
#new-form label { display: block; margin: .6rem 0 .25rem; font-weight: 600; }
#new-form input, #new-form select, #new-form textarea { width: 100%; padding: .45rem .6rem;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); }
#new-form textarea { resize: vertical; min-height: 5rem; }
#new-form button { margin-top: .75rem; padding: .45rem 1rem; border-radius: 6px;
  border: 1px solid var(--ready); background: var(--ready); color: #fff; cursor: pointer; }
#new-form button:disabled { opacity: .6; cursor: progress; }
#new-form #notice { margin: .5rem 0 0; }
"""

BACK_LINK = '<nav><a id="to-list" href="/">&larr; All discussions</a></nav>'
"""Above a discussion's title on its web page: the way back to the list."""


def new_discussion_html(ws: Workspace, writable: bool) -> str:
    """The list page's form for a new discussion (title, template, optional context), sent to
    ``POST /api/discussions``. Nothing without the token (the page is read-only then)."""
    if not writable:
        return ""
    default = ws.config.default_template
    options = "".join(
        f'<option value="{escape(t.name, quote=True)}"{" selected" if t.name == default else ""}>'
        f"{escape(t.name)}{' — ' + escape(t.title) if t.title else ''}</option>"
        for t in ws.templates
    )
    return f"""<details id="new-discussion">
<summary>New discussion</summary>
<form id="new-form">
<label for="new-title">Title</label>
<input id="new-title" name="title" required maxlength="200" autocomplete="off">
<label for="new-template">Template</label>
<select id="new-template" name="template">{options}</select>
<label for="new-context">Context (optional: what is to be decided, and why)</label>
<textarea id="new-context" name="context" rows="4"></textarea>
<button type="submit" id="new-button">Create</button>
<p id="notice" role="status" aria-live="polite"></p>
</form>
</details>
"""


def controls_html(d: Discussion, ws: Workspace, name: str, writable: bool) -> str:
    """The controls section. Without the token the page is read-only and says how to write."""
    exports = _exports_html(name, writable)
    if not writable:
        return (
            '<section id="controls" class="readonly"><p>Read-only: open the address '
            "<code>discussions serve</code> printed (it carries the server's token) to comment, "
            f"ask participants or change the phase.</p>{exports}</section>"
        )
    return f"""<section id="controls">
{_comment_form()}
{_turn_form(d, ws)}
{_phase_form(close_statuses(ws))}
{exports}
<p id="notice" role="status" aria-live="polite"></p>
</section>"""


def _exports_html(name: str, writable: bool) -> str:
    """The export links (and, with the token, the button that writes a post)."""
    api = "/api/discussions/" + quote(name)
    return (
        '<p class="exports">Export: '
        f'<a href="{api}/export?format=html" download>HTML</a> · '
        f'<a href="{api}/export?format=json" download>JSON</a>'
        + (' · <button type="button" id="post-button">Write a post</button>' if writable else "")
        + "</p>"
    )


def _comment_form() -> str:
    votes = "".join(
        f'<label class="check"><input type="radio" name="vote" value="{v}"'
        f"{' checked' if not v else ''}> {v or 'no vote'}</label>"
        for v in ("", "READY", "CHANGES", "REJECT")
    )
    return f"""<form id="comment-form" class="card">
<h2>Comment</h2>
<label for="author">Your name</label>
<input id="author" name="author" autocomplete="name" required maxlength="80">
<label for="comment-text">Comment (markdown; Q:, TODO:, DECISION:, @mentions work)</label>
<textarea id="comment-text" name="text" rows="5"></textarea>
<fieldset><legend>Vote</legend>{votes}</fieldset>
<button type="submit">Post comment</button>
</form>"""


def _turn_form(d: Discussion, ws: Workspace) -> str:
    """Ask participants: a box for each of the discussion's, checked; a turn or a run."""
    registry = ws.participants
    boxes = []
    for alias in d.participants:
        label = registry.get(alias).name if alias in registry else alias
        boxes.append(
            f'<label class="check"><input type="checkbox" name="participants" '
            f'value="{escape(alias, quote=True)}" checked> {escape(label)}</label>'
        )
    return f"""<form id="turn-form" class="card">
<h2>Ask participants</h2>
<fieldset><legend>Participants</legend>{"".join(boxes) or "<p>None listed.</p>"}</fieldset>
<label for="callout">Callout (optional)</label>
<input id="callout" name="callout" placeholder="A question for this turn">
<label for="rounds">Rounds for a run</label>
<input id="rounds" name="rounds" type="number" min="1" max="100" value="3">
<div class="buttons">
<button type="submit" name="action" value="turn" id="turn-button">Start a turn</button>
<button type="submit" name="action" value="run" id="run-button">Run rounds</button>
</div>
</form>"""


def close_statuses(ws: Workspace) -> list[str]:
    """The statuses a discussion can be closed with: every known status that is not an open
    one (`templates.known_statuses`), CLOSED first."""
    starting = {*OPEN_STATUSES, *(t.status.upper() for t in ws.templates)}
    finished = [s for s in known_statuses(ws.templates) if s not in starting]
    return sorted(finished, key=lambda s: (s != "CLOSED", s))


def _phase_form(statuses: list[str]) -> str:
    options = "".join(f"<option>{escape(s)}</option>" for s in statuses)
    return f"""<form id="phase-form" class="card">
<h2>Phase and status</h2>
<div class="buttons">
<button type="button" id="advance-button">Advance to the next phase</button>
</div>
<label for="close-status">Close with status</label>
<select id="close-status" name="status">{options}</select>
<div class="buttons">
<button type="button" id="close-button">Close</button>
<button type="button" id="reopen-button">Reopen</button>
</div>
</form>"""
