"""The prompt as a command's last argument, for CLIs that take it no other way.

GitHub Copilot CLI (``copilot -p PROMPT``) and Cursor's agent (``cursor-agent -p PROMPT``) read
a non-interactive prompt only from their arguments. A provider opts in with
``prompt_via: argument`` in ``providers.yaml``; the prompt then becomes one more word of the
argument vector, after the configured command's words:

* Never through a shell: the vector goes to ``execve`` as it is, so nothing in the prompt is
  ever interpreted (quotes, ``$``, backticks, ``;`` are just text).
* Bounded by what the system accepts: on Linux one argument may hold at most 128 KiB
  (``MAX_ARG_STRLEN``, 32 pages, its final NUL included) and all arguments with the
  environment at most ``ARG_MAX`` (``sysconf(_SC_ARG_MAX)``). A longer prompt is refused before
  anything runs, with its size, rather than failing inside ``execve``. A NUL byte, which no
  argument can carry, is refused too.
* Never an option: a prompt starting with ``-`` (it opens with the persona's text, which a
  project brings) would be parsed by the CLI as one of its options (``--mode=agent ...``), so
  it gets a line break in front.
* Visible: while the command runs, every local user can read its arguments (``ps``,
  ``/proc/PID/cmdline``), so the whole prompt - the discussion - is visible to them. Use it
  only where that is acceptable; a provider reading stdin shows nothing.
"""

from __future__ import annotations

import os
import sys

from ..errors import ProviderFailed

MAX_ARG_STRLEN = 32 * 4096
"""Linux's limit on one argument, in bytes, the terminating NUL included."""
_POINTER = 8
_SLACK = 4096
"""Room for what is added to the environment at spawn time (the call's tag) and the loader."""


def _arg_max() -> int:
    """``sysconf(_SC_ARG_MAX)``: arguments and environment together, in bytes."""
    try:
        value = os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError, AttributeError):
        value = -1
    return value if value > 0 else 256 * 1024


def with_prompt_argument(name: str, argv: list[str], prompt: str, env: dict[str, str]) -> list[str]:
    """`argv` with `prompt` appended as one argument, or `ProviderFailed` when the system
    would not accept it."""
    if prompt.startswith("-"):  # else the CLI reads it as one of its options
        prompt = "\n" + prompt
    data = prompt.encode("utf-8", errors="surrogateescape")
    if b"\0" in data:
        raise ProviderFailed(name, "the prompt holds a NUL byte, which an argument cannot carry")
    if sys.platform.startswith("linux") and len(data) + 1 > MAX_ARG_STRLEN:
        raise ProviderFailed(
            name,
            f"the prompt is {len(data):,} bytes; as one argument Linux accepts at most "
            f"{MAX_ARG_STRLEN - 1:,}",
            "use a provider that reads the prompt on stdin, or a smaller context budget",
        )
    words = [*(os.fsencode(a) for a in argv), data]
    pairs = [os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]
    total = sum(len(w) + 1 + _POINTER for w in (*words, *pairs)) + 2 * _POINTER + _SLACK
    if total > _arg_max():
        raise ProviderFailed(
            name,
            f"the prompt and environment need {total:,} bytes of arguments; the system "
            f"accepts {_arg_max():,}",
            "use a provider that reads the prompt on stdin, or a smaller context budget",
        )
    return [*argv, prompt]
