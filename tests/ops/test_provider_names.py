"""`check` names a provider the settings name that no provider or preset defines
(``providers.default``, ``providers.fallback``, ``providers.personas``), at its line in the file
that sets it; defined names (presets, the mock, providers.yaml, ``replay:``) pass."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from discussions.cli import cli

from ..conftest import write


def _check() -> tuple[int, str]:
    r = CliRunner().invoke(cli, ["check"])
    return r.exit_code, r.output


def test_a_provider_name_nobody_defines_is_a_problem_at_its_line(isolated: Path) -> None:
    assert CliRunner().invoke(cli, ["new", "Talk"]).exit_code == 0
    write(
        isolated / "discussions.yaml",
        "providers:\n"
        "  default: claud\n"
        "  fallback:\n"
        "    - mock\n"
        "    - olama\n"
        "  personas:\n"
        "    architect: codex\n"
        "    security: gemnii\n",
    )
    code, output = _check()
    assert code == 1, output
    assert "discussions.yaml:2: providers.default: no provider named 'claud'" in output
    assert "discussions.yaml:5: providers.fallback: no provider named 'olama'" in output
    assert "discussions.yaml:8: providers.personas.security: no provider named 'gemnii'" in output
    assert "'mock'" not in output and "'codex'" not in output


def test_defined_provider_names_pass(isolated: Path, userdir: Path) -> None:
    assert CliRunner().invoke(cli, ["new", "Talk"]).exit_code == 0
    write(userdir / "providers.yaml", "providers:\n  - name: mine\n    command: cat\n")
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: mine\n  fallback: [llm, mock, 'replay:old.md']\n"
        "  personas:\n    architect: claude\n",
    )
    code, output = _check()
    assert code == 0, output
