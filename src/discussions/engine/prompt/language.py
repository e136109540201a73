"""What a prompt says about the discussion's language (`settings.language`): answer in it,
and keep what the engine reads in its fixed form. Nothing when no language is set.

The models write the comment's prose in the language; the JSON field names, the vote values
(READY, CHANGES, REJECT) and the markers at the start of a line (``Q:``, ``TODO:``,
``DECISION:`` ...) stay in English, since `status`, `check` and the merge driver read them in
that form only (a translated marker is reported by `check`: `derive.translated`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...settings.language import language_name

if TYPE_CHECKING:
    from ...model.discussion import Discussion

__all__ = ["language_lines"]


def language_lines(d: Discussion, compact: bool = False) -> list[str]:
    """The prompt's lines on the language of `d` (`compact`: one short line); empty when
    `d` sets none."""
    language = d.language
    if not language:
        return []
    name = language_name(language)
    if compact:
        return [f"Write the comment in {name}; keep Q:, TODO:, DECISION:, CONCERN: in English."]
    return [
        "",
        "## Language",
        f"This discussion is held in {name}: write your comment in {name}. Keep in English, "
        "exactly as written above, what the engine reads: the JSON field names, the vote "
        "values READY, CHANGES and REJECT, and the markers at the start of a line (Q:, TODO:, "
        "DECISION:, CONCERN:, ASSIGNED:, DONE:, VOTE: and any other this prompt names). "
        "Only the text after a marker is in your language: DECISION: then your sentence.",
    ]
