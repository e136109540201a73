"""Who may speak for whom: the names a person cannot sign with, and who sits on the council.

A person's comment (`Discussion.add_comment`: ``discussions comment``, the web form, the MCP
``add_comment`` tool, the terminal app) cannot be signed with a participant's name. A name is
refused when it is, or looks like:

* the display name or alias of a configured participant (``AI-Security``, ``security``,
  ``AI Security``), or a name the engine reads as that participant
  (`ParticipantRegistry.for_author`: ``Security Bob`` counts as ``@security``);
* the name of an author who has spoken as an AI in this discussion (a comment carrying the
  engine's ``<!-- provider: ... -->`` line, or a ``<!-- PASS: name -->`` block), even when the
  persona is no longer configured.

"Looks like" compares `name_key`s: Unicode compatibility forms folded (NFKC: full-width and
mathematical letters), case folded, accents dropped, common Cyrillic and Greek look-alikes of
Latin letters mapped to them, ``l``/``1``/``|`` read as ``i``, ``0`` as ``o``, ``rn`` as ``m``,
``vv`` as ``w``, and everything but letters and digits (spaces, dashes, dots, underscores)
left out. Invisible and control characters are refused before, by `Discussion.add_comment`.

The council (who casts counted ballots and seconds motions) is the discussion's voting
participants and the people named in ``consensus.human_required``; `council_seat` matches an
author to a seat case-insensitively, with whitespace normalised.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import ReservedName

if TYPE_CHECKING:
    from ..settings.participants import Participant, ParticipantRegistry

_LOOKALIKES = str.maketrans(
    "авеёкмнорстухѕіїјԁԛԝһӏɡ"  # Cyrillic
    "αβεηικνορτυχζ"  # Greek
    "ıłl1|!0øđħ$",  # Latin letters, digits and signs read as others
    "abeekmhopctyxsiijdqwhigabenikvoptuxziiiiiioodhs",
)
_TOKEN = re.compile(r"[^\W_]+")
# Each starts with a literal newline, so a scan of a large file jumps from line to line that
# can match (ten times faster than ``^`` with re.M); the text is searched with a newline before it.
_AI_AUTHOR = re.compile(
    r"\nName:[ \t]*(?P<name>[^\n]*?)[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]*<!--[ \t]*provider:"
)
_PASS = re.compile(r"\n[ ]{0,3}<!--[ \t]*PASS:[ \t]*(?P<name>[^\n]*?)[ \t]*-->")


def _tokens(name: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", name).casefold()
    bare = "".join(
        ch for ch in unicodedata.normalize("NFKD", folded) if unicodedata.category(ch) != "Mn"
    )
    words = _TOKEN.findall(bare.translate(_LOOKALIKES))
    return [w.replace("rn", "m").replace("vv", "w") for w in words]


def name_key(name: str) -> str:
    """What `name` looks like, for comparing names (see the module docstring):
    ``"ＡＩ–Ѕécurity"`` and ``"ai security"`` both give ``"aisecurity"``."""
    return "".join(_tokens(name))


def _participant_keys(p: Participant) -> set[str]:
    return {name_key(p.name), name_key(p.alias), "ai" + name_key(p.alias)}


def ai_authors(text: str) -> list[str]:
    """Names that have spoken as an AI in a discussion's `text`: authors of comments with the
    engine's metadata line, and participants whose pass the engine recorded."""
    text = "\n" + text
    found = [m.group("name") for m in _AI_AUTHOR.finditer(text)]
    found += [m.group("name") for m in _PASS.finditer(text)]
    return list(dict.fromkeys(n for n in found if n))


def impersonated(author: str, registry: ParticipantRegistry, spoken: Iterable[str] = ()) -> str:
    """Whom `author` would sign as: ``"participant AI-Security (@security)"``, or ``""`` when
    `author` is nobody's but their own. `spoken` are the AI authors of the discussion."""
    p = registry.for_author(author)
    if p is not None:
        return f"participant {p.name} (@{p.alias})"
    words = _tokens(author)
    keys = {"".join(words)} - {""} | ({words[0]} if len(words) > 1 else set())
    for p in registry:
        if keys & _participant_keys(p):
            return f"participant {p.name} (@{p.alias})"
    for name in spoken:
        if keys & _spoken_keys(name):
            return f"{name}, who speaks as an AI in this discussion"
    return ""


def _spoken_keys(name: str) -> set[str]:
    """The keys of an AI author of the discussion, as for a configured participant: the whole
    name, and the name without its ``AI`` prefix (``AI-Oracle``: ``aioracle``, ``oracle``)."""
    key = name_key(name)
    return {key, key[2:]} - {""} if key.startswith("ai") else {key} - {""}


def check_human_author(author: str, registry: ParticipantRegistry, text: str = "") -> None:
    """Raise `ReservedName` when a person signing as `author` would speak for a participant
    (of `registry`, or one who spoke as an AI in the discussion's `text`)."""
    whom = impersonated(author, registry, ai_authors(text) if text else ())
    if whom:
        raise ReservedName(
            f"'{author}' is the name of {whom}, or looks like it; a person cannot comment "
            "under a participant's name. Sign with your own name (--author NAME, or the "
            "author field), or ask the participant to speak with `discussions turn`."
        )


def council_seat(author: str, council: Iterable[str]) -> str | None:
    """The council seat `author` holds (the name as the council lists it), or None.
    Case-insensitive, whitespace normalised."""
    key = " ".join(author.split()).casefold()
    for name in council:
        if " ".join(name.split()).casefold() == key:
            return name
    return None
