"""The documentation's configuration snippets (README.md and the pages in docs/), for CI to run
them as printed (.ci/release-check) and for the tests to compare them with the release
(tests/release/test_release.py).

    python scripts/readme_snippets.py pre-commit REPO    # the pre-commit config, with REPO

A snippet is the fenced block whose first line is a comment naming its file, such as
``# .pre-commit-config.yaml``; there is one for each file, on whichever page prints it. REPO
replaces the repository's published address (https://github.com/OWNER/discussions), so the
same configuration runs against a checkout.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_links import pages  # noqa: E402  (the pages the documentation has, one place)

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = "https://github.com/OWNER/discussions"
FILES = {
    "pre-commit": ".pre-commit-config.yaml",
    "workflow": ".github/workflows/discussions.yml",
}


def documentation() -> str:
    """The README and every page of docs/, one after the other."""
    return "\n".join(p.read_text(encoding="utf-8") for p in pages(ROOT))


def snippet(name: str, text: str | None = None) -> str:
    """The documentation's one block for the file `FILES[name]` (in `text`, if given)."""
    blocks = re.findall(r"^```ya?ml\n(.*?)^```", text or documentation(), flags=re.M | re.S)
    found = [b for b in blocks if b.startswith(f"# {FILES[name]}\n")]
    if len(found) != 1:
        raise LookupError(f"the documentation has {len(found)} blocks for {FILES[name]}, not one")
    return str(found[0])


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in FILES:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(snippet(argv[1]).replace(PUBLISHED, argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
