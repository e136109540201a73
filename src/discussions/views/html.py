"""A discussion as HTML: the page `discussions export --format html` writes and the live web
page serves (with its own controls and script added).

Pure functions over a `Discussion`. Comment text is untrusted (an AI's answer, anyone's edit),
so markdown is rendered with raw HTML turned off: ``<script>`` in a comment is shown as text,
never run. Link URLs go through markdown-it's own check, which refuses ``javascript:``,
``vbscript:``, ``file:`` and ``data:`` (except images); links get ``rel="nofollow noopener
noreferrer"``, and images from the network become links (an AI-written image URL must not
report to a server that someone opened the page). The engine's HTML comments (comment
metadata, phase transitions) are machine data: they are left out, as GitHub leaves them out.

    page = discussion_page(Discussion.load("discussions/feature-x.md"))
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..derive.citations import Verdicts, citation_key
from ..derive.state import Comment
from ..model.discussion import Discussion
from ..model.sections import BY_KEY
from .diagrams import DIAGRAM_CSS, render_fence, with_pictures
from .evidence import Shown, engine_blocks_apart, evidence_blocks, fold_evidence
from .markup import CONTROL, css_class, esc, vote_badge
from .panel import dissent_line, panel_html
from .rendering import comment_parser, preamble_markdown, shown_time, visible_markdown

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

_LINK_REL = "nofollow noopener noreferrer"

CSS = """\
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --card: #f6f8fa;
  --accent: #0969da; --ready: #1a7f37; --changes: #9a6700; --reject: #cf222e;
  --code: #eff2f5;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --card: #151b23;
    --accent: #4493f8; --ready: #3fb950; --changes: #d29922; --reject: #f85149;
    --code: #1f2630;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg); line-height: 1.55;
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
}
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; border-radius: 3px; }
header.top { padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); }
header.top h1 { margin: 0 0 .25rem; font-size: 1.5rem; line-height: 1.25; overflow-wrap: anywhere; }
header.top .state { margin: 0; color: var(--muted); }
header.top .dissent { margin: .35rem 0 0; font-weight: 600; }
aside#panel p.drift { font-size: .85rem; color: var(--changes); }
header.top nav { margin: 0 0 .35rem; font-size: .9rem; }
.consensus-reached { color: var(--ready); font-weight: 600; }
.layout {
  display: grid; grid-template-columns: minmax(0, 1fr) 20rem; gap: 1.5rem;
  max-width: 80rem; margin: 0 auto; padding: 1rem 1.5rem 3rem;
}
main { min-width: 0; }
aside#panel { position: sticky; top: 1rem; align-self: start; max-height: calc(100vh - 2rem);
  overflow: auto; font-size: .9rem; }
aside#panel section { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem;
  margin-bottom: .75rem; background: var(--card); }
aside#panel h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em;
  color: var(--muted); margin: .25rem 0 .5rem; }
aside#panel h3 { font-size: .85rem; margin: .5rem 0 .25rem; }
aside#panel ul { margin: 0; padding-left: 1.1rem; }
aside#panel li { margin: .2rem 0; overflow-wrap: anywhere; }
aside#panel p { margin: .25rem 0; }
aside#panel table { width: 100%; border-collapse: collapse; }
aside#panel td { padding: .15rem .25rem; border-bottom: 1px solid var(--line); }
aside#panel .positions-scroll { overflow-x: auto; }
aside#panel table.positions th { text-align: left; font-weight: 600; overflow-wrap: anywhere;
  padding: .15rem .25rem; }
aside#panel table.positions td { padding: .15rem .15rem; }
aside#panel table.positions .vote { font-size: .7rem; padding: 0 .3rem; }
.by, .meta, .muted, article.comment time { color: var(--muted); }
.meta, article.comment time { font-size: .85rem; }
section#preamble { border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
article.comment { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 1rem;
  content-visibility: auto; contain-intrinsic-size: auto 12rem; }
article.comment > header {
  display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem .6rem;
  padding: .5rem .9rem; background: var(--card); border-bottom: 1px solid var(--line);
  border-radius: 6px 6px 0 0;
}
article.comment .author { font-weight: 600; overflow-wrap: anywhere; }
article.comment a.line { margin-left: auto; color: var(--muted); font-size: .85rem;
  text-decoration: none; }
