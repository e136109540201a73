"""The merge driver as git starts it: ``python -I -S <this file> merge-file [--marker-size N]
BASE OURS THEIRS [PATH]`` (`setup.driver_command`; `drivercheck.DRIVER_SCRIPT` says why
``-I -S``).

Run as a script, with no ``site`` and nothing of the work tree or the environment on
``sys.path``: it puts the folder holding this package after the standard library (never before
it: that folder may be a site-packages whose other packages must not hide a standard module),
so the package it belongs to is the one that merges, ahead of what ``site`` adds. Two sides
that only appended plain comments merge on the fast path (`plain.merge_plain_file`), which
imports no ``re``; anything else runs ``site`` (so what is installed beside the package
resolves) and the full driver (`driver.driver_main`), exactly as ``python -m discussions
merge-file`` does. Kept this small because a script's own code is compiled at every start
(the modules it imports are cached).
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    """The exit status for git: 0 merged, 1 conflict (markers written), 2 failure."""
    from discussions.git.plain import driver_args, merge_plain_file

    found = driver_args(argv[1:]) if argv[:1] == ["merge-file"] else None
    if found is not None and merge_plain_file(*found[1][:3]):
        return 0
    import site

    site.main()
    from discussions.git.driver import driver_main

    status = driver_main(argv[1:]) if found is not None else -1
    if status < 0:
        sys.stderr.write("discussions: usage: mergefile.py merge-file BASE OURS THEIRS [PATH]\n")
        return 2
    return status


if __name__ == "__main__":
    # The folder holding the package (`setup.driver_command` names this file by absolute path);
    # `os.path` is not loaded without `site`, and is not needed for three folders up.
    parts = __file__.rsplit("/", 3)
    sys.path.append(parts[0] if len(parts) == 4 else ".")
    sys.exit(main(sys.argv[1:]))
