"""The environment a provider's command runs with: what ``env_remove`` takes out and ``env``
(and for the write mode ``write_env``) sets, and which variable names an entry may not set.

Names refused in ``env``/``write_env`` (`_refused_name`), and why only these:

* ``PATH``, ``LD_*`` and ``DYLD_*`` change how every process starts and which programs it
  finds: our own wrappers (``setpriv`` and the ``/bin/sh`` guard), and every program the tool
  runs, would load code from places that trust never hashed (a ``PATH`` entry or a library
  folder inside the repository).
* ``GIT_*`` would undo the apply's isolation: the lead runs without our ``GIT_*`` variables
  on purpose, and ``GIT_DIR``, ``GIT_WORK_TREE`` or ``GIT_INDEX_FILE`` would point its git at
  the user's repository.

Interpreter-specific variables (``PYTHONPATH``, ``NODE_OPTIONS``...) are not refused: no list
of them could be complete, and it would not be the boundary anyway. A project's entry runs
only after `discussions trust`, which covers ``env`` like ``command`` (both are in
providers.yaml, whose digest trust records), and a trusted ``command`` can already set any
variable itself (``env PYTHONPATH=... python ...``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..syntax.lazyre import Lazy

_NAME = Lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_REFUSED_PREFIXES = ("LD_", "DYLD_", "GIT_")


def _refused_name(name: str) -> str | None:
    """Why an entry may not set the variable `name`, or None when it may."""
    if not _NAME.fullmatch(name):
        return "is not a variable name (letters, digits and _, not starting with a digit)"
    if name == "PATH" or name.startswith(_REFUSED_PREFIXES):
        return (
            "cannot be set by a provider entry (PATH, LD_*, DYLD_* and GIT_* change which "
            "programs run or which repository git uses); set it in your shell instead"
        )
    return None


def env_problem(value: object) -> tuple[str, str] | None:
    """(variable, why) for the first unusable entry of an ``env``/``write_env`` mapping,
    or None. Values must be text (quote numbers and booleans in YAML)."""
    if not isinstance(value, Mapping):
        return "", "must be a mapping of variable names to text"
    for name, text in value.items():
        why = _refused_name(str(name))
        if why is not None:
            return str(name), why
        if not isinstance(text, str):
            return str(name), f"must be text (quote it), not {type(text).__name__}"
        if "\0" in text:
            return str(name), "must not contain a NUL character"
    return None


def command_env(
    base: Mapping[str, str], remove: Iterable[str] = (), *sets: Mapping[str, str]
) -> dict[str, str]:
    """`base` without the variables in `remove`, then with each mapping of `sets` applied in
    order (a later one wins)."""
    env = dict(base)
    for name in remove:
        env.pop(name, None)
    for values in sets:
        env.update(values)
    return env
