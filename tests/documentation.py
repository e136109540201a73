"""Where the tests find what the documentation prints: the README (the short introduction) and
the pages in docs/ (the reference). A test that runs or compares an example reads it from the
page that prints it, so moving text between pages moves the test's eyes with it."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def script(name: str) -> ModuleType:
    """One of scripts/*.py, loaded as a module (scripts/ is no package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pages() -> list[Path]:
    """The README and every page under docs/, in a fixed order (as the link check has them)."""
    found: list[Path] = script("check_links").pages(ROOT)
    return found


def page(name: str) -> str:
    """One page's text: `README.md`, or a page of docs/ by its name (`commands.md`)."""
    path = README if name == "README.md" else DOCS / name
    return path.read_text(encoding="utf-8")


def everything() -> str:
    """Every page's text, one after the other (for what may be printed on any of them)."""
    return "\n".join(p.read_text(encoding="utf-8") for p in pages())


def section(name: str, heading: str) -> str:
    """The text under `heading` (a whole heading line, `## Python API`) of page `name`, up to
    the next heading of the same or a higher level outside code blocks."""
    level = len(heading.split(" ", 1)[0])
    lines = page(name).split("\n")
    start = lines.index(heading) + 1
    fence = ""
    for end in range(start, len(lines)):
        line = lines[end]
        if line.startswith(("```", "~~~")):
            marker = line[: len(line) - len(line.lstrip(line[0]))]
            fence = "" if fence and marker.startswith(fence) else fence or marker
        elif not fence and (found := re.match(r"(#+) ", line)) and len(found[1]) <= level:
            return "\n".join(lines[start:end])
    return "\n".join(lines[start:])
