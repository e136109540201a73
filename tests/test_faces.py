"""Each package's face (`syntax.faces`): the names its `__init__.py` declares load nothing until
used, resolve to what the type checker is told they are, and are its public names."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "discussions"


def _faces() -> dict[str, dict[str, str]]:
    """Each package that declares a face: its dotted name and its table (name -> module)."""
    found = {}
    for init in sorted(PACKAGE.rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "face"
            ):
                table = ast.literal_eval(node.value.args[1])
                rel = init.parent.relative_to(PACKAGE.parent)
                found[".".join(rel.parts)] = table
    return found


FACES = _faces()


def test_the_public_packages_declare_faces() -> None:
    assert {"discussions", "discussions.ops", "discussions.providers", "discussions.tui"} <= set(
        FACES
    )


@pytest.mark.parametrize("package", sorted(FACES))
def test_no_name_of_a_face_is_also_a_submodule(package: str) -> None:
    """Importing a submodule binds its name in the package, which would hide a face's name."""
    folder = PACKAGE.parent.joinpath(*package.split("."))
    submodules = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    assert not set(FACES[package]) & submodules


def _type_checking_imports(package: str) -> dict[str, str]:
    """name -> module (relative to the package) of the `if TYPE_CHECKING:` imports."""
    init = PACKAGE.parent.joinpath(*package.split("."), "__init__.py")
    names = {}
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom) and sub.level == 1 and sub.module:
                    names.update({alias.name: sub.module for alias in sub.names})
    return names


@pytest.mark.parametrize("package", sorted(FACES))
def test_the_type_checker_sees_the_same_names_from_the_same_modules(package: str) -> None:
    assert _type_checking_imports(package) == FACES[package]


@pytest.mark.parametrize("package", sorted(FACES))
def test_a_face_loads_nothing_until_a_name_is_used(package: str) -> None:
    """Importing the package loads none of the modules its names come from; using each name
    gives the object of that module, listed in `__all__` and `dir()`."""
    table = FACES[package]
    probe = (
        "import importlib, sys\n"
        f"pkg = importlib.import_module({package!r})\n"
        f"table = {table!r}\n"
        "loaded = sorted({m for m in table.values() if f'{pkg.__name__}.{m}' in sys.modules})\n"
        "assert not loaded, loaded\n"
        "for name, module in table.items():\n"
        "    value = getattr(pkg, name)\n"
        "    assert value is getattr(sys.modules[f'{pkg.__name__}.{module}'], name), name\n"
        "    assert name in pkg.__all__ and name in dir(pkg), name\n"
        "try:\n"
        "    pkg.no_such_name\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('an unknown name resolved')\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
