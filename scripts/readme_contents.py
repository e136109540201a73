"""Write the README's table of contents from its headings (between the CONTENTS markers).

    python scripts/readme_contents.py          # rewrite README.md's contents in place

tests/test_readme.py fails when the contents and the headings disagree.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- CONTENTS -->", "<!-- /CONTENTS -->"


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def headings(readme: str) -> list[tuple[int, str]]:
    """The level-2 and level-3 headings outside code blocks, in order."""
    found: list[tuple[int, str]] = []
    fenced = False
    for line in readme.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"(##|###) (.+)$", line)):
            found.append((len(match.group(1)), match.group(2).strip()))
    return found


def contents(readme: str) -> str:
    """The table of contents as a nested markdown list."""
    lines = []
    for level, title in headings(readme):
        indent = "  " * (level - 2)
        plain = title.replace("`", "")
        lines.append(f"{indent}- [{plain}](#{anchor(title)})")
    return "\n".join(lines)


def with_contents(readme: str) -> str:
    """The README with its contents block written anew."""
    before, rest = readme.split(START, 1)
    _, after = rest.split(END, 1)
    return f"{before}{START}\n{contents(readme)}\n{END}{after}"


def main() -> int:
    text = README.read_text(encoding="utf-8")
    README.write_text(with_contents(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
