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

"Looks like" compares `name_keys`: a name's own form (Unicode compatibility forms folded, case
folded, accents dropped, everything but letters and digits left out: ``AI Security`` is
``aisecurity``) and its Unicode confusables skeleton (UTS #39, computed by the maintained
``disarm`` package from Unicode's own table, not a table of ours: ``Ꭺl-Security`` with a
Cherokee A, ``АI-Ѕecurity`` with Cyrillic letters, ``AI_Secur1ty`` all share the skeleton of
``AI-Security``). Two names look alike when a key of one is a key of the other, or, for keys
of `_FUZZY_MIN` characters or more, one edit away from it (``AI-Securityy``, ``AI-Secuirty``):
a squatter's name one keystroke from a participant's. Invisible and control characters are
refused before, by `Discussion.add_comment`.

The council (who casts counted ballots and seconds motions) is the discussion's voting
participants and the people named in ``consensus.human_required``; `council_seat` matches an
author to a seat case-insensitively, with whitespace normalised.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from ..errors import ReservedName
from ..syntax.lazyre import Lazy

if TYPE_CHECKING:
    from ..settings.participants import Participant, ParticipantRegistry

_FUZZY_MIN = 5
"""Keys this long or longer also match a key one edit away (a squatted name)."""
_TOKEN = Lazy(r"[^\W_]+")
# Each starts with a literal newline, so a scan of a large file jumps from line to line that
# can match (ten times faster than ``^`` with re.M); the text is searched with a newline before it.
# Possessive runs: nothing given back can help a match, and a scan of a large file that tries
# the pattern at each ``Name:`` line is then three to seven times faster. The name's line is
# taken whole and trimmed in code: `_ai_name`.
_AI_AUTHOR = re.compile(r"\nName:[ \t]*+([^\n]*+)\n(?:[ \t]*+\r?\n)*+[ \t]*+<!--[ \t]*+provider:")
_PASS = Lazy(r"\n[ ]{0,3}<!--[ \t]*PASS:[ \t]*(?P<name>[^\n]*?)[ \t]*-->")


