"""Exports (HTML, JSON, a written post) and the HTML view they share with the web page,
checked by parsing what they produce."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.model.storage import is_derived
from discussions.views.html import (
    comment_html,
    discussion_page,
    list_page,
    render_markdown,
    visible_markdown,
)

from ..conftest import code, out, run, script_command, write, write_signed

HOSTILE = """\
<!-- DISCUSSION -->
<!-- Title: Add <b>auth</b> -->
<!-- Phase: initial_feedback -->
<!-- Status: OPEN -->
<!-- Template: feature -->
<!-- Participants: architect, security, pragmatist -->

# Add <b>auth</b>

## Context
Users need to log in.

---

Name: AI-Architect

<!-- provider: claude | duration: 2.1s | tokens: 1200 in / 300 out | cost: $0.0041 -->

Sessions or tokens?

Q: Should we use JWT or session cookies?
DECISION: One login endpoint for all services.
TODO: Write the threat model.

VOTE: CHANGES

---

Name: Mallory"><script>x()</script>

<script>alert(1)</script>

<img src=x onerror=alert(2)>

[click me](javascript:alert(3)) and [ok](https://example.com/a) and ![pic](https://example.com/p.png)

```html
<!-- kept in code -->
<script>also shown</script>
```

CONCERN: Token theft via XSS.
ASSIGNED: Rob takes the login form.
@security does that cover it?

VOTE: READY

---

<!-- PHASE-TRANSITION: initial_feedback -> detailed_review -->
<!-- VOTE-RESET: detailed_review -->

*Phase changed: initial_feedback → detailed_review*

---

Name: Rob

DONE: Login form.

VOTE: READY
"""


class Page(HTMLParser):
    """What a page holds: elements with their attributes, and the text of each article."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.article_text: dict[str, list[str]] = {}
        self.votes: dict[str, str] = {}
        self._article = ""
        self._in_vote = False
        self.source = text
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag == "article":
            self._article = a.get("id") or ""
            self.article_text[self._article] = []
        self._in_vote = tag == "span" and "vote" in (a.get("class") or "").split()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_vote:
            self.votes[self._article] = data
            self._in_vote = False
        if self._article:
            self.article_text[self._article].append(data)

    def all(self, tag: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.elements if t == tag]

    def ids(self, tag: str) -> list[str | None]:
        return [a.get("id") for a in self.all(tag)]


@pytest.fixture
def hostile(isolated: Path) -> Path:
    return write_signed(isolated / "discussions" / "auth.md", HOSTILE)


def _export(path: Path, *args: str) -> str:
    r = run("export", str(path), *args)
    assert code(r) == 0, out(r)
    return out(r)


def test_html_export_has_every_comment_once_with_its_vote_and_the_panel(hostile: Path) -> None:
    assert _export(hostile) == "Wrote discussions/auth.html\n"
    page = Page((hostile.parent / "auth.html").read_text(encoding="utf-8"))
    d = Discussion.load(hostile)
    assert page.ids("article") == [f"L{c.line}" for c in d.comments]
    assert [a["data-author"] for a in page.all("article")] == [c.author for c in d.comments]
    assert page.votes == {f"L{c.line}": c.vote for c in d.comments}
    sections = page.ids("section")
    for key in ("phase", "status", "votes", "questions", "decisions", "todos", "concerns"):
        assert f"panel-{key}" in sections
    assert sections.index("preamble") < sections.index("comments") < sections.index("stream")
    assert page.ids("aside") == ["panel"] and page.ids("h1") == ["title"]
    assert page.all("script") == [] and "<script" not in page.source.lower()
    architect = "".join(page.article_text[f"L{d.comments[0].line}"])
    assert "claude · 2.1s · 1200 in / 300 out tokens · $0.0041" in architect
    assert "provider:" not in architect  # the engine's metadata line is not shown as text


def test_html_from_a_comment_is_inert(hostile: Path) -> None:
    page = Page(discussion_page(Discussion.load(hostile)))
    assert page.all("script") == [] and page.all("img") == []
    for tag, attrs in page.elements:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not (attrs.get("href") or "").lower().startswith("javascript:"), (tag, attrs)
    mallory = next(
        i
        for a, i in zip(page.all("article"), page.ids("article"), strict=True)
        if (a["data-author"] or "").startswith("Mallory")
    )
    text = "".join(page.article_text[mallory or ""])
    assert "<script>alert(1)</script>" in text
    assert "<img src=x onerror=alert(2)>" in text
    assert "[click me](javascript:alert(3))" in text  # shown as written, not a link
    assert "<!-- kept in code -->" in text and "PHASE-TRANSITION" not in text
    links = {a["href"]: a.get("rel") for a in page.all("a") if (a["href"] or "").startswith("http")}
    assert links == {
        "https://example.com/a": "nofollow noopener noreferrer",
        "https://example.com/p.png": "nofollow noopener noreferrer",  # an image, as a link
    }
    assert page.ids("h1") == ["title"]  # the preamble's own title heading is not repeated
    assert page.all("b") == [] and "Add <b>auth</b>" in page.text


def test_comment_html_escapes_the_author_and_keeps_the_ids(hostile: Path) -> None:
    c = Discussion.load(hostile).comments[1]
    html = comment_html(c)
    assert html.startswith(f'<article class="comment" id="L{c.line}" data-line="{c.line}" ')
    assert 'data-author="Mallory&quot;&gt;&lt;script&gt;x()&lt;/script&gt;"' in html
    assert '<span class="vote vote-ready">READY</span>' in html


def test_only_whole_line_html_comments_outside_code_are_dropped() -> None:
    body = "a\n<!-- provider: x -->\n  <!-- note -->\n```\n<!-- code -->\n```\n    <!-- indented -->\n\t<!-- tab -->\nb <!-- inline -->"
    assert (
        visible_markdown(body)
        == "a\n```\n<!-- code -->\n```\n    <!-- indented -->\n\t<!-- tab -->\nb <!-- inline -->"
    )
    long = "x\n" * 200_000 + "<!-- m -->\n"
    assert visible_markdown(long) == "x\n" * 200_000


def test_page_takes_the_callers_head_controls_and_script(hostile: Path) -> None:
    html = discussion_page(
        Discussion.load(hostile),
        head='<meta name="t" content="1">',
        controls='<form id="f"></form>',
        script="<script>go()</script>",
    )
    assert '<meta name="t" content="1">\n</head>' in html
    assert (
        '<section id="stream" aria-live="polite"></section>\n<form id="f"></form>\n</main>' in html
    )
    assert html.rstrip().endswith("<script>go()</script>\n</body>\n</html>")


def test_list_page_renders_rows_escaped() -> None:
    rows = [
        {
            "file": "a.md",
            "title": "<i>A</i>",
            "phase": "vote",
            "status": "OPEN",
            "comments": 3,
            "consensus": "READY",
            "questions": 2,
            "changed": "2026-11-22T10:00:00Z",
            "href": "/d/a.md",
        },
        {"file": 'b".md', "title": "B"},
    ]
    page = Page(list_page(rows))
    assert page.ids("table") == ["discussions"]
    assert page.all("input")[0] == {
        "id": "filter",
        "type": "search",
        "aria-label": "Filter",
        "placeholder": "Filter",
    }
    assert [a.get("data-file") for a in page.all("tr")[1:]] == ["a.md", 'b".md']
    assert {"href": "/d/a.md"} in page.all("a")
    assert page.all("i") == [] and "<i>A</i>" in page.text


def test_json_export_holds_every_comments_text(hostile: Path) -> None:
    data = json.loads(_export(hostile, "--format", "json", "--out", "-"))
    d = Discussion.load(hostile)
    assert data["format"] == "discussions-export/1" and data["exported"].endswith("Z")
    assert [c["text"] for c in data["comments"]] == [c.body for c in d.comments]
    assert data["comments"][0]["meta"]["tokens"] == "1200 in / 300 out"
    assert data["comments"][0]["end_line"] == d.comments[0].end_line
    assert data["decisions"][0]["text"] == "One login endpoint for all services."
    assert data["phase"] == "detailed_review"


@pytest.mark.slow
def test_post_is_written_by_the_moderator_next_to_the_file(hostile: Path) -> None:
    before = hostile.read_bytes()
    said = _export(hostile, "--format", "post", "--provider", "mock")
    post = hostile.parent / "auth.post.md"
    assert said == "Wrote discussions/auth.post.md (written by AI-Moderator via mock)\n"
    assert hostile.read_bytes() == before
    text = post.read_text(encoding="utf-8")
    assert text.startswith("# Add <b>auth</b>\n\n*Written by AI-Moderator via mock from auth.md, ")
    assert "mock response" in text
    d = Discussion.load(hostile)
    decisions = text.split("## Decisions\n\n", 1)[1].split("\n\n", 1)[0]
    line = d.decisions[0].line
    assert decisions == f"- One login endpoint for all services. (AI-Architect, line {line})"
    questions = text.split("## Open questions\n\n", 1)[1]
    line = d.questions[0].line
    assert questions == f"- Should we use JWT or session cookies? (AI-Architect, line {line})\n"
    assert is_derived(post)
    assert "auth.post" not in out(run("list"))


def test_post_with_a_failing_provider_writes_nothing(hostile: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    providers_file({"broken": script_command("fail.py")})
    r = run("export", str(hostile), "--format", "post", "--provider", "broken")
    assert code(r) == 1 and out(r).startswith("Error: ")
    assert not (hostile.parent / "auth.post.md").exists()


def test_out_never_overwrites_a_discussion(hostile: Path, isolated: Path) -> None:
    before = hostile.read_bytes()
    for target in (str(hostile), "discussions/../discussions/auth.md"):
        r = run("export", str(hostile), "--out", target)
        assert code(r) == 1
        assert "is a discussion file; an export never overwrites one" in out(r)
    other = write(isolated / "other.md", "<!-- DISCUSSION -->\n<!-- Title: O -->\n\n# O\n")
    r = run("export", str(hostile), "--format", "json", "-o", str(other))
    assert code(r) == 1 and other.read_text().startswith("<!-- DISCUSSION -->")
    os.symlink(isolated / "elsewhere.html", isolated / "link.html")
    r = run("export", str(hostile), "-o", "link.html")
    assert code(r) == 1 and "symbolic link" in out(r)
    assert not (isolated / "elsewhere.html").exists()
    assert hostile.read_bytes() == before
    assert "Traceback" not in out(r)


def test_out_replaces_an_earlier_export(hostile: Path, isolated: Path) -> None:
    target = write(isolated / "site" / "auth.html", "old")
    assert _export(hostile, "-o", str(target)) == "Wrote site/auth.html\n"
    assert target.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert [p.name for p in target.parent.iterdir()] == ["auth.html"]  # no temporary left


def test_bad_format_and_post_options_are_usage_errors(hostile: Path) -> None:
    r = run("export", str(hostile), "--format", "pdf")
    assert code(r) == 2 and "Invalid value for '--format'" in out(r)
    r = run("export", str(hostile), "--provider", "mock")
    assert code(r) == 2 and "--provider and --participant apply to --format post only" in out(r)


def test_export_of_a_mock_discussion_made_by_the_cli(isolated: Path) -> None:
    run("new", "T")
    assert code(run("turn", "discussions/t.md", "@architect", "--provider", "mock")) == 0
    page = Page(_export(isolated / "discussions" / "t.md", "--out", "-"))
    assert page.ids("article") == ["L" + str(Discussion.load("discussions/t.md").comments[0].line)]
    assert page.votes and "mock" in "".join(next(iter(page.article_text.values())))


def test_marker_lines_stay_lines_of_their_own_in_every_view() -> None:
    """One rule (`rendering.comment_parser`) for the web view, the export and the terminal
    app: a line break inside a paragraph is kept, in the tokens, so no marker line is swallowed
    by the bullet or sentence before it."""
    from discussions.views.rendering import comment_parser

    body = "Some thoughts:\n- point one\nQ: Is it safe?\nCONCERN: Costs too much"
    html = render_markdown(body)
    assert "<li>point one<br />\nQ: Is it safe?<br />\nCONCERN: Costs too much</li>" in html
    inline = [t for t in comment_parser().parse(body) if t.type == "inline"]
    kinds = [c.type for t in inline for c in t.children or []]
    assert "softbreak" not in kinds and kinds.count("hardbreak") == 2


def test_out_into_a_folder_not_there_yet_creates_it(hostile: Path, isolated: Path) -> None:
    """The help's own example, `--out site/feature-x.html`, in a project without `site/`."""
    assert not (isolated / "site").exists()
    r = run("export", str(hostile), "--out", "site/pages/auth.html")
    assert code(r) == 0, out(r)
    assert (isolated / "site" / "pages" / "auth.html").read_text("utf-8").startswith("<!doctype")
    write(isolated / "blocked", "a file where the folder would go\n")
    r = run("export", str(hostile), "--out", "blocked/auth.html")
    assert code(r) == 1 and "blocked" in out(r) and "Traceback" not in out(r)
    assert (isolated / "blocked").read_text("utf-8") == "a file where the folder would go\n"
