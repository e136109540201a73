"""The Claude Code plugin (.claude-plugin/) as the real Claude Code reads it: `claude plugin
validate --strict` checks the manifest's fields, that its paths exist, and the marketplace
entry, failing on what the runtime would only warn about (Claude Code 2.1.197, `claude plugin
validate --help`). tests/release/test_manifests.py checks the same files against SchemaStore's
schemas, without the binary."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def validate(claude: Path, target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(claude), "plugin", "validate", "--strict", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_plugin_and_its_marketplace_pass_strict_validation(
    real_cli: Callable[[str], Path],
) -> None:
    claude = real_cli("claude")
    for target in (ROOT, ROOT / ".claude-plugin" / "plugin.json"):
        result = validate(claude, target)
        assert result.returncode == 0, result.stdout + result.stderr


def test_strict_validation_fails_a_broken_copy(
    real_cli: Callable[[str], Path], tmp_path: Path
) -> None:
    """The same plugin with its commands folder gone: the check can fail."""
    claude = real_cli("claude")
    copy = tmp_path / "plugin"
    shutil.copytree(
        ROOT / ".claude-plugin", copy / ".claude-plugin", ignore=shutil.ignore_patterns("commands")
    )
    manifest = json.loads((copy / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["commands"].startswith("./.claude-plugin/")
    result = validate(claude, copy / ".claude-plugin" / "plugin.json")
    assert result.returncode == 1
