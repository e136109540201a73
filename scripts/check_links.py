"""Check every relative link and `#anchor` in README.md and docs/, as GitHub resolves them.

    python scripts/check_links.py          # FILE:LINE: problem for each, exit 1 if any

A link's file must exist (relative to the page that links it); an anchor must be a heading of
the page it points to, slugged as GitHub does (lower case, punctuation dropped, spaces to
hyphens, `-1`, `-2` for a repeated heading), or an `id`/`name` the page sets. Links in code
(fenced blocks, inline code) and in HTML comments are not links. External addresses (`http:`,
`https:`, `mailto:`) are not fetched: CI has no network. `mkdocs build --strict` checks the
same pages as the site resolves them; this checks the README too, and GitHub's slugs.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_contents import anchor  # noqa: E402  (GitHub's slug, one place)

ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)"
    r"|^ {0,3}\[[^\]]+\]:\s*(\S+)"
    r"|\b(?:href|src)=\"([^\"]+)\"",
    re.M,
)


def pages(root: Path) -> list[Path]:
    """The pages checked: the README and every markdown file under docs/."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def unfenced(text: str) -> str:
    """The text with the lines of fenced code blocks blanked out, line numbers kept."""
    kept, fence = [], ""
    for line in text.split("\n"):
        match = FENCE.match(line)
        if fence:
            closes = match and match.group(1).startswith(fence) and not match.group(2).strip()
            fence = "" if closes else fence
            kept.append("")
        elif match:
            fence = match.group(1)
            kept.append("")
        else:
            kept.append(line)
    return "\n".join(kept)


def prose(text: str) -> str:
    """The text with code (fenced and inline) and HTML comments blanked out."""
    joined = re.sub(r"<!--.*?-->", _blank, unfenced(text), flags=re.S)
    return re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", _blank, joined, flags=re.S)


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def anchors(text: str) -> set[str]:
    """The anchors a page has: its headings' slugs (repeats numbered) and explicit ids."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in unfenced(text).split("\n"):
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$", line)
        if heading:
            slug = anchor(heading.group(1).replace("`", ""))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    found |= set(re.findall(r"\b(?:id|name)=\"([^\"]+)\"", text))
    return found


def links(text: str) -> list[tuple[int, str]]:
    """Each link's line number and target, in order."""
    plain = prose(text)
    out = []
    for match in LINK.finditer(plain):
        target = next(g for g in match.groups() if g is not None).strip("<>")
        out.append((plain.count("\n", 0, match.start()) + 1, target))
    return out


def problem(page: Path, target: str) -> str | None:
    """What is wrong with one link of `page`, or None."""
    if EXTERNAL.match(target) or target.startswith("//"):
        return None
    path, _, fragment = target.partition("#")
    linked = (page.parent / unquote(path)).resolve() if path else page
    if not linked.exists():
        return f"links to {path}, which does not exist"
    if not fragment or linked.suffix != ".md" or not linked.is_file():
        return None  # an anchor into another kind of file (code, a picture) is not checked
    if unquote(fragment) not in anchors(linked.read_text(encoding="utf-8")):
        return f"links to #{fragment}, which {path or 'this page'} has no heading for"
    return None


def problems(root: Path = ROOT) -> list[str]:
    """Every broken relative link and anchor, as `FILE:LINE: link: what is wrong`."""
    found = []
    for page in pages(root):
        for line, target in links(page.read_text(encoding="utf-8")):
            if (wrong := problem(page, target)) is not None:
                name = page.relative_to(root).as_posix()
                found.append(f"{name}:{line}: {target}: {wrong}")
    return found


def main() -> int:
    found = problems()
    for line in found:
        print(line)
    checked = sum(len(links(p.read_text(encoding="utf-8"))) for p in pages(ROOT))
    print(f"{checked} links in {len(pages(ROOT))} pages, {len(found)} broken", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
