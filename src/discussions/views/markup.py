"""The HTML atoms every page is built of: text escaped for HTML, a safe class name, a vote's
badge, a titled panel section. Text is untrusted (an AI's answer, anyone's edit)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape

from ..derive.voting import VOTES

# Characters HTML does not allow as text (and that could drive a terminal the page is printed on).
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CLASS_UNSAFE = re.compile(r"[^a-z0-9_-]+")


def esc(text: object) -> str:
    """`text` as HTML text or attribute value (control characters replaced)."""
    return escape(CONTROL.sub("\ufffd", str(text)), quote=True)


def css_class(value: str) -> str:
    """`value` as a safe CSS class name (``status-{...}``)."""
    return _CLASS_UNSAFE.sub("-", value.lower()).strip("-")


def vote_badge(vote: str) -> str:
    """A vote as its coloured badge (an unknown value as plain text)."""
    kind = f" vote-{vote.lower()}" if vote in VOTES else ""
    return f'<span class="vote{kind}">{esc(vote)}</span>'


def section(key: str, title: str, body: Iterable[str]) -> str:
    """A titled section of the side panel, ``#panel-{key}``."""
    return f'<section id="panel-{key}"><h2>{esc(title)}</h2>{"".join(body)}</section>'
