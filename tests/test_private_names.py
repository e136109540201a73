"""No module writes another's private attributes or calls another module's private names
(docs/architecture.md, "Where new code goes"): it asks for a public method instead."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "discussions"


def _private(attr: str) -> bool:
    return attr.startswith("_") and not attr.startswith("__")


def _own_attributes(tree: ast.Module) -> set[str]:
    """Private attributes the module's own classes set on ``self``: the module may set them
    on other instances of its classes too (a copy it builds, the file as read under a lock)."""
    return {
        t.attr
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
    }


def _written(node: ast.AST) -> list[ast.Attribute]:
    """The attributes `node` assigns to (tuples unpacked)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    else:
        return []
    flat: list[ast.expr] = []
    for t in targets:
        flat += t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]
    return [t for t in flat if isinstance(t, ast.Attribute)]


def _imported_modules(tree: ast.Module) -> set[str]:
    """Names the module binds to modules of the package (``from . import data``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
            node.level or "discussions" in (node.module or "")
        ):
            names |= {a.asname or a.name for a in node.names if a.name.islower()}
    return names


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _own_attributes(tree)
    modules = _imported_modules(tree)
    where = path.relative_to(PACKAGE)
    found = []
    for node in ast.walk(tree):
        for t in _written(node):
            base = ast.unparse(t.value)
            if _private(t.attr) and base not in ("self", "cls") and t.attr not in own:
                found.append(f"{where}:{node.lineno}: writes {base}.{t.attr}")
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            found.append(f"{where}:{node.lineno}: uses {node.value.id}.{node.attr}")
    return found


def test_no_module_writes_another_s_private_attributes() -> None:
    modules = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    assert [problem for p in modules for problem in _problems(p)] == []
