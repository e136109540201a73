"""The layout holds: the layers contract (import-linter, declared in pyproject.toml), module and
function sizes, and a first line that says what each module holds (docs/architecture.md)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "discussions"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60
LAYER_PACKAGES = (
    "syntax",
    "settings",
    "derive",
    "model",
    "providers",
    "views",
    "engine",
    "git",
    "ops",
    "cli",
    "tui",
    "web",
    "mcp",
)


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_the_layers_contract_holds() -> None:
    """No import runs up a layer, and no two sibling modules or packages import each other."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which(
        "lint-imports"
    )
    if lint is None:
        pytest.fail("lint-imports not found: pip install '.[test]' installs import-linter")
    out = subprocess.run(
        [lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def test_the_root_holds_packages_by_layer() -> None:
    root_modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert root_modules == ["__init__.py", "__main__.py", "atomic.py", "errors.py"]
    for name in LAYER_PACKAGES:
        assert (PACKAGE / name / "__init__.py").is_file(), name


def test_no_module_is_too_long() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in modules()
        if (n := p.read_text(encoding="utf-8").count("\n")) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_too_long() -> None:
    long = {}
    for p in modules():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{p.relative_to(PACKAGE)}:{node.lineno} {node.name}"] = lines
    assert long == {}


def test_every_module_says_what_it_holds() -> None:
    missing = [
        str(p.relative_to(PACKAGE))
        for p in modules()
        if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert missing == []


def test_code_speaks_of_the_code() -> None:
    """Comments and docstrings cite the repository's own docs, not documents outside it."""
    words = ("seed 004", "DESIGN.md", "issue 1", "issue 2", "(issue ")
    found = [
        f"{p.relative_to(PACKAGE)}: {w}"
        for p in modules()
        for w in words
        if w in p.read_text(encoding="utf-8")
    ]
    assert found == []
