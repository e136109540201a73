"""Check the release artefacts' contents (run by .ci/release-check after `python -m build`).

    python scripts/check_dist.py DIST_DIR VERSION SOURCE_DIR

The wheel must carry the package, every bundled persona and template (pyproject's
force-include), every shipped provider policy file, the version in its metadata and the
`discussions` command; the sdist must carry what a wheel is built from. SOURCE_DIR is the clean
checkout the artefacts were built from: the expected files are listed from it, so a persona or
policy file added later is checked without editing this script. Prints one line per problem
and exits 1 when there is any.
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from email.parser import HeaderParser
from pathlib import Path

BUNDLED = {
    "participants": "discussions/_bundled/participants",
    "templates": "discussions/_bundled/templates",
}
POLICIES = "src/discussions/providers/policies"


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    dist, version, source = Path(argv[1]), argv[2], Path(argv[3])
    problems = wheel_problems(dist / f"discussions-{version}-py3-none-any.whl", version, source)
    problems += sdist_problems(dist / f"discussions-{version}.tar.gz", version, source)
    for p in problems:
        print(f"release-check: {p}")
    if not problems:
        print(f"release-check: wheel and sdist of {version} carry every expected file")
    return 1 if problems else 0


def wheel_problems(wheel: Path, version: str, source: Path) -> list[str]:
    """What the wheel lacks or says wrong."""
    if not wheel.is_file():
        return [f"no wheel {wheel.name}"]
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        info = f"discussions-{version}.dist-info"
        metadata, entry_points = (
            z.read(f"{info}/{n}").decode() if f"{info}/{n}" in names else ""
            for n in ("METADATA", "entry_points.txt")
        )
    problems = [f"wheel lacks {n}" for n in sorted(expected_in_wheel(source)) if n not in names]
    if HeaderParser().parsestr(metadata).get("Version") != version:
        problems.append(f"wheel metadata does not say Version: {version}")
    if "discussions = discussions.cli:main" not in entry_points:
        problems.append("wheel declares no `discussions` command")
    problems += [f"wheel carries test file {n}" for n in sorted(names) if n.startswith("tests/")]
    return problems


def expected_in_wheel(source: Path) -> set[str]:
    """The wheel paths every release must have, listed from the checkout."""
    names = {"discussions/__init__.py", "discussions/cli/__init__.py"}
    for folder, target in BUNDLED.items():
        found = _files(source / folder)
        names |= {f"{target}/{p.relative_to(source / folder).as_posix()}" for p in found}
    policies = _files(source / POLICIES)
    names |= {"discussions/providers/policies/" + p.name for p in policies}
    if not any(p.suffix == ".toml" for p in policies):
        names.add("discussions/providers/policies/*.toml (none in the checkout either)")
    return names


def sdist_problems(sdist: Path, version: str, source: Path) -> list[str]:
    """What the sdist lacks: the files a wheel is built from."""
    if not sdist.is_file():
        return [f"no sdist {sdist.name}"]
    prefix = f"discussions-{version}/"
    with tarfile.open(sdist) as t:
        names = {n.removeprefix(prefix) for n in t.getnames()}
    wanted = {"pyproject.toml", "README.md", "CHANGELOG.md", "src/discussions/__init__.py"}
    for folder in (*BUNDLED, POLICIES):
        wanted |= {p.relative_to(source).as_posix() for p in _files(source / folder)}
    return [f"sdist lacks {n}" for n in sorted(wanted - names)]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
