"""`python -m discussions` runs the command line.

git runs the merge driver once per merged file, so `merge-file` skips click and the command
machinery when it can (`git.driver.driver_main` returns -1 when the arguments need the full CLI).
"""

import sys

if sys.argv[1:2] == ["merge-file"]:
    from .git.driver import driver_main

    status = driver_main(sys.argv[2:])
    if status >= 0:
        sys.exit(status)

from .cli import main  # noqa: E402

main()
