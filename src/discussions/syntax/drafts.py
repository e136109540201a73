"""A documentation loop's draft in the file format: the block the engine appends for each
version the leader writes (`engine.council.documentation`)::

    <!-- DRAFT: 2 | by: AI-Architect | digest: 0f3c... | at: 2026-11-23T10:00:00Z -->

    *Draft 2 of the document, by AI-Architect*

    ````markdown
    ...the document, in a fence longer than any backtick run inside it...
    ````

``digest`` is `evidence.content_digest` of the fenced content as it stands in the file, so
`check` notices an edit or a block cut short. Field values escape ``&``, ``|`` and ``-->``
(`evidence.escape_field`).

Pure: no I/O.
"""

from __future__ import annotations

from .evidence import content_digest, escape_field, fenced_content
from .fences import fence_block
from .render import neutralise, visible_name


def render_draft(number: int, by: str, document: str, at: str, forced: str = "") -> str:
    """The DRAFT block for version `number` of `document`, written by `by` at `at`; `forced`:
    the ``--force --reason`` that started the loop on an undecided discussion (recorded in
    the marker and said on the visible line)."""
    fenced = neutralise(fence_block(document.strip("\n"), "markdown")).rstrip("\n")
    content = fenced_content(fenced.split("\n")) or ""
    fields = [str(number), f"by: {escape_field(by)}", f"digest: {content_digest(content)}"]
    fields.append(f"at: {escape_field(at)}")
    visible = f"*Draft {number} of the document, by {visible_name(by)}*"
    if forced:
        fields.append(f"forced: {escape_field(forced)}")
        visible = visible[:-1] + f", without a decision (--force): {visible_name(forced)}*"
    return "\n".join([f"<!-- DRAFT: {' | '.join(fields)} -->", "", visible, "", fenced, ""])