article.comment:target { border-color: var(--accent); box-shadow: 0 0 0 1px var(--accent); }
.body { padding: .25rem .9rem; overflow-wrap: anywhere; }
details.evidence, details.apply { margin: 0 .9rem .6rem; color: var(--muted); }
details.evidence pre, details.apply pre { overflow-x: auto; }
article.engine { display: flex; align-items: baseline; gap: .6rem; margin: 0 0 1rem;
  padding: .45rem 0; border: 1px dashed var(--line); border-radius: 6px; font-size: .9rem;
  content-visibility: auto; contain-intrinsic-size: auto 3rem; }
article.engine details { flex: 1; min-width: 0; margin: 0 .9rem; overflow-wrap: anywhere; }
article.engine a.line { margin-right: .9rem; color: var(--muted); font-size: .85rem;
  text-decoration: none; white-space: nowrap; }
article.engine:target { border-color: var(--accent); }
.body img { max-width: 100%; }
.vote { display: inline-block; padding: 0 .45rem; border-radius: 1rem; font-size: .75rem;
  font-weight: 600; line-height: 1.6; border: 1px solid currentColor; }
.vote-ready { color: var(--ready); }
.vote-changes { color: var(--changes); }
.vote-reject { color: var(--reject); }
ul.citations { margin: 0 .9rem .6rem; padding: 0; list-style: none; font-size: .85rem; }
.citation-grounded { color: var(--ready); }
.citation-stale { color: var(--changes); }
.citation-unresolvable { color: var(--reject); text-decoration: line-through; }
.positions td.flip { outline: 1px dashed var(--reject); }
.status { font-weight: 600; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: .875em; background: var(--code); border-radius: 4px; }
code { padding: .1em .3em; }
pre { padding: .75rem; overflow-x: auto; }
pre code { padding: 0; background: none; }
hr { border: 0; border-top: 1px solid var(--line); }
blockquote { margin: 0; padding: 0 1rem; color: var(--muted); border-left: 4px solid var(--line); }
.body table, table.list { border-collapse: collapse; display: block; overflow-x: auto; }
.body th, .body td { border: 1px solid var(--line); padding: .3rem .6rem; }
table.list { width: 100%; display: table; }
table.list th, table.list td { text-align: left; padding: .45rem .6rem;
  border-bottom: 1px solid var(--line); vertical-align: top; }
