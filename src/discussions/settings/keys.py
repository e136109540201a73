"""The keys ``discussions.yaml`` and the user's ``config.yaml`` may hold, each with what its
value must be (checked by `config.Config` when the files are read)."""

from __future__ import annotations

from .apply import APPLY
from .schema import Fields, Flag, ListOf, Number, OneOf, Text

_NAMES = ListOf(Text(), "a list of names")
_COUNT = Number(0, whole=True, what="a whole number (0 or more)")
_SHARE = Number(0, 1, what="a number between 0 and 1")

SETTINGS = Fields(
    {
        "default_participants": _NAMES,
        "default_template": Text(what="the name of a template"),
        "consensus": Fields(
            {
                "threshold_ready": _SHARE,
                "threshold_reject": _SHARE,
                "human_required": OneOf(
                    (Flag(), _NAMES), "true or false, or a list of names (who ballot)"
                ),
                "grounded_votes": Flag(),
                "distinct_providers": _COUNT,
                "failed_seats": Text(("abstain", "exclude")),
            },
            noun="consensus setting",
        ),
        "providers": Fields(
            {
                "default": Text(),
                "fallback": _NAMES,
                "timeout": Number(above=0, what="a positive number of seconds"),
                "mock_fallback": Flag(),
                "detect": Flag(),
                "max_answer_chars": _COUNT,
                "follow_up": Flag(),
                "personas": Fields({}, noun="persona", extra=True),
            },
            noun="providers setting",
        ),
        "context": Fields(
            {
                "max_chars": _COUNT,
                "growth": Number(0),
                "recent_comments": _COUNT,
                "digest_comments": _COUNT,
                "compact": OneOf((Flag(), Text(("auto",))), "true, false or auto"),
            },
            noun="context setting",
        ),
        "output": Fields(
            {"directory": Text(what="the path of a folder (text)"), "summary_files": Flag()},
            noun="output setting",
        ),
        "watch": Fields({"debounce": Number(0), "max_chain": _COUNT}, noun="watch setting"),
        "memory": Fields(
            {
                "enabled": Flag(),
                "max_chars": _COUNT,
                "per_participant_chars": _COUNT,
                "discussions": _COUNT,
                "council_chars": _COUNT,
                "council_discussions": _COUNT,
            },
            noun="memory setting",
        ),
        "run": Fields({"max_rounds": _COUNT}, noun="run setting"),
        "evidence": Fields(
            {
                "commands": Fields({}, noun="command", extra=True),
                "exclude": ListOf(Text(), "a list of globs"),
                "follow_up": Flag(),
                "max_requests": _COUNT,
                "max_chars": _COUNT,
                "max_turn_chars": _COUNT,
                "timeout": Number(above=0, what="a positive number of seconds"),
                "web": Fields(
                    {
                        "domains": ListOf(Text(), "a list of host names"),
                        "max_bytes": Number(1, whole=True, what="a whole number of bytes"),
                        "timeout": Number(above=0, what="a positive number of seconds"),
                    },
                    noun="evidence.web setting",
                ),
                "search": Fields(
                    {"command": Text(), "url": Text(what="a URL with {query} in it")},
                    noun="evidence.search setting",
                ),
            },
            noun="evidence setting",
        ),
        "budget": Fields(
            {"max_cost_usd": Number(0), "max_tokens": _COUNT, "max_calls": _COUNT},
            noun="budget setting",
        ),
        "apply": APPLY,
        "summon": Fields(
            {"prefix": Text(what="text (the summons word, e.g. @discuss)"), "context": _COUNT},
            noun="summon setting",
        ),
        "drift": Fields({"strict": Flag()}, noun="drift setting"),
        "language": Text(what="a language code or name, such as nl or German"),
        "diagrams": Fields(
            {
                "mermaid_js": Text(what="the path of mermaid.min.js"),
                "plantuml": Text(what="a command line (source on stdin, SVG on stdout)"),
            },
            noun="diagrams setting",
        ),
    },
    noun="setting",
)
"""Every key of ``discussions.yaml`` and the user's ``config.yaml`` (docs/configuration.md)."""
