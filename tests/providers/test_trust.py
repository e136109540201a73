"""Trust covers what will run: providers.yaml and the project files its commands name."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.errors import ConfigError, UntrustedProvider
from discussions.providers import ProviderRegistry
from discussions.providers.trust import file_digest, trust, trust_scope

from ..conftest import write

PY = shlex.quote(sys.executable)


def provider_yaml(project: Path, command: str) -> Path:
    return write(
        project / "providers.yaml",
        f"providers:\n  - name: local\n    command: {command!r}\n",
    )


def script(project: Path, rel: str, text: str = 'print(\'{"comment": "hi"}\')\n') -> Path:
    return write(project / rel, text)


def trust_cli(*args: str) -> object:
    return CliRunner().invoke(cli, ["trust", *args])


def test_a_changed_script_needs_trusting_again(isolated: Path) -> None:
    script(isolated, "tools/ai.py")
    provider_yaml(isolated, f"{PY} tools/ai.py --flag")
    r = trust_cli("--yes")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert "  tools/ai.py  sha256 " in r.output  # type: ignore[attr-defined]
    assert "  providers.yaml  sha256 " in r.output  # type: ignore[attr-defined]
    assert ProviderRegistry.load(isolated).specs["local"].source == "project"

    script(isolated, "tools/ai.py", "import os; os.system('touch pwned')\n")
    reg = ProviderRegistry.load(isolated)
    assert "local" not in reg.specs
    with pytest.raises(UntrustedProvider, match=r"changed since you trusted it: tools/ai\.py"):
        reg.get("local")
    assert trust_cli("--yes").exit_code == 0  # type: ignore[attr-defined]
    assert ProviderRegistry.load(isolated).specs["local"].source == "project"


def test_scope_expands_variables_and_option_values(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AI_TOOLS", "tools")
    script(isolated, "tools/ai.py")
    script(isolated, "conf/ai.toml", "x = 1\n")
    pf = provider_yaml(isolated, f"{PY} $AI_TOOLS/ai.py --config=conf/ai.toml ~/nothing")
    assert sorted(trust_scope(pf)) == ["conf/ai.toml", "providers.yaml", "tools/ai.py"]


def test_scope_includes_an_executable_inside_the_project(isolated: Path) -> None:
    exe = script(isolated, "bin/ai", "#!/bin/sh\necho hi\n")
    exe.chmod(0o755)
    pf = provider_yaml(isolated, "./bin/ai")
    assert trust_scope(pf)["bin/ai"] == file_digest(exe)


def test_scope_includes_words_relative_to_the_folder_it_runs_from(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(isolated, "tools/ai.py")
    pf = provider_yaml(isolated, f"{PY} tools/ai.py")
    script(isolated, "sub/tools/ai.py", "print('other')\n")
    monkeypatch.chdir(isolated / "sub")
    assert sorted(trust_scope(pf)) == ["providers.yaml", "sub/tools/ai.py", "tools/ai.py"]


def test_files_outside_the_project_are_not_in_scope(isolated: Path, tmp_path: Path) -> None:
    outside = script(tmp_path, "elsewhere/ai.py")
    pf = provider_yaml(isolated, f"{PY} {outside} ../elsewhere/ai.py")
    assert list(trust_scope(pf)) == ["providers.yaml"]


def test_a_symlinked_providers_file_is_never_trusted(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trusted = tmp_path / "trusted-project"
    trusted.mkdir()
    script(trusted, "tools/ai.py")
    provider_yaml(trusted, f"{PY} tools/ai.py")
    monkeypatch.chdir(trusted)
    assert trust_cli("--yes").exit_code == 0  # type: ignore[attr-defined]
    assert ProviderRegistry.load(trusted).specs["local"].source == "project"

    monkeypatch.chdir(isolated)
    (isolated / "providers.yaml").symlink_to(trusted / "providers.yaml")
    reg = ProviderRegistry.load(isolated)
    with pytest.raises(UntrustedProvider, match="symbolic link"):
        reg.get("local")
    r = trust_cli("--yes")
    assert r.exit_code == 1  # type: ignore[attr-defined]
    assert r.output.startswith("Error: ") and "is a symbolic link" in r.output  # type: ignore[attr-defined]
    assert "Traceback" not in r.output  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="symbolic link"):
        trust(isolated / "providers.yaml")


def test_trust_from_an_older_version_covers_too_little(isolated: Path, userdir: Path) -> None:
    pf = provider_yaml(isolated, f"{PY} tools/ai.py")
    script(isolated, "tools/ai.py")
    write(
        userdir / "trust.yaml",
        f"projects:\n  {str(pf.resolve())!r}: {file_digest(pf)}\n",
    )
    with pytest.raises(UntrustedProvider, match="not trusted"):
        ProviderRegistry.load(isolated).get("local")


def test_trust_shows_what_it_covers_when_already_trusted_and_revokes(isolated: Path) -> None:
    script(isolated, "tools/ai.py")
    provider_yaml(isolated, f"{PY} tools/ai.py")
    assert trust_cli("--yes").exit_code == 0  # type: ignore[attr-defined]
    r = trust_cli()
    assert "already trusted" in r.output and "  tools/ai.py  sha256 " in r.output  # type: ignore[attr-defined]
    r = trust_cli("--revoke")
    assert "Trust withdrawn" in r.output  # type: ignore[attr-defined]
    with pytest.raises(UntrustedProvider):
        ProviderRegistry.load(isolated).get("local")


def test_a_trusted_python_module_is_covered(isolated: Path) -> None:
    from discussions.providers.trust import changed_since_trust, trust

    (isolated / "providers.yaml").write_text(
        'providers:\n  - name: proj\n    command: "python3 -m evilmod"\n', encoding="utf-8"
    )
    (isolated / "evilmod.py").write_text("print('hi')\n", encoding="utf-8")
    trust(isolated / "providers.yaml")
    assert changed_since_trust(isolated / "providers.yaml") is None
    (isolated / "evilmod.py").write_text("import os; os.system('touch pwned')\n", encoding="utf-8")
    assert changed_since_trust(isolated / "providers.yaml") == ["evilmod.py"]


def test_nothing_to_trust_names_every_setting_trust_covers(isolated: Path) -> None:
    r = CliRunner().invoke(cli, ["trust"])
    assert r.exit_code == 1
    for setting in ("providers.yaml", "evidence.commands", "evidence.web", "evidence.search"):
        assert setting in r.output, r.output


def test_no_answer_says_how_to_trust_without_a_question(isolated: Path, userdir: Path) -> None:
    script(isolated, "tools/ai.py")
    provider_yaml(isolated, f"{PY} tools/ai.py")
    r = CliRunner().invoke(cli, ["trust"], input="")  # no terminal, nothing typed
    assert r.exit_code == 1 and "discussions trust --yes" in r.output, r.output
    with pytest.raises(UntrustedProvider):
        ProviderRegistry.load(isolated).get("local")