table.list th { color: var(--muted); font-weight: 600; font-size: .85rem; }
input, textarea, select, button { font: inherit; color: inherit; }
input[type=search] { width: 100%; max-width: 28rem; padding: .45rem .6rem; margin: 0 0 1rem;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); }
.list-page { max-width: 80rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
@media (max-width: 700px) {
  .layout { grid-template-columns: minmax(0, 1fr); padding: .75rem; }
  aside#panel { position: static; max-height: none; }
  header.top { padding: .75rem; }
  .list-page { padding: .75rem; }
  /* The list as cards: a row per discussion, each value after its column's name. */
  table.list, table.list tbody { display: block; }
  table.list thead { display: none; }
  table.list tr { display: block; padding: .5rem 0; border-bottom: 1px solid var(--line); }
  table.list td { display: inline; border: 0; padding: 0; }
  table.list td:first-child { display: block; font-weight: 600; margin-bottom: .2rem; }
  table.list td:not(:first-child)::before { content: attr(data-label) ": ";
    color: var(--muted); font-size: .85rem; }
  table.list td:not(:first-child):not(:last-child)::after { content: " · "; color: var(--muted); }
}
"""

_md: MarkdownIt | None = None


def _markdown() -> MarkdownIt:
    """The one parser every page uses (made on first use: most commands never render HTML)."""
    global _md
    if _md is None:
        md = comment_parser()
        md.add_render_rule("link_open", _render_link_open)
        md.add_render_rule("image", _render_image)
        md.add_render_rule("fence", render_fence)  # diagrams (`diagrams`)
        _md = md
    return _md


def _render_link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[idx].attrSet("rel", _LINK_REL)
    return self.renderToken(tokens, idx, options, env)


def _render_image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """An inline ``data:`` image is shown; any other becomes a link to it."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children, options, env)
    if src.lower().startswith("data:image/"):
        return f'<img src="{esc(src)}" alt="{esc(alt)}">'
    return f'<a class="image" href="{esc(src)}" rel="{_LINK_REL}">{esc(alt or src)}</a>'


def render_markdown(text: str) -> str:
    """Untrusted markdown as safe HTML (raw HTML escaped, unsafe links refused)."""
    return CONTROL.sub("\ufffd", _markdown().render(visible_markdown(text)))


@functools.lru_cache(maxsize=16384)
def _comment_body(body: str) -> str:
    """A comment's rendered body, remembered: a page is rendered again on every load and
    comments do not change once written (an edited one is a new key)."""
    return render_markdown(body)


def render_bodies(comments: Iterable[Comment]) -> None:
    """Render the bodies of `comments` ahead, into what `comment_html` remembers (cheap for
    those rendered before): each as its card shows it (`_shown_body`)."""
    for c in comments:
        _comment_body(_shown_body(engine_blocks_apart(c.body)[0]))


def _shown_body(own: str) -> str:
    """The markdown a comment's card renders of its own text (the blocks the engine appended
    to it are cards of their own): its evidence folded."""
    return fold_evidence(own)


def _meta_line(meta: dict[str, str]) -> str:
    tokens = meta.get("tokens")
    shown = [
        s
        for s in (
            meta.get("provider"),
            meta.get("duration"),
            tokens and f"{tokens} tokens",
            meta.get("cost"),
        )
        if s
    ]
    if not shown:
        return ""
    notes = "; ".join(f"{k}: {meta[k]}" for k in ("failed", "note") if meta.get(k))
    title = f' title="{esc(notes)}"' if notes else ""
    return f'<span class="meta"{title}>{esc(" · ".join(shown))}</span>'


def _citations_html(c: Comment, grounding: Verdicts | None) -> str:
    """Each citation of `c`, marked grounded, stale, unresolvable or not resolved, and why."""
    if not c.citations:
        return ""
    items = []
    for cite in c.citations:
        v = (grounding or {}).get(citation_key(cite))
        status = v.status if v else "unresolved"
        why = f"{v.status}: {v.why} ({v.against})" if v else "not resolved"
        items.append(
            f'<li class="citation citation-{status}" data-line="{cite.line}" title="{esc(why)}">'
            f"<code>{esc(cite.text)}</code> {esc(status)}</li>"
        )
    return f'<ul class="citations">{"".join(items)}</ul>'


def comment_html(c: Comment, grounding: Verdicts | None = None) -> str:
    """A comment as the page shows it; `grounding`: the verdicts on its citations."""
    author = esc(c.author)
    parts = [
        f'<article class="comment" id="L{c.line}" data-line="{c.line}" data-author="{author}">',
        f'<header><span class="author">{author}</span>',
    ]
    if c.vote:
        parts.append(vote_badge(c.vote))
    if c.at is not None:
        stamp = c.to_dict()["at"]
        parts.append(f'<time datetime="{esc(stamp)}">{esc(shown_time(c.at))}</time>')
    parts.append(_meta_line(c.meta))
    parts.append(f'<a class="line" href="#L{c.line}">line {c.line}</a></header>')
    own, appended = engine_blocks_apart(c.body)
    parts.append(f'<div class="body">{_comment_body(_shown_body(own))}</div>')
    parts += [_evidence_html(e) for e in evidence_blocks(own)]
    parts.append(_citations_html(c, grounding))
    parts.append("</article>")
    parts += [_engine_card(c.line, c.line + 1 + at, text) for at, text in appended]
    return "".join(parts)


def _engine_card(of: int, line: int, text: str) -> str:
    """A block the engine appended after the comment at line `of` (evidence, an apply or its
    review), as a card of its own: its one line, the content collapsed under it. The page
    replaces the comment's cards with the comment (``data-of``)."""
    shown = evidence_blocks(text)
    kind = shown[0].kind if shown else "evidence"
    return (
        f'<article class="engine {kind}" id="L{line}" data-line="{line}" data-of="{of}">'
        + "".join(_evidence_html(e) for e in shown)
        + f'<a class="line" href="#L{line}">line {line}</a></article>'
    )


def _evidence_html(e: Shown) -> str:
    """An evidence or apply block, collapsed: its summary, and its content when opened."""
    content = f"<pre><code>{esc(e.content)}</code></pre>" if e.content else ""
    return f'<details class="{e.kind}"><summary>{esc(e.summary)}</summary>{content}</details>'


def _preamble(d: Discussion) -> str:
    """The text before the first comment, without the header lines and the title heading."""
    return render_markdown(preamble_markdown(d))


def _document(title: str, head: str, body: str, script: str) -> str:
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>\n{CSS}{DIAGRAM_CSS}</style>\n{head}\n</head>\n"
        f"<body>\n{body}\n{script}\n</body>\n</html>\n"
    )


