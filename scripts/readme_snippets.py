"""The README's configuration snippets, for CI to run them as printed (.ci/release-check) and
for the tests to compare them with the release (tests/release/test_release.py).

    python scripts/readme_snippets.py pre-commit REPO    # the pre-commit config, with REPO

A snippet is the fenced block whose first line is a comment naming its file, such as
``# .pre-commit-config.yaml``. REPO replaces the repository's published address
(https://github.com/OWNER/discussions), so the same configuration runs against a checkout.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
PUBLISHED = "https://github.com/OWNER/discussions"
FILES = {
    "pre-commit": ".pre-commit-config.yaml",
    "workflow": ".github/workflows/discussions.yml",
}


def snippet(name: str, readme: str | None = None) -> str:
    """The README's one block for the file `FILES[name]`."""
    text = README.read_text(encoding="utf-8") if readme is None else readme
    blocks = re.findall(r"^```ya?ml\n(.*?)^```", text, flags=re.M | re.S)
    found = [b for b in blocks if b.startswith(f"# {FILES[name]}\n")]
    if len(found) != 1:
        raise LookupError(f"the README has {len(found)} blocks for {FILES[name]}, not one")
    return str(found[0])


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in FILES:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(snippet(argv[1]).replace(PUBLISHED, argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
