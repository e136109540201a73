"""The language a discussion is held in: a ``Language:`` header line (``discussions new
--language nl``), else the project's ``language:`` setting, else none (the models' own choice,
usually the language of the proposal).

Only what participants write is in that language. The engine's lines, the markers (``VOTE:``,
``Q:``, ``DECISION:`` ...) and the vote values (READY, CHANGES, REJECT) keep their fixed form
whatever the language, so `status`, `check` and the merge driver read every discussion alike;
a marker a model translated anyway (``STEM: GEREED``) is reported by `check`
(`derive.translated`).

A value is a language code (``nl``, ``de``, ``pt-BR``) or a name (``Nederlands``, ``German``):
one line of letters, digits, spaces and hyphens, at most `MAX_CHARS` characters, since it is
written into the header and the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..syntax.lazyre import Lazy

MAX_CHARS = 40
_VALUE = Lazy(r"[^\W\d_][\w \-]*", re.UNICODE)
NAMES: dict[str, str] = {
    "en": "English",
    "nl": "Dutch",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "sv": "Swedish",
    "da": "Danish",
    "no": "Norwegian",
    "nb": "Norwegian",
    "fi": "Finnish",
    "pl": "Polish",
    "cs": "Czech",
    "tr": "Turkish",
    "ru": "Russian",
    "uk": "Ukrainian",
    "el": "Greek",
    "ja": "Japanese",
    "zh": "Chinese",
    "ko": "Korean",
}
"""The names of common language codes (ISO 639-1), for the prompt's sentence; any other value
is used as written."""


def language_problem(value: str) -> str | None:
    """Why `value` cannot name a language, or None (module docstring)."""
    text = value.strip()
    if not _VALUE.fullmatch(text):
        return (
            "must be a language code or name (letters, digits, spaces, '-'; starting with a "
            f"letter), got {value!r}"
        )
    if len(text) > MAX_CHARS:
        return f"must be at most {MAX_CHARS} characters, got {len(text)}"
    return None


def language_name(value: str) -> str:
    """``nl`` -> ``Dutch (nl)``; ``pt-BR`` -> ``Portuguese (pt-BR)``; a name as written."""
    text = " ".join(value.split())
    name = NAMES.get(text.lower().split("-")[0]) if len(text) <= 5 else None
    return f"{name} ({text})" if name else text


def discussion_language(header: Mapping[str, str], settings: Mapping[str, Any]) -> str | None:
    """The language of a discussion whose header is `header` under the settings `settings`
    (``Config.data``): the header's ``Language:``, else ``language:``; None when neither
    names a usable one (a bad header value is reported by `check`, `derive.translated`)."""
    for value in (header.get("language"), settings.get("language")):
        if isinstance(value, str) and value.strip() and language_problem(value) is None:
            return " ".join(value.split())
    return None