def _tokens(name: str) -> list[str]:
    """The words of `name`: compatibility forms and case folded, accents dropped."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    bare = "".join(
        ch for ch in unicodedata.normalize("NFKD", folded) if unicodedata.category(ch) != "Mn"
    )
    return _TOKEN.findall(bare)


@lru_cache(maxsize=4096)
def _skeleton_tokens(name: str) -> tuple[str, ...]:
    """The words of the UTS #39 confusables skeleton of `name` (letters read as the letter they
    look like; ``I``, ``l`` and ``1`` as one, ``0`` as ``O``)."""
    from disarm import skeleton_key  # only when a name is compared: it takes a while to load

    return tuple(_tokens(skeleton_key(name, digit_policy="tr39")))


def name_keys(name: str, skeleton: bool = True) -> frozenset[str]:
    """What `name` looks like, for comparing names (see the module docstring): its folded
    form and (with `skeleton`) its skeleton's. ``"ＡＩ–Ѕécurity"``, ``"Ꭺl-Security"`` and
    ``"ai security"`` each share a key with ``"AI-Security"``."""
    keys = {"".join(_tokens(name))}
    if skeleton:
        keys.add("".join(_skeleton_tokens(name)))
    return frozenset(keys - {""})


def name_key(name: str) -> str:
    """The folded form of `name`: ``"ＡＩ–Sécurity"`` and ``"ai security"`` both give
    ``"aisecurity"`` (look-alike letters are compared by `name_keys`)."""
    return "".join(_tokens(name))


def _participant_keys(p: Participant, skeleton: bool = True) -> set[str]:
    aliases = name_keys(p.alias, skeleton)
    keys = set(name_keys(p.name, skeleton) | aliases)
    return keys | {"ai" + k for k in aliases} | {"al" + k for k in aliases}


def _near(key: str, other: str) -> bool:
    """`key` is `other`, or (both `_FUZZY_MIN` long or more) one insertion, deletion,
    substitution or swap of two neighbours away from it."""
    if key == other:
        return True
    if min(len(key), len(other)) < _FUZZY_MIN or abs(len(key) - len(other)) > 1:
        return False
    short, long = sorted((key, other), key=len)
    i = next((n for n, (a, b) in enumerate(zip(short, long, strict=False)) if a != b), len(short))
    if len(short) == len(long):
        swapped = short[i : i + 2] == long[i : i + 2][::-1]
        return short[i + 1 :] == long[i + 1 :] or (swapped and short[i + 2 :] == long[i + 2 :])
    return short[i:] == long[i + 1 :]


def _looks_like(keys: set[str], known: set[str]) -> bool:
    return any(_near(k, x) for k in keys for x in known)


def ai_authors(text: str) -> list[str]:
    """Names that have spoken as an AI in a discussion's `text`: authors of comments with the
    engine's metadata line, and participants whose pass the engine recorded.

    A person's `comment` asks this of the whole file (it cost a 20,000-comment file a third
    more): the ``Name:`` lines are read by one possessive pattern, and a ``PASS`` marker
    only where a plain substring search (C speed) finds ``PASS:``, rare in any file."""
    spoken, passed = ai_author_names(text)
    return list(dict.fromkeys(n for n in [*spoken, *passed] if n))


def ai_author_names(text: str) -> tuple[list[str], list[str]]:
    """What `ai_authors` finds in `text`, in file order, as two lists: the names on ``Name:``
    lines of comments with the engine's metadata line, and the names of ``PASS`` markers
    (empty names and repeats kept). Every match starts at a line start and lies within the
    lines from one ``Name:`` line to the next, so the answer for a text is the answers for its
    parts cut just before a ``\nName:`` put together (`model.filefacts` scans only what an
    append added)."""
    text = "\n" + text
    spoken = [_ai_name(line) for line in _AI_AUTHOR.findall(text)]
    return spoken, _named_matches(text, "PASS:", _PASS.compiled(), "\n")


def _ai_name(line: str) -> str:
    """The name on the rest of a ``Name:`` line: without the blanks and carriage return after
    it (the blanks before it are not in `line`)."""
    return line.removesuffix("\r").rstrip(" \t")


def _named_matches(text: str, word: str, pattern: re.Pattern[str], opener: str) -> list[str]:
    """The ``name`` of each match of `pattern` in `text`, in order, as `pattern.finditer`
    finds them, where every match holds `word` and starts with `opener`, which it holds nowhere
    else: a match is at the last `opener` before one of its `word`s or nowhere. Linear: each
    look back for the `opener` stops at the `word` before (an `opener` before that one was
    found from there), and `word` and `opener` cannot overlap."""
    names: list[str] = []
    last = 0
    at = text.find(word)
    while at >= 0:
        start = text.rfind(opener, last, at)
        if start >= 0:
            m = pattern.match(text, start)
            if m is not None:
                names.append(m.group("name"))
        last = at
        at = text.find(word, at + len(word))
    return names


def impersonated(
    author: str, registry: ParticipantRegistry, spoken: Iterable[str] = (), skeleton: bool = True
) -> str:
    """Whom `author` would sign as: ``"participant AI-Security (@security)"``, or ``""`` when
    `author` is nobody's but their own. `spoken` are the AI authors of the discussion; without
    `skeleton`, the author's name is compared by its folded form alone (no confusables
    skeleton: the package that computes it takes a while to load)."""
    p = registry.for_author(author)
    if p is not None:
        return f"participant {p.name} (@{p.alias})"
    keys = _author_keys(author, skeleton)
    for p in registry:
        if _looks_like(keys, _participant_keys(p, skeleton)):
            return f"participant {p.name} (@{p.alias})"
    for name in spoken:
        if _looks_like(keys, _spoken_keys(name, skeleton)):
            return f"{name}, who speaks as an AI in this discussion"
    return ""


def _author_keys(author: str, skeleton: bool = True) -> set[str]:
    """The keys of `author`: of the whole name, and of its first word where it has several
    (``Security Bob`` is read as ``@security``)."""
    keys = set(name_keys(author, skeleton))
    words = _tokens(author)
    if len(words) > 1:
        keys |= name_keys(words[0], skeleton)
    return keys


def _spoken_keys(name: str, skeleton: bool = True) -> set[str]:
    """The keys of an AI author of the discussion, as for a configured participant: the whole
    name, and the name without its ``AI`` prefix (``AI-Oracle``: ``aioracle``, ``oracle``)."""
    keys = set(name_keys(name, skeleton))
    return keys | {k[2:] for k in keys if k[:2] in ("ai", "al") and k[2:]}


def check_human_author(
    author: str, registry: ParticipantRegistry, spoken: Iterable[str] = ()
) -> None:
    """Raise `ReservedName` when a person signing as `author` would speak for a participant
    (of `registry`, or one of `spoken`, who spoke as an AI in the discussion: `ai_authors`)."""
    whom = impersonated(author, registry, spoken)
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