def _older(count: int, before: int, href: str) -> str:
    """A link to `href`, the page with the `count` comments before line `before` left off."""
    return (
        f'<p id="older" data-before="{before}" data-count="{count}">'
        f'<a id="older-link" href="{esc(href)}">Show the {count} older comment'
        f"{'' if count == 1 else 's'}</a></p>"
    )


def discussion_page(
    d: Discussion,
    *,
    head: str = "",
    controls: str = "",
    script: str = "",
    nav: str = "",
    newest: int | None = None,
    all_href: str = "",
) -> str:
    """The whole page for `d`. `head`, `controls`, `script` and `nav` (links above the title)
    are the caller's own HTML, inserted as they are; without them the page is static and needs
    no script (the export). With `newest`, only that many of the newest comments are rendered
    (a long discussion's first view): the older ones are a link to `all_href`, the page with
    every comment, and the panel's links to them go there."""
    comments = d.comments
    left = max(0, len(comments) - newest) if newest is not None else 0
    shown_from = comments[left].line if left else 0
    info = d.phase_info
    # Always there (the live page fills it in when the phase changes); the dash inside.
    titled = f" — {info.title}" if info and info.title else ""
    phase_title = f'<span id="phase-title">{esc(titled)}</span>'
    parts = [
        '<header class="top">',
        nav,
        f'<h1 id="title">{esc(d.title)}</h1>',
        f'<p class="state">Phase <span id="phase">{esc(d.phase)}</span>{phase_title} · '
        f'Status <span id="status" class="status status-{css_class(d.status)}">'
        f'{esc(d.status)}</span> · <span id="comment-count">{len(comments)}</span> comments</p>',
        *dissent_line(d),
        "</header>",
        '<div class="layout">',
        "<main>",
        f'<section id="preamble">{_preamble(d)}</section>',
        '<section id="comments">',
        *([_older(left, shown_from, all_href)] if left else []),
        *(comment_html(c, d.grounding) for c in comments[left:]),
        "</section>",
        '<section id="stream" aria-live="polite"></section>',
        controls,
        "</main>",
        '<aside id="panel" aria-label="State of the discussion">'
        f"{panel_html(d, shown_from, all_href)}</aside>",
        "</div>",
    ]
    return with_pictures(_document(d.title, head, "\n".join(parts), script), d.workspace)


_LIST_COLUMNS = (
    ("title", "Title"),
    ("phase", "Phase"),
    ("status", "Status"),
    ("consensus_summary", "Consensus"),
    ("questions", BY_KEY["questions"].heading),
    ("changed", "Last change"),
    ("comments", "Comments"),
)


def _list_cell(row: dict[str, Any], key: str, label: str) -> str:
    return f'<td data-label="{esc(label)}">{_list_value(row, key)}</td>'


def _list_value(row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    if value is None:
        return ""
    if key == "title" and row.get("href"):
        return f'<a href="{esc(row["href"])}">{esc(value)}</a>'
    if key == "status":
        return f'<span class="status status-{css_class(str(value))}">{esc(value)}</span>'
    if key == "consensus_summary":
        reached = " consensus-reached" if str(value).startswith("reached") else ""
        return f'<span class="consensus{reached}">{esc(value)}</span>'
    if key == "changed":
        shown = str(value).replace("T", " ")[:16]
        return f'<time datetime="{esc(value)}">{esc(shown)}</time>'
    return esc(value)


def list_page(
    rows: list[dict[str, Any]],
    *,
    head: str = "",
    script: str = "",
    title: str = "Discussions",
    controls: str = "",
) -> str:
    """A page listing discussions, one table row per `rows` entry (keys: file, title, phase,
    status, consensus_summary, questions, changed, comments, href; whichever are present).
    `controls` is the caller's HTML (the web view's new-discussion form), above the table."""
    header = "".join(f'<th scope="col">{label}</th>' for _, label in _LIST_COLUMNS)
    body = "".join(
        f'<tr data-file="{esc(row.get("file", ""))}">'
        + "".join(_list_cell(row, key, label) for key, label in _LIST_COLUMNS)
        + "</tr>"
        for row in rows
    )
    page = (
        f'<header class="top"><h1 id="title">{esc(title)}</h1></header>\n'
        '<main class="list-page">\n'
        f"{controls}"
        '<input id="filter" type="search" aria-label="Filter" placeholder="Filter">\n'
        f'<table id="discussions" class="list"><thead><tr>{header}</tr></thead>'
        f"<tbody>{body}</tbody></table>\n"
        + ("" if rows else '<p class="muted">No discussions found.</p>\n')
        + "</main>"
    )
    return _document(title, head, page, script)
